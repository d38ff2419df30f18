// An nvcc -rdc=true program of two units (with nvcc-lib.cu), linked by nvcc
// and by ld.lld-offload: each unit's kernel calls the other unit's __device__
// function, and a __managed__ variable of nvcc-lib.cu collects a sum that
// the host reads without a copy. It checks the results and prints what the
// runtime loaded.
#include <cuda_runtime.h>
#include <stdio.h>

extern __managed__ long long Total;            // nvcc-lib.cu
__device__ long long cube(int X);              // nvcc-lib.cu
cudaError_t launchOffsets(int N, int *Out);    // nvcc-lib.cu
cudaError_t offsetsAttributes(cudaFuncAttributes *A); // nvcc-lib.cu

__device__ int offset(int X) { return 3 * X + 1; } // called by nvcc-lib.cu

__global__ void sumCubes(int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    atomicAdd((unsigned long long *)&Total, (unsigned long long)cube(I));
}

static int fail(const char *What, cudaError_t E) {
  printf("FAIL %s: %s (%s)\n", What, cudaGetErrorName(E), cudaGetErrorString(E));
  return 1;
}

int main() {
  const int N = 1000;
  cudaError_t E;
  Total = 0;
  sumCubes<<<(N + 255) / 256, 256>>>(N);
  if ((E = cudaGetLastError()) || (E = cudaDeviceSynchronize()))
    return fail("sumCubes", E);
  long long Want = (long long)N * (N - 1) / 2;
  Want *= Want; // the sum of the first N cubes is the square of their sum
  if (Total != Want) {
    printf("FAIL wrong total: %lld, expected %lld\n", Total, Want);
    return 1;
  }
  int *Out;
  if ((E = cudaMallocManaged(&Out, N * sizeof(int))))
    return fail("cudaMallocManaged", E);
  if ((E = launchOffsets(N, Out)) || (E = cudaDeviceSynchronize()))
    return fail("offsets", E);
  for (int I = 0; I < N; ++I)
    if (Out[I] != 3 * I + 1) {
      printf("FAIL wrong offset at %d: %d\n", I, Out[I]);
      return 1;
    }
  cudaFuncAttributes A;
  if ((E = offsetsAttributes(&A)))
    return fail("cudaFuncGetAttributes", E);
  cudaDeviceProp P;
  cudaGetDeviceProperties(&P, 0);
  printf("OK %s sm_%d%d: Total=%lld offsets binaryVersion=%d ptxVersion=%d\n",
         P.name, P.major, P.minor, Total, A.binaryVersion, A.ptxVersion);
  return 0;
}

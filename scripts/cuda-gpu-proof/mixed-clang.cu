// A program of a clang CUDA unit (this one: --offload-new-driver -fgpu-rdc)
// and an nvcc -rdc=true unit (mixed-nvcc.cu), which only ld.lld-offload
// links: each unit's kernel calls the other's __device__ function, and each
// unit's __device__ variable is read by the other's kernel.
#include <cuda_runtime.h>
#include <stdio.h>

__device__ int nvccSquare(int X);     // mixed-nvcc.cu
extern __device__ int NvccBias;       // mixed-nvcc.cu
cudaError_t launchNvcc(int N, int *Out); // mixed-nvcc.cu

extern "C" __device__ int clangTriple(int X) { return 3 * X; }
__device__ int ClangBias = 5;

__global__ void clangKernel(int N, int *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = nvccSquare(I) + NvccBias;
}

static int fail(const char *What, cudaError_t E) {
  printf("FAIL %s: %s (%s)\n", What, cudaGetErrorName(E), cudaGetErrorString(E));
  return 1;
}

int main() {
  const int N = 512;
  int *A, *B;
  cudaError_t E;
  if ((E = cudaMallocManaged(&A, N * sizeof(int))) ||
      (E = cudaMallocManaged(&B, N * sizeof(int))))
    return fail("cudaMallocManaged", E);
  clangKernel<<<(N + 127) / 128, 128>>>(N, A);
  if ((E = cudaGetLastError()) || (E = cudaDeviceSynchronize()))
    return fail("clangKernel", E);
  if ((E = launchNvcc(N, B)) || (E = cudaDeviceSynchronize()))
    return fail("nvccKernel", E);
  for (int I = 0; I < N; ++I)
    if (A[I] != I * I + 11 || B[I] != 3 * I + 5) {
      printf("FAIL wrong result at %d: %d %d\n", I, A[I], B[I]);
      return 1;
    }
  cudaDeviceProp P;
  cudaGetDeviceProperties(&P, 0);
  printf("OK %s sm_%d%d: clang and nvcc units agree\n", P.name, P.major,
         P.minor);
  return 0;
}

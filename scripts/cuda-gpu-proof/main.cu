// Runs the library's kernel and one of its own on the GPU and checks the
// results, so a program whose device code is missing or wrong says so. It
// prints what the runtime loaded: the kernel's binary and PTX versions.
#include <cuda_runtime.h>
#include <stdio.h>

cudaError_t launchSaxpy(int N, const float *X, float *Y);
cudaError_t saxpyAttributes(cudaFuncAttributes *A);

#ifdef RDC
__device__ float scaled(float X);
__global__ void addScaled(int N, const float *X, float *Y) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] += scaled(X[I]);
}
#else
__global__ void addScaled(int N, const float *X, float *Y) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] += 2.0f * X[I];
}
#endif

static int fail(const char *What, cudaError_t E) {
  printf("FAIL %s: %s (%s)\n", What, cudaGetErrorName(E), cudaGetErrorString(E));
  return 1;
}

int main() {
  const int N = 1 << 20;
  static float X[N], Y[N];
  for (int I = 0; I < N; ++I) {
    X[I] = I;
    Y[I] = 1;
  }
  float *DX, *DY;
  cudaError_t E;
  if ((E = cudaMalloc(&DX, N * sizeof(float))) ||
      (E = cudaMalloc(&DY, N * sizeof(float))))
    return fail("cudaMalloc", E);
  cudaMemcpy(DX, X, N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(DY, Y, N * sizeof(float), cudaMemcpyHostToDevice);
  if ((E = launchSaxpy(N, DX, DY)))
    return fail("saxpy", E);
  addScaled<<<(N + 255) / 256, 256>>>(N, DX, DY);
  if ((E = cudaGetLastError()) || (E = cudaDeviceSynchronize()))
    return fail("addScaled", E);
  cudaMemcpy(Y, DY, N * sizeof(float), cudaMemcpyDeviceToHost);
  for (int I = 0; I < N; ++I)
    if (Y[I] != 4.0f * I + 1) {
      printf("FAIL wrong result at %d: %f\n", I, Y[I]);
      return 1;
    }
  cudaFuncAttributes A;
  if ((E = saxpyAttributes(&A)))
    return fail("cudaFuncGetAttributes", E);
  cudaDeviceProp P;
  cudaGetDeviceProperties(&P, 0);
  printf("OK %s sm_%d%d: saxpy binaryVersion=%d ptxVersion=%d\n", P.name,
         P.major, P.minor, A.binaryVersion, A.ptxVersion);
  return 0;
}

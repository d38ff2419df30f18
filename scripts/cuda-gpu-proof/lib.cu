// The library unit: a device function the program's kernel calls (relocatable
// device code only), a device global, and a kernel with a host launcher.
#include <cuda_runtime.h>

__device__ float Scale = 2.0f;

#ifdef RDC
__device__ float scaled(float X) { return Scale * X; }
#endif

__global__ void saxpy(int N, const float *X, float *Y) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] = Scale * X[I] + Y[I];
}

cudaError_t launchSaxpy(int N, const float *X, float *Y) {
  saxpy<<<(N + 255) / 256, 256>>>(N, X, Y);
  return cudaGetLastError();
}

// The kernel's attributes are asked for here: a kernel declared in another
// unit with relocatable device code is a plain function to nvlink there.
cudaError_t saxpyAttributes(cudaFuncAttributes *A) {
  return cudaFuncGetAttributes(A, saxpy);
}

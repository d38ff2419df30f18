// The second unit of the nvcc -rdc=true program (see nvcc-main.cu): the
// __managed__ total, the __device__ function nvcc-main.cu's kernel calls, and
// a kernel that calls nvcc-main.cu's.
#include <cuda_runtime.h>

__managed__ long long Total;

__device__ int offset(int X); // nvcc-main.cu

__device__ long long cube(int X) { return (long long)X * X * X; }

__global__ void offsets(int N, int *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = offset(I);
}

cudaError_t launchOffsets(int N, int *Out) {
  offsets<<<(N + 127) / 128, 128>>>(N, Out);
  return cudaGetLastError();
}

cudaError_t offsetsAttributes(cudaFuncAttributes *A) {
  return cudaFuncGetAttributes(A, offsets);
}

// The nvcc unit of the mixed program (see mixed-clang.cu).
#include <cuda_runtime.h>

extern "C" __device__ int clangTriple(int X); // mixed-clang.cu
extern __device__ int ClangBias;              // mixed-clang.cu

__device__ int nvccSquare(int X) { return X * X; }
__device__ int NvccBias = 11;

__global__ void nvccKernel(int N, int *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = clangTriple(I) + ClangBias;
}

cudaError_t launchNvcc(int N, int *Out) {
  nvccKernel<<<(N + 127) / 128, 128>>>(N, Out);
  return cudaGetLastError();
}

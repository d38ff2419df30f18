// The nvcc unit of the mixed program: see mixed-clang.cu.
#include <cuda_runtime.h>

extern "C" __device__ int clangTriple(int X); // mixed-clang.cu
__device__ int nvccSquare(int X) { return X * X; }

__device__ int NvccGlobal = 11;

__global__ void nvccKernel(int *Out) { *Out = clangTriple(*Out) + NvccGlobal; }

void launchNvcc(int *Out) { nvccKernel<<<3, 1>>>(Out); }

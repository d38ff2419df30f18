// A member of libdev.a that host code needs (see lib-main.cu); its kernel
// calls lib-dev.cu's __device__ function too.
#include <cuda_runtime.h>

__device__ int libScale(int X); // lib-dev.cu

__global__ void libHostKernel(int *Out) { *Out = libScale(*Out) - 1; }

void libLaunch(int *Out) { libHostKernel<<<1, 16>>>(Out); }

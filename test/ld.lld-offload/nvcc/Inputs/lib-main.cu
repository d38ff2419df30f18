// A program over a static library of nvcc -rdc=true objects (libdev.a):
// main's kernel calls lib-dev.cu's __device__ function, which nothing on the
// host refers to (only the device link needs that member), and main calls
// lib-host.cu's host function, which launches its kernel; lib-unused.cu is a
// member that neither needs.
#include <cstdio>
#include <cuda_runtime.h>

__device__ int libScale(int X); // lib-dev.cu (device only)
void libLaunch(int *Out);       // lib-host.cu

__global__ void mainKernel(int *Out) { *Out = libScale(*Out); }

int main() {
  int *Out;
  cudaMalloc((void **)&Out, sizeof(int));
  mainKernel<<<1, 1>>>(Out);
  libLaunch(Out);
  cudaDeviceSynchronize();
  printf("main done\n");
  return 0;
}

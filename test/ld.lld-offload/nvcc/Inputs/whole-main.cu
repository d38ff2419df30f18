// A whole-program nvcc unit (compiled without -rdc): its own fat binary in
// .nv_fatbin, registered by its own constructor (__cudaRegisterFatBinary,
// its kernel, __cudaRegisterFatBinaryEnd). main launches its kernel and
// whole-other.cu's.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void wholeMainKernel(int *Out) { *Out = 7; }

void launchOther(int *Out); // whole-other.cu

int main() {
  int *Out;
  cudaMalloc((void **)&Out, sizeof(int));
  wholeMainKernel<<<1, 1>>>(Out);
  launchOther(Out);
  cudaDeviceSynchronize();
  printf("main done\n");
  return 0;
}

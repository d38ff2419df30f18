// Unit A of a two-unit nvcc -rdc=true program: its kernel calls unit B's
// __device__ function, and B's kernel calls A's.
#include <cstdio>
#include <cuda_runtime.h>

__device__ int twiceB(int X); // cross-b.cu
__device__ int plusOneA(int X) { return X + 1; }

__global__ void kernelA(int *Out) { *Out = twiceB(plusOneA(*Out)); }

void launchB(int *Out); // cross-b.cu

int main() {
  int *Out;
  cudaMalloc((void **)&Out, sizeof(int));
  kernelA<<<1, 1>>>(Out);
  launchB(Out);
  cudaDeviceSynchronize();
  printf("main done\n");
  return 0;
}

// Dynamic parallelism in an nvcc -rdc=true program: a kernel launches kernels
// from the device, its own unit's and dynpar-b.cu's. The device launches
// need the toolkit's device runtime (libcudadevrt.a: cudaGetParameterBuffer,
// cudaLaunchDeviceV2), which nvcc's link adds to nvlink and to the host link
// (-lcudadevrt); its member is an nvcc -rdc module itself, registered with
// the program's.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void childB(int *Out, int Depth); // dynpar-b.cu

__global__ void childA(int *Out) { atomicAdd(Out, 1); }

__global__ void parent(int *Out) {
  if (threadIdx.x == 0) {
    childA<<<1, 8>>>(Out);
    childB<<<2, 4>>>(Out, 1);
  }
}

int main() {
  int *Out;
  cudaMalloc((void **)&Out, sizeof(int));
  parent<<<1, 32>>>(Out);
  cudaDeviceSynchronize();
  printf("main done\n");
  return 0;
}

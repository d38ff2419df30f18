// The clang unit of a program mixing clang CUDA (--offload-new-driver
// -fgpu-rdc) and nvcc -rdc=true objects: its kernel calls the nvcc unit's
// __device__ function and the nvcc unit's kernel calls its own; main launches
// both units' kernels. No header: clang's CUDA wrappers declare what is used.
#include <cstdio>

__device__ int nvccSquare(int X); // mixed-nvcc.cu
extern "C" __device__ int clangTriple(int X) { return 3 * X; }

__device__ int ClangGlobal = 7;

__global__ void clangKernel(int *Out) { *Out = nvccSquare(*Out) + ClangGlobal; }

void launchNvcc(int *Out); // mixed-nvcc.cu

int main() {
  int *Out;
  cudaMalloc((void **)&Out, sizeof(int));
  clangKernel<<<1, 2>>>(Out);
  launchNvcc(Out);
  cudaDeviceSynchronize();
  printf("main done\n");
  return 0;
}

// Device printf in an nvcc -rdc=true program: printf-b.cu's __device__
// function prints (vprintf, which the driver provides at load time: an
// undefined symbol that nvlink leaves in the linked cubin), called from
// printf-a.cu's kernel; printf-a.cu's kernel prints too.
#include <cstdio>
#include <cuda_runtime.h>

__device__ void report(const char *Who, int Value); // printf-b.cu

__global__ void hello(int Base) {
  printf("hello from thread %d\n", (int)threadIdx.x);
  report("hello", Base + (int)threadIdx.x);
}

int main() {
  hello<<<1, 4>>>(100);
  cudaDeviceSynchronize();
  printf("main done\n");
  return 0;
}

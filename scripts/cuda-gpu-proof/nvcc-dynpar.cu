// An nvcc -rdc=true program for the GPU run (with nvcc-devlib.cu, put in a
// static library): a kernel launches kernels from the device (dynamic
// parallelism: the toolkit's libcudadevrt.a, which the linker adds), one of
// them calls a __device__ function of a library member that only device code
// needs, and a kernel prints from the device. It checks the results.
#include <cuda_runtime.h>
#include <stdio.h>

__device__ int libScale(int X); // nvcc-devlib.cu, in libnvdev.a

__global__ void child(int *Out, int Depth) {
  atomicAdd(Out, libScale(1)); // 3 each
  if (Depth > 0 && threadIdx.x == 0)
    child<<<1, 2>>>(Out, Depth - 1);
}

__global__ void parent(int *Out) {
  if (threadIdx.x == 0)
    child<<<2, 4>>>(Out, 2);
}

__global__ void hello(int X) {
  if (threadIdx.x == 0)
    printf("device printf: %d\n", X);
}

static int fail(const char *What, cudaError_t E) {
  printf("FAIL %s: %s (%s)\n", What, cudaGetErrorName(E), cudaGetErrorString(E));
  return 1;
}

int main() {
  int *Out;
  cudaError_t E;
  if ((E = cudaMallocManaged(&Out, sizeof(int))))
    return fail("cudaMallocManaged", E);
  *Out = 0;
  parent<<<1, 32>>>(Out);
  if ((E = cudaGetLastError()) || (E = cudaDeviceSynchronize()))
    return fail("parent", E);
  // 8 threads at depth 2; thread 0 of each of their 2 blocks launches 2
  // threads at depth 1, whose thread 0 launches 2 at depth 0: 8 + 4 + 4.
  int Want = 3 * (8 + 4 + 4);
  if (*Out != Want) {
    printf("FAIL wrong count: %d, expected %d\n", *Out, Want);
    return 1;
  }
  fflush(stdout);
  hello<<<1, 1>>>(42);
  if ((E = cudaGetLastError()) || (E = cudaDeviceSynchronize()))
    return fail("hello", E);
  printf("OK dynamic parallelism count=%d\n", *Out);
  return 0;
}

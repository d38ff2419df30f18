// Variables across two nvcc -rdc=true units: vars-a.cu defines a __device__,
// a __constant__ and a __managed__ variable that vars-b.cu's kernel uses
// (extern), and vars-b.cu defines ones that vars-a.cu's kernel uses. main
// writes the constant (cudaMemcpyToSymbol) and reads the managed variables
// from the host, which makes the runtime initialize the module
// (__cudaInitModule) first.
#include <cstdio>
#include <cuda_runtime.h>

__device__ int DeviceCounter;
__constant__ float Coefficients[4];
__managed__ int ManagedResult;

extern __device__ double DeviceScale;   // vars-b.cu
extern __managed__ long ManagedTotal;   // vars-b.cu
extern __constant__ short ConstantBias; // vars-b.cu

__global__ void accumulate(const float *In, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    atomicAdd(&DeviceCounter, 1);
    atomicAdd(&ManagedResult, (int)(In[I] * Coefficients[I % 4] * DeviceScale));
    atomicAdd((unsigned long long *)&ManagedTotal, ConstantBias);
  }
}

void launchScale(int N); // vars-b.cu

int main() {
  const float Host[4] = {1, 2, 3, 4};
  cudaMemcpyToSymbol(Coefficients, Host, sizeof Host);
  float *In;
  cudaMalloc((void **)&In, 64 * sizeof(float));
  accumulate<<<2, 32>>>(In, 64);
  launchScale(64);
  cudaDeviceSynchronize();
  printf("managed %d %ld\n", ManagedResult, ManagedTotal);
  return 0;
}

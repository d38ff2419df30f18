// See vars-a.cu.
#include <cuda_runtime.h>

__device__ double DeviceScale = 0.5;
__managed__ long ManagedTotal;
__constant__ short ConstantBias = 3;

extern __device__ int DeviceCounter;  // vars-a.cu
extern __constant__ float Coefficients[4]; // vars-a.cu
extern __managed__ int ManagedResult; // vars-a.cu

__global__ void scale(int N) {
  if (threadIdx.x == 0)
    ManagedResult = (int)(ManagedResult * DeviceScale + Coefficients[0]) +
                    DeviceCounter;
}

void launchScale(int N) { scale<<<1, N>>>(N); }

// A device global and a device function used from cuda-a.cu, and a kernel.
__device__ int DeviceGlobal = 7;
__device__ int helper(int X) { return X + DeviceGlobal; }
__global__ void kernelB(int *P) { *P = DeviceGlobal; }

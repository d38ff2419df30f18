// Two kernels and two device variables that --icf=all could take for one,
// and a host function nothing calls, which --gc-sections may collect.
__global__ void kernelOne(int *P) { *P = 1; }
__global__ void kernelTwo(int *P) { *P = 1; }
__device__ int VarOne = 1;
__device__ int VarTwo = 1;
extern "C" int unusedHostFunction(int X) { return X * 3; }
int main() { return 0; }

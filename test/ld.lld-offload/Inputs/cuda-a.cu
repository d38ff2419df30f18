// A kernel calling a device function defined in cuda-b.cu (relocatable
// device code).
__device__ int helper(int X);
__global__ void kernelA(int *P) { *P = helper(35); }
int main() { return 0; }

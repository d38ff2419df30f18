// Device code with one of each thing the CUDA registration handles by entry:
// a kernel, a device variable and a constant variable.
__device__ int Counter;
__constant__ int Table[4];
__global__ void addOne(int *Out) { *Out = Counter + Table[0] + 1; }
int main() { return 0; }

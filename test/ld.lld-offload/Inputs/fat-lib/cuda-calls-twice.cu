// A program whose kernel calls a device function that only a static
// library's member defines.
__device__ int twice(int X);
__global__ void mainKernel(int *P) { *P = twice(*P); }
int main() { return 0; }

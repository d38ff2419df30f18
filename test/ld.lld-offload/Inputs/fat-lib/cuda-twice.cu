// A fat static library's member: a device function and a kernel. Nothing in
// it is a host symbol a program's host code calls.
__device__ int twice(int X) { return 2 * X; }
__global__ void libKernel(int *P) { *P = twice(*P); }

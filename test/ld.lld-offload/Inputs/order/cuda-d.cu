// Archive-order programs: a device function that only cuda-b.cu's kernel
// calls (no host code needs this member), and a kernel of its own.
__device__ int helper(int X) { return X * 3 + 1; }
__global__ void kernelD(int *P) { P[3] = helper(P[3]); }

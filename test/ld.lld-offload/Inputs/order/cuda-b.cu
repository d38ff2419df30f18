// Archive-order programs: a kernel calling cuda-d.cu's device function,
// launched by a host function that also calls cuda-a.cu's.
void runA(int *P);
__device__ int helper(int X);
__global__ void kernelB(int *P) { P[1] = helper(P[1]); }
void runB(int *P) {
  kernelB<<<1, 1>>>(P);
  runA(P);
}

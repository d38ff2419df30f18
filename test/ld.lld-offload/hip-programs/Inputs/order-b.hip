// Archive-order programs: a kernel calling order-d.hip's device function,
// launched by a host function that also calls order-a.hip's.
#include "hip-mini.h"
void runA(int *P);
__device__ int helper(int X);
__global__ void kernelB(int *P) { P[1] = helper(P[1]); }
void runB(int *P) {
  kernelB<<<1, 1>>>(P);
  runA(P);
}

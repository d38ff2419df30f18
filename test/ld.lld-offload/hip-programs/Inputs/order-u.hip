// Archive-order programs: a member nothing needs, a kernel and a variable.
#include "hip-mini.h"
__device__ int UnusedCounter;
__global__ void kernelU(int *P) { P[4] = ++UnusedCounter; }

// Archive-order programs (archive-order.test): a kernel and the host
// function that launches it.
#include "hip-mini.h"
__global__ void kernelA(int *P) { P[0] = 1; }
void runA(int *P) { kernelA<<<1, 1>>>(P); }

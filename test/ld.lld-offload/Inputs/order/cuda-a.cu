// Archive-order programs (archive-order-cuda.test): a kernel and the host
// function that launches it.
__global__ void kernelA(int *P) { P[0] = 1; }
void runA(int *P) { kernelA<<<1, 1>>>(P); }

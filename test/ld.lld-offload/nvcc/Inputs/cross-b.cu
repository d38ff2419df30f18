// Unit B: see cross-a.cu.
#include <cuda_runtime.h>

__device__ int plusOneA(int X); // cross-a.cu
__device__ int twiceB(int X) { return 2 * X; }

__global__ void kernelB(int *Out) { *Out = plusOneA(twiceB(*Out)); }

void launchB(int *Out) { kernelB<<<2, 32>>>(Out); }

// A whole-program nvcc unit with a kernel and a __device__ variable of its
// own (see whole-main.cu); it calls no other unit's device code, so it can
// be linked beside -rdc units as well.
#include <cuda_runtime.h>

__device__ int OtherValue = 5;

__global__ void wholeOtherKernel(int *Out) { *Out += OtherValue; }

void launchOther(int *Out) { wholeOtherKernel<<<2, 8>>>(Out); }

// Relocatable device code, unit 1 of 2: a kernel that calls a device function
// of rdc-offset.hip, and a device function that rdc-offset.hip's kernel
// calls. The host code launches both units' kernels.
#include "hip-mini.h"

__device__ int offsetOf(int I);
__device__ int scale(int X) { return 3 * X; }

__global__ void scaleThenOffset(int *Out, int N) {
  for (int I = 0; I < N; ++I)
    Out[I] = offsetOf(scale(Out[I]));
}

__global__ void offsetThenScale(int *Out, int N);

int main() {
  scaleThenOffset<<<dim3(4, 2), 64>>>(nullptr, 256);
  offsetThenScale<<<8, dim3(32, 4)>>>(nullptr, 256);
  return 0;
}

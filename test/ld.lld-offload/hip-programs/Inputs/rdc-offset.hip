// Relocatable device code, unit 2 of 2: a device function that
// rdc-scale.hip's kernel calls, and a kernel that calls a device function of
// rdc-scale.hip.
#include "hip-mini.h"

__device__ int scale(int X);
__device__ int offsetOf(int I) { return I + 11; }

__global__ void offsetThenScale(int *Out, int N) {
  for (int I = 0; I < N; ++I)
    Out[I] = scale(offsetOf(Out[I]));
}

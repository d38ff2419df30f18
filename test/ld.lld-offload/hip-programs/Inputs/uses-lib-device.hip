// A program whose kernel calls a device function that only a static
// library's member (lib-math.hip) defines; its host code needs nothing from
// the library.
#include "hip-mini.h"

__device__ float libSquare(float X);

__global__ void squares(float *Out, int N) {
  for (int I = 0; I < N; ++I)
    Out[I] = libSquare(Out[I]);
}

int main() {
  squares<<<1, 32>>>(nullptr, 32);
  return 0;
}

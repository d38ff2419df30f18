// A member of a HIP static library: a device function that only the library
// defines, a kernel, and a host function that launches it (the library's
// API for programs that are not HIP themselves).
#include "hip-mini.h"

__device__ float libSquare(float X) { return X * X; }

__global__ void libSaxpy(float A, const float *X, float *Y, int N) {
  for (int I = 0; I < N; ++I)
    Y[I] = A * libSquare(X[I]) + Y[I];
}

extern "C" int libRunSaxpy(int N) {
  libSaxpy<<<(N + 127) / 128, 128>>>(2.0f, nullptr, nullptr, N);
  return N;
}

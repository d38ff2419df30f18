// A second unit that instantiates and launches the template kernels of
// templates.hip again (as units that include one header do): the kernels
// are registered once, and both units' launches reach the one handle.
#include "hip-mini.h"

template <typename T> __device__ T twice(T X) { return X + X; }

template <typename T> __global__ void axpy(T A, const T *X, T *Y, int N) {
  for (int I = 0; I < N; ++I)
    Y[I] = twice(A) * X[I] + Y[I];
}

void runAxpyAgain() {
  axpy<int><<<1, 64>>>(3, nullptr, nullptr, 64);
  axpy<double><<<1, 32>>>(1.0, nullptr, nullptr, 32);
}

// Template kernels: one template instantiated for int and for float by the
// launches in host code, a template with a non-type parameter, and a
// template device function called from the kernels.
#include "hip-mini.h"

template <typename T> __device__ T twice(T X) { return X + X; }

template <typename T> __global__ void axpy(T A, const T *X, T *Y, int N) {
  for (int I = 0; I < N; ++I)
    Y[I] = twice(A) * X[I] + Y[I];
}

template <int Width> __global__ void fill(int *Out) {
  for (int I = 0; I < Width; ++I)
    Out[I] = Width;
}

template <typename T> void runAxpy(T A, int N) {
  axpy<T><<<(N + 255) / 256, 256>>>(A, nullptr, nullptr, N);
}

void runAxpyAgain();

int main() {
  runAxpy<int>(2, 1000);
  runAxpy<float>(0.5f, 300);
  fill<16><<<1, 1>>>(nullptr);
  runAxpyAgain();
  return 0;
}

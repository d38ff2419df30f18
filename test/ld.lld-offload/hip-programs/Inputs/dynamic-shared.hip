// Dynamic shared memory: kernels that use `extern __shared__` arrays (one of
// them through a second declaration with another element type, as reduction
// kernels do), sized by the launch; a static __shared__ tile beside them.
#include "hip-mini.h"

extern __shared__ float Scratch[];

__global__ void reduce(const float *In, float *Out, int N) {
  unsigned T = __builtin_amdgcn_workitem_id_x();
  Scratch[T] = T < N ? In[T] : 0;
  __builtin_amdgcn_s_barrier();
  for (unsigned S = 1; S < 256; S *= 2) {
    if (T % (2 * S) == 0)
      Scratch[T] += Scratch[T + S];
    __builtin_amdgcn_s_barrier();
  }
  if (T == 0)
    *Out = Scratch[0];
}

__global__ void histogram(const int *In, int *Out, int N) {
  extern __shared__ int Bins[];
  __shared__ int Tile[64];
  unsigned T = __builtin_amdgcn_workitem_id_x();
  Tile[T % 64] = In[T];
  __builtin_amdgcn_s_barrier();
  Bins[Tile[(T + 1) % 64] % 16] += 1;
  __builtin_amdgcn_s_barrier();
  if (T < 16)
    Out[T] = Bins[T];
}

int main() {
  reduce<<<1, 256, 256 * sizeof(float)>>>(nullptr, nullptr, 256);
  histogram<<<4, 64, 16 * sizeof(int)>>>(nullptr, nullptr, 256);
  return 0;
}

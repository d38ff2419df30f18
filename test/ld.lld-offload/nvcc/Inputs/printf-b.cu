// See printf-a.cu.
#include <cstdio>

__device__ void report(const char *Who, int Value) {
  printf("%s: %d (block %d)\n", Who, Value, (int)blockIdx.x);
}

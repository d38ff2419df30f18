// Kernels used only through their addresses: never launched by name, their
// handles taken, kept in a table and passed to hipLaunchKernel as real
// programs do for dispatch tables (and as hipLaunchKernelGGL does).
#include "hip-mini.h"

__global__ void addOne(int *Out) { *Out += 1; }
__global__ void timesTwo(int *Out) { *Out *= 2; }
template <typename T> __global__ void negate(T *Out) { *Out = -*Out; }

typedef void (*Kernel)(int *);
static const Kernel Table[] = {addOne, timesTwo, negate<int>};

static void launch(const void *K, int *Arg) {
  void *Args[] = {&Arg};
  hipLaunchKernel(K, dim3(1), dim3(64), Args, 0, nullptr);
}

int main(int Argc, char **) {
  for (Kernel K : Table)
    launch((const void *)K, nullptr);
  // The last through a pointer whose value the compiler cannot know.
  const void *Chosen = Argc > 5 ? (const void *)addOne : (const void *)timesTwo;
  launch(Chosen, nullptr);
  return 0;
}

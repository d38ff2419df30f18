// Kernels with internal linkage, launched from host code of their unit:
// internal-a.hip and internal-b.hip both define, each for itself, a kernel in
// an anonymous namespace (and a template one), a static kernel and a static
// __device__ variable of the same names. Under -fgpu-rdc clang gives each a
// name of its own (a suffix of the unit's ID); each unit must launch its own.
#include "hip-mini.h"

namespace {
__global__ void step(int *Out) { *Out += 1; }
template <typename T> __global__ void fillWith(T *Out, T Value) { *Out = Value; }
} // namespace

static __device__ int Calls;
static __global__ void count(int *Out) { *Out = ++Calls; }

void runUnit_b() {
  step<<<1, 1>>>(nullptr);
  fillWith<<<2, 2>>>((short *)nullptr, (short)7);
  count<<<3, 3>>>(nullptr);
}

// Another member of the HIP static library, which no program here needs:
// its kernel is registered by no link.
#include "hip-mini.h"

__device__ int UnusedTable[16];
__global__ void libUnusedKernel(int *Out) { *Out = UnusedTable[3]; }
extern "C" void libRunUnused() { libUnusedKernel<<<1, 1>>>(nullptr); }

// A device library's function, compiled to bitcode for amdgcnspirv.
#include "hip-mini.h"
__device__ int libTwice(int X) { return 2 * X; }

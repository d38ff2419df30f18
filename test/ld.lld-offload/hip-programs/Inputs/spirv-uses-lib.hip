// A kernel that calls a device function only a device library defines.
#include "hip-mini.h"
__device__ int libTwice(int X);
__global__ void usesLib(int *P) { *P = libTwice(*P); }
int main() {
  usesLib<<<1, 1>>>(nullptr);
  return 0;
}

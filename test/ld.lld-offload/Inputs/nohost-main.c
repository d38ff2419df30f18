// Device code calls a function the host link has no reason to load: the host
// refers to it weakly, so LLD extracts no archive member for it, yet the
// device image needs its definition from the library.
#include <stdio.h>

#pragma omp declare target
__attribute__((weak)) int device_helper(int X);
#pragma omp end declare target

int main(void) {
  int Result = 0;
#pragma omp target map(from : Result)
  Result = device_helper(41);
  printf("device_helper=%d\n", Result);
  return 0;
}

// One OpenMP target region, offloaded to a SPIR-V device.
#include <stdio.h>
int main(void) {
  int X = 0;
#pragma omp target map(tofrom : X)
  { X = 42; }
  printf("%d\n", X);
  return X != 42;
}

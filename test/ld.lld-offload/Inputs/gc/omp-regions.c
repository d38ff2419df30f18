// Two target regions with the same body, which --icf=all could take for one
// (the runtime tells kernels apart by their host addresses), and a host
// function nothing calls, which --gc-sections may collect.
#include <stdio.h>

int unusedHostFunction(int X) { return X * 3; }

int main(void) {
  int One = 0, Two = 0;
#pragma omp target map(from : One)
  One = 1;
#pragma omp target map(from : Two)
  Two = 1;
  printf("one=%d two=%d\n", One, Two);
  return 0;
}

// Device code calling a function that a host library defines (CPU device
// links resolve it with the host link's libraries).
#include <stdio.h>
#pragma omp declare target
int helper(int x);
#pragma omp end declare target
int main(void) {
  int r = 0;
#pragma omp target map(tofrom : r)
  r = helper(41);
  printf("r=%d\n", r);
  return r != 42;
}

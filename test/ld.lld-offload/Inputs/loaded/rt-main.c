// A program with device code of its own, linked with a library member that
// only the offload runtime or the registration object asks for.
#include <stdio.h>
int main(void) {
  int X = 0;
#pragma omp target map(tofrom : X)
  X = 2;
  printf("x=%d\n", X);
  return 0;
}

// Target regions that call a declare-target function and read a
// declare-target global, both defined in another translation unit.
#include <stdio.h>

#pragma omp declare target
int scale(int X);
extern int Offset;
#pragma omp end declare target

int main(void) {
  int Result = 0;
#pragma omp target map(from : Result)
  Result = scale(20) + Offset;
  printf("result=%d\n", Result);
  return 0;
}

// A program whose target region calls a function that only a static
// library's member defines: the host refers to it weakly, so the host link
// has no reason to load the member.
#include <stdio.h>

#pragma omp declare target
__attribute__((weak)) int twice(int X);
#pragma omp end declare target

int main(void) {
  int Result = 0;
#pragma omp target map(from : Result)
  Result = twice(21);
  printf("twice=%d\n", Result);
  return 0;
}

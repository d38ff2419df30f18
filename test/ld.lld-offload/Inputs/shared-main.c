#include <stdio.h>
int shared_answer(void);
int main(void) {
  int Local = 0;
#pragma omp target map(from : Local)
  Local = 1;
  printf("shared=%d local=%d\n", shared_answer(), Local);
  return 0;
}

// Archive-order programs: main calls omp-b.c's host function.
#include <stdio.h>
int runB(void);
int main(void) {
  printf("%d\n", runB());
  return 0;
}

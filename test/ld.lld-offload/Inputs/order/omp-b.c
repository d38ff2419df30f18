// Archive-order programs: a target region calling omp-d.c's function, in a
// host function that also calls omp-a.c's.
#pragma omp declare target
int helper(int X);
#pragma omp end declare target
int runA(void);
int runB(void) {
  int R = 0;
#pragma omp target map(from : R)
  R = helper(2);
  return R + runA();
}

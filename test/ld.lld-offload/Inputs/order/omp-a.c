// Archive-order programs (archive-order-openmp.test): a target region in a
// host function.
int runA(void) {
  int R = 0;
#pragma omp target map(from : R)
  R = 5;
  return R;
}

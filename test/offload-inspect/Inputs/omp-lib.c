// A second OpenMP offload unit (no main), to merge with target-sum.c by
// `ld -r`.
int twice(int X) {
  int R = 0;
#pragma omp target map(from : R)
  R = 2 * X;
  return R;
}

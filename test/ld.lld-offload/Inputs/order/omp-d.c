// Archive-order programs: a function only omp-b.c's target region calls (no
// host code needs this member), and a target region of its own.
#pragma omp declare target
int helper(int X) { return X * 3 + 1; }
#pragma omp end declare target
int runD(void) {
  int R = 0;
#pragma omp target map(from : R)
  R = helper(4);
  return R;
}

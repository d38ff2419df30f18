// An OpenMP offload unit; -DNAME=... renames its function, so that two
// objects of it can be merged by `ld -r`.
#ifndef NAME
#define NAME twice
#endif
int NAME(int X) {
  int R = 0;
#pragma omp target map(from : R)
  R = 2 * X;
  return R;
}

// A target region of its own, and a call into an archive member with one.
#include <omp.h>
#include <stdio.h>
int lib_used(void);
int main(void) {
  int OnDevice = 0;
#pragma omp target map(from : OnDevice)
  OnDevice = !omp_is_initial_device();
  printf("main on device=%d lib_used=%d\n", OnDevice, lib_used());
  return 0;
}

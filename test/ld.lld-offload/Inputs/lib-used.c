// An archive member the host link extracts (main calls lib_used), with a
// target region of its own.
#include <omp.h>
int lib_used(void) {
  int OnDevice = 0;
#pragma omp target map(from : OnDevice)
  OnDevice = !omp_is_initial_device();
  return OnDevice ? 7 : -1;
}

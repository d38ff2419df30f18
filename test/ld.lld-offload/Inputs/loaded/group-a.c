// In the first archive of a group; only a member of the second one, which
// the link takes later, calls it.
#include <omp.h>
int group_a(void) {
  int OnDevice = 0;
#pragma omp target map(from : OnDevice)
  OnDevice = !omp_is_initial_device();
  return OnDevice ? 5 : -1;
}

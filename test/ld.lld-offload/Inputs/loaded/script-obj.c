// Named only by a linker script's INPUT: the command line does not show it.
#include <omp.h>
int script_obj(void) {
  int OnDevice = 0;
#pragma omp target map(from : OnDevice)
  OnDevice = !omp_is_initial_device();
  return OnDevice ? 3 : -1;
}

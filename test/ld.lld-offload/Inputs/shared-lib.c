// A shared library with its own target region: its images register when the
// library is loaded.
#include <omp.h>
int shared_answer(void) {
  int Answer = 0, OnDevice = 0;
#pragma omp target map(from : Answer, OnDevice)
  {
    Answer = 40 + 2;
    OnDevice = !omp_is_initial_device();
  }
  return OnDevice ? Answer : -Answer;
}

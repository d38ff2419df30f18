// An OpenMP program whose target region must run on the offload device: it
// prints what it computed and whether it ran away from the initial device.
#include <omp.h>
#include <stdio.h>

int main(void) {
  int Sum = 0, OnHost = 1;
#pragma omp target map(tofrom : Sum, OnHost)
  {
    OnHost = omp_is_initial_device();
    for (int I = 1; I <= 1000; ++I)
      Sum += I;
  }
  printf("sum=%d offloaded=%d\n", Sum, !OnHost);
  return 0;
}

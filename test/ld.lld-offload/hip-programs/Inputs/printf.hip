// Device printf. Without the device libraries (-nogpulib) clang lowers it to
// calls of the hostcall printf functions of ROCm's ockl, which
// ockl-printf-stub.hip defines in another unit (relocatable device code).
#include "hip-mini.h"

__global__ void hello(int Answer, double Pi) {
  printf("hello from %u: %d %f %s\n", __builtin_amdgcn_workitem_id_x(), Answer,
         Pi, "device");
}

int main() {
  hello<<<1, 2>>>(42, 3.14159);
  printf("host: launched\n");
  return 0;
}

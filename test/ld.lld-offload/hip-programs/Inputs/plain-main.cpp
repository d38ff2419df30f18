// A plain C++ program (not compiled as HIP) that uses a HIP static library
// through its host API only: the kernel it runs is the library's.
#include <stdio.h>

extern "C" int libRunSaxpy(int N);

int main() {
  printf("host: saxpy on %d\n", libRunSaxpy(1000));
  return 0;
}

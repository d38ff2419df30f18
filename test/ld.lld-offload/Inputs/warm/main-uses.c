// Calls a member of the fat library: the host link takes it.
#include <stdio.h>
int lib_used(void);
int main(void) {
  printf("lib_used=%d\n", lib_used());
  return 0;
}

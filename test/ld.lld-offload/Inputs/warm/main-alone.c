// Calls nothing of the fat library: the host link takes no member.
#include <stdio.h>
int main(void) {
  printf("alone\n");
  return 0;
}

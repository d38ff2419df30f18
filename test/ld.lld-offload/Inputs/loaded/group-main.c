#include <stdio.h>
int group_b(void);
int main(void) {
  printf("group=%d\n", group_b());
  return 0;
}

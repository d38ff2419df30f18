#include <stdio.h>
int script_obj(void);
int main(void) {
  printf("script_obj=%d\n", script_obj());
  return 0;
}

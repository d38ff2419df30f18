// A stand-in for the HIP runtime's registration interface that prints what
// the wrapper's constructor registers.
#include <stdio.h>
#include <string.h>

struct FatbinWrapper {
  int Magic, Version;
  const char *Data;
  const void *Unused;
};

void *__hipRegisterFatBinary(struct FatbinWrapper *W) {
  printf("register fatbin wrapper magic=%#x version=%d data=%.24s\n",
         (unsigned)W->Magic, W->Version, W->Data);
  return W;
}
void __hipUnregisterFatBinary(void *Handle) { printf("unregister\n"); }
int __hipRegisterFunction(void *Handle, const void *HostFun, char *DevFun,
                          const char *DevName) {
  printf("function %s\n", DevName);
  return 0;
}
void __hipRegisterVar(void) {}
void __hipRegisterManagedVar(void) {}
void __hipRegisterSurface(void) {}
void __hipRegisterTexture(void) {}

// Stands in for the HIP runtime: prints what the registration constructor
// hands to it, so that a test can run a HIP program where no GPU is.
#include <stdio.h>

struct FatbinWrapper {
  int Magic, Version;
  const char *Data;
  const void *Unused;
};

void *__hipRegisterFatBinary(struct FatbinWrapper *W) {
  printf("fatbin magic=%#x data=%.24s\n", (unsigned)W->Magic, W->Data);
  return W;
}
void __hipUnregisterFatBinary(void *Handle) {}
int __hipRegisterFunction(void *Handle, const void *HostFun, char *DevFun,
                          const char *DevName) {
  printf("function %s\n", DevName);
  return 0;
}
void __hipRegisterVar(void *Handle, char *Var, char *DevAddr,
                      const char *DevName, int Ext, unsigned long Size,
                      int Constant, int Global) {
  printf("var %s size=%lu\n", DevName, Size);
}
void __hipRegisterManagedVar(void) {}
void __hipRegisterSurface(void) {}
void __hipRegisterTexture(void) {}
int __hipPopCallConfiguration(void) { return 0; }
int hipLaunchKernel(void) { return 0; }

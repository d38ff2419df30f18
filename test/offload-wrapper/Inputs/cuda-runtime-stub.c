// A stand-in for the CUDA runtime's registration interface that prints what
// the wrapper's constructor and destructor hand to it, so that a test can run
// the registration where no GPU is present.
#include <stdio.h>
#include <string.h>

struct FatbinWrapper {
  int Magic, Version;
  const unsigned char *Data;
  const void *Unused;
};

void **__cudaRegisterFatBinary(struct FatbinWrapper *W) {
  unsigned Magic;
  memcpy(&Magic, W->Data, 4);
  printf("register fatbin wrapper magic=%#x version=%d data-magic=%#x\n",
         (unsigned)W->Magic, W->Version, Magic);
  return (void **)W;
}
void __cudaRegisterFatBinaryEnd(void **Handle) { printf("register end\n"); }
void __cudaUnregisterFatBinary(void **Handle) { printf("unregister\n"); }
int __cudaRegisterFunction(void **Handle, const void *HostFun, char *DevFun,
                           const char *DevName, int ThreadLimit, void *Tid,
                           void *Bid, void *BDim, void *GDim, int *WSize) {
  printf("function %s\n", DevName);
  return 0;
}
void __cudaRegisterVar(void **Handle, char *HostVar, char *DevAddr,
                       const char *DevName, int Ext, size_t Size, int Constant,
                       int Global) {
  printf("var %s size=%zu constant=%d extern=%d\n", DevName, Size, Constant,
         Ext);
}
void __cudaRegisterManagedVar(void **Handle, void **HostVarPtrAddress,
                              char *DevAddr, const char *DevName, size_t Size,
                              unsigned Align) {
  printf("managed %s\n", DevName);
}
void __cudaRegisterSurface(void) {}
void __cudaRegisterTexture(void) {}
// The kernel's host stub launches through these; main never calls it.
int __cudaPopCallConfiguration(void) { return 0; }
int cudaLaunchKernel(void) { return 0; }

// Stands in for the HIP runtime, for programs that run where no GPU is: logs
// every registration call with what identifies it (names, flags, sizes: no
// addresses), and every launch by the name its kernel handle was registered
// under. The lines of two links of one program can be sorted and compared.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct FatbinWrapper {
  int Magic, Version;
  const char *Data;
  const void *Unused;
};
struct Dim3 {
  unsigned X, Y, Z;
};

static struct {
  const void *Handle;
  const char *Name;
} Kernels[64];
static int NumKernels;

static const char *kernelName(const void *Handle) {
  for (int I = 0; I < NumKernels; ++I)
    if (Kernels[I].Handle == Handle)
      return Kernels[I].Name;
  return "<unregistered>";
}

void **__hipRegisterFatBinary(struct FatbinWrapper *W) {
  printf("fatbin magic=%#x version=%d data=%.4s\n", (unsigned)W->Magic,
         W->Version, W->Data);
  return (void **)W;
}
void __hipUnregisterFatBinary(void **Handle) {}

int __hipRegisterFunction(void **Module, const void *HostFun, char *DevFun,
                          const char *DevName, int ThreadLimit, void *Tid,
                          void *Bid, void *BlockDim, void *GridDim,
                          int *WarpSize) {
  printf("function %s dev=%s threadlimit=%d\n", DevName, DevFun, ThreadLimit);
  if (NumKernels < 64) {
    Kernels[NumKernels].Handle = HostFun;
    Kernels[NumKernels++].Name = DevName;
  }
  return 0;
}

void __hipRegisterVar(void **Module, void *Var, char *HostVar,
                      const char *DevName, int Ext, unsigned long Size,
                      int Constant, int Global) {
  printf("var %s host=%s ext=%d size=%lu constant=%d global=%d\n", DevName,
         HostVar, Ext, Size, Constant, Global);
}

// A managed variable's host side is a pointer the runtime sets to memory it
// allocates and fills with the initial value.
void __hipRegisterManagedVar(void *Module, void **Pointer, void *InitValue,
                             const char *Name, unsigned long Size,
                             unsigned Align) {
  printf("managed %s size=%lu align=%u\n", Name, Size, Align);
  unsigned long A = Align ? Align : 1;
  void *Memory = aligned_alloc(A, (Size + A - 1) / A * A);
  memcpy(Memory, InitValue, Size);
  *Pointer = Memory;
}

void __hipRegisterSurface(void) { printf("surface\n"); }
void __hipRegisterTexture(void) { printf("texture\n"); }

static struct Dim3 PushedGrid, PushedBlock;
static unsigned long PushedShared;
static void *PushedStream;
int __hipPushCallConfiguration(struct Dim3 Grid, struct Dim3 Block,
                               unsigned long SharedMem, void *Stream) {
  PushedGrid = Grid;
  PushedBlock = Block;
  PushedShared = SharedMem;
  PushedStream = Stream;
  return 0;
}
int __hipPopCallConfiguration(struct Dim3 *Grid, struct Dim3 *Block,
                              unsigned long *SharedMem, void **Stream) {
  *Grid = PushedGrid;
  *Block = PushedBlock;
  *SharedMem = PushedShared;
  *Stream = PushedStream;
  return 0;
}

int hipLaunchKernel(const void *Kernel, struct Dim3 Grid, struct Dim3 Block,
                    void **Args, unsigned long SharedMem, void *Stream) {
  printf("launch %s grid=%u,%u,%u block=%u,%u,%u shared=%lu\n",
         kernelName(Kernel), Grid.X, Grid.Y, Grid.Z, Block.X, Block.Y, Block.Z,
         SharedMem);
  return 0;
}

// A stand-in CUDA runtime that logs, one line each, what a program hands to
// the runtime's registration and launch interface, so that two links of one
// program (nvcc's and ld.lld-offload's) can be compared where no GPU is
// present. Built as a shared library that both links take in place of the
// toolkit's (`nvcc -cudart=shared -L. -lcudart`; `clang++ ... -L. -lcudart`):
//
//   clang -shared -fPIC cudart-log.c -o libcudart.so -lzstd -llz4
//
// Every line starts with "cudart: "; fat binaries are numbered in the order
// they are registered (#1, #2, ...) and the calls on a handle name its number.
// For each fat binary registered, one line per entry: its kind, arch and a
// hash (FNV-1a 64) of its payload, compressed payloads (LZ4 0x2000, zstd
// 0x8000) inflated first. A cubin is hashed as
// test/ld.lld-offload/Inputs/order/cmp-except-section.py compares: its ELF
// header, program and section headers (without file offsets and sizes in the
// file) and section contents, but for .note.nv.tkinfo, where nvlink writes
// its own command line with temporary file names, of which only the header's
// type, flags, address, link and info count. Version 2 wrappers (a device
// link's, crt/link.stub's) hold in their 4th field the NULL-terminated array
// of the modules' prelinked fat binaries (each object's __nv_relfatbin): one
// line for each, its entries and their hashes.
//
// The output is deterministic: no pointers, no times. Whether the order of
// the lines counts is the test's choice (the comparisons sort them).
//
// The launch interface (__cudaPushCallConfiguration, __cudaGetKernel,
// __cudaLaunchKernel, cudaLaunchKernel, ...) logs the kernel by the device
// name its host stub was registered with; nothing runs. A few runtime API
// calls that the test programs make are there too, logged by name.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#define CUDART_EXPORT __attribute__((visibility("default")))

static void logLine(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
static void logLine(const char *Fmt, ...) {
  va_list Args;
  va_start(Args, Fmt);
  fputs("cudart: ", stdout);
  vprintf(Fmt, Args);
  fputc('\n', stdout);
  fflush(stdout);
  va_end(Args);
}

// ---------------------------------------------------------------------------
// Hashing.

static const uint64_t FnvBasis = 0xcbf29ce484222325ull;

static uint64_t fnv(uint64_t H, const void *Data, size_t Size) {
  const unsigned char *P = (const unsigned char *)Data;
  for (size_t I = 0; I < Size; ++I) {
    H ^= P[I];
    H *= 0x100000001b3ull;
  }
  return H;
}

static uint16_t rd16(const unsigned char *P) {
  uint16_t V;
  memcpy(&V, P, sizeof V);
  return V;
}
static uint32_t rd32(const unsigned char *P) {
  uint32_t V;
  memcpy(&V, P, sizeof V);
  return V;
}
static uint64_t rd64(const unsigned char *P) {
  uint64_t V;
  memcpy(&V, P, sizeof V);
  return V;
}

// A cubin (ELF64, little-endian) hashed but for .note.nv.tkinfo; returns 0
// and sets *Out, or -1 if the ELF file is not one this reads (the caller then
// hashes the bytes).
static int hashCubin(const unsigned char *D, size_t Size, uint64_t *Out) {
  if (Size < 0x40 || memcmp(D, "\x7f" "ELF", 4) != 0 || D[4] != 2 || D[5] != 1)
    return -1;
  uint64_t H = FnvBasis;
  H = fnv(H, D, 0x20);        // ident, type, machine, version, entry
  H = fnv(H, D + 0x30, 0x10); // flags, sizes, counts, shstrndx
  uint64_t PhOff = rd64(D + 0x20), ShOff = rd64(D + 0x28);
  uint16_t PhEntSize = rd16(D + 0x36), PhNum = rd16(D + 0x38);
  uint16_t ShEntSize = rd16(D + 0x3a), ShNum = rd16(D + 0x3c);
  uint16_t ShStrNdx = rd16(D + 0x3e);
  if (PhNum && (PhEntSize < 0x38 || PhOff > Size ||
                (uint64_t)PhNum * PhEntSize > Size - PhOff))
    return -1;
  if (ShNum && (ShEntSize < 0x40 || ShOff > Size ||
                (uint64_t)ShNum * ShEntSize > Size - ShOff ||
                ShStrNdx >= ShNum))
    return -1;
  for (unsigned I = 0; I < PhNum; ++I) {
    const unsigned char *P = D + PhOff + (uint64_t)I * PhEntSize;
    H = fnv(H, P, 8);             // p_type, p_flags
    H = fnv(H, P + 0x10, 0x10);   // p_vaddr, p_paddr
    H = fnv(H, P + 0x30, 8);      // p_align
  }
  if (!ShNum) {
    *Out = H;
    return 0;
  }
  const unsigned char *StrHdr = D + ShOff + (uint64_t)ShStrNdx * ShEntSize;
  uint64_t StrOff = rd64(StrHdr + 0x18), StrSize = rd64(StrHdr + 0x20);
  if (StrOff > Size || StrSize > Size - StrOff)
    return -1;
  for (unsigned I = 0; I < ShNum; ++I) {
    const unsigned char *S = D + ShOff + (uint64_t)I * ShEntSize;
    uint32_t NameOff = rd32(S), Type = rd32(S + 4);
    uint64_t Off = rd64(S + 0x18), SecSize = rd64(S + 0x20);
    if (NameOff >= StrSize)
      return -1;
    const char *Name = (const char *)D + StrOff + NameOff;
    size_t NameLen = strnlen(Name, StrSize - NameOff);
    H = fnv(H, Name, NameLen);
    H = fnv(H, "", 1);
    if (strcmp(Name, ".note.nv.tkinfo") == 0) {
      H = fnv(H, S + 4, 4);       // sh_type
      H = fnv(H, S + 8, 0x10);    // sh_flags, sh_addr
      H = fnv(H, S + 0x28, 8);    // sh_link, sh_info
      continue;
    }
    H = fnv(H, S + 4, 4);         // sh_type
    H = fnv(H, S + 8, 0x10);      // sh_flags, sh_addr
    H = fnv(H, S + 0x20, 0x20);   // sh_size, sh_link, sh_info, align, entsize
    if (Type == 8 /* SHT_NOBITS */ || Type == 0 /* SHT_NULL */)
      continue;
    if (Off > Size || SecSize > Size - Off)
      return -1;
    H = fnv(H, D + Off, SecSize);
  }
  *Out = H;
  return 0;
}

// ---------------------------------------------------------------------------
// Fat binaries.

static const uint32_t FatbinMagic = 0xBA55ED50;
static const uint64_t FlagLZ4 = 0x2000, FlagZstd = 0x8000;

// Describes the entries of the fat binary at Data into Buf ("elf sm_90
// hash=..., ptx sm_90 hash=..."), one item per entry, separated by Sep.
// Returns the number of entries, or -1 with Buf holding what is wrong.
static int describeFatbin(const unsigned char *Data, const char *Sep,
                          char *Buf, size_t BufSize) {
  Buf[0] = 0;
  size_t Used = 0;
#define APPEND(...)                                                            \
  do {                                                                         \
    int N_ = snprintf(Buf + Used, BufSize - Used, __VA_ARGS__);                \
    if (N_ > 0)                                                                \
      Used = Used + (size_t)N_ < BufSize ? Used + (size_t)N_ : BufSize - 1;    \
  } while (0)
  if (!Data) {
    APPEND("no data");
    return -1;
  }
  if (rd32(Data) != FatbinMagic) {
    APPEND("bad magic %#x", rd32(Data));
    return -1;
  }
  uint16_t HeaderSize = rd16(Data + 6);
  uint64_t EntriesSize = rd64(Data + 8);
  const unsigned char *At = Data + HeaderSize, *End = At + EntriesSize;
  int Count = 0;
  while (At < End) {
    if (End - At < 64) {
      APPEND("%struncated entry header", Count ? Sep : "");
      return -1;
    }
    uint16_t Kind = rd16(At);
    uint32_t EntryHeaderSize = rd32(At + 4);
    uint64_t PayloadSize = rd64(At + 8);
    uint32_t CompressedSize = rd32(At + 16);
    uint32_t Arch = rd32(At + 28);
    uint64_t Flags = rd64(At + 40);
    uint64_t Uncompressed = rd64(At + 56);
    if (EntryHeaderSize < 64 || EntryHeaderSize > (uint64_t)(End - At) ||
        PayloadSize > (uint64_t)(End - At) - EntryHeaderSize) {
      APPEND("%smalformed entry", Count ? Sep : "");
      return -1;
    }
    const unsigned char *Payload = At + EntryHeaderSize;
    size_t Size = PayloadSize;
    unsigned char *Inflated = NULL;
    const char *Problem = NULL;
    if (Flags & (FlagLZ4 | FlagZstd)) {
      Inflated = malloc(Uncompressed ? Uncompressed : 1);
      if (!Inflated || CompressedSize > PayloadSize) {
        Problem = "compressed-unreadable";
      } else if (Flags & FlagZstd) {
        size_t Got = ZSTD_decompress(Inflated, Uncompressed, Payload,
                                     CompressedSize);
        if (ZSTD_isError(Got) || Got != Uncompressed)
          Problem = "zstd-uninflatable";
      } else {
        int Got = LZ4_decompress_safe((const char *)Payload, (char *)Inflated,
                                      (int)CompressedSize, (int)Uncompressed);
        if (Got < 0 || (uint64_t)Got != Uncompressed)
          Problem = "lz4-uninflatable";
      }
      Payload = Inflated;
      Size = Uncompressed;
    }
    const char *KindName = Kind == 1 ? "ptx" : Kind == 2 ? "elf" : "kind?";
    uint64_t H = 0;
    if (Problem) {
      APPEND("%s%s sm_%u %s", Count ? Sep : "", KindName, Arch, Problem);
    } else {
      if (Kind == 2 && hashCubin(Payload, Size, &H) == 0) {
        APPEND("%s%s sm_%u hash=%016llx", Count ? Sep : "", KindName, Arch,
               (unsigned long long)H);
      } else {
        // PTX is text: what follows its NUL is padding.
        size_t Len = Kind == 1 ? strnlen((const char *)Payload, Size) : Size;
        H = fnv(FnvBasis, Payload, Len);
        APPEND("%s%s sm_%u %shash=%016llx", Count ? Sep : "", KindName, Arch,
               Kind == 2 ? "raw-" : "", (unsigned long long)H);
      }
    }
    free(Inflated);
    ++Count;
    At += EntryHeaderSize + PayloadSize;
  }
#undef APPEND
  return Count;
}

// ---------------------------------------------------------------------------
// Registration.

struct FatbinWrapper {
  int Magic;
  int Version;
  const unsigned char *Data;
  void *FilenameOrFatbins; // version 2: NULL-terminated prelinked fat binaries
};

enum { MaxFatbins = 64, MaxFunctions = 4096, MaxManaged = 1024 };

struct Handle {
  void *Self; // what the runtime's handle points at; unused
  int Number;
};
static struct Handle Handles[MaxFatbins];
static int NumHandles;

static int handleNumber(void **H) {
  for (int I = 0; I < NumHandles; ++I)
    if ((void **)&Handles[I] == H)
      return Handles[I].Number;
  return 0; // not a handle this runtime returned
}

struct Function {
  const void *HostFun;
  const char *Name;
};
static struct Function Functions[MaxFunctions];
static int NumFunctions;

static const char *kernelName(const void *HostFun) {
  for (int I = 0; I < NumFunctions; ++I)
    if (Functions[I].HostFun == HostFun)
      return Functions[I].Name;
  return "<unregistered>";
}

struct Managed {
  void **Handle;
  void **HostPtr;
  size_t Size;
};
static struct Managed ManagedVars[MaxManaged];
static int NumManaged;

CUDART_EXPORT void **__cudaRegisterFatBinary(void *FatCubin) {
  struct FatbinWrapper *W = (struct FatbinWrapper *)FatCubin;
  if (NumHandles == MaxFatbins) {
    logLine("register fatbin: too many");
    exit(70);
  }
  struct Handle *H = &Handles[NumHandles++];
  H->Self = W;
  H->Number = NumHandles;
  static char Buf[1 << 16];
  if (W->Version == 2) {
    void **Prelinked = (void **)W->FilenameOrFatbins;
    int N = 0;
    while (Prelinked && Prelinked[N])
      ++N;
    logLine("register fatbin #%d wrapper magic=%#x version=%d prelinked=%d",
            H->Number, (unsigned)W->Magic, W->Version, N);
    for (int I = 0; I < N; ++I) {
      int Entries = describeFatbin((const unsigned char *)Prelinked[I], ", ",
                                   Buf, sizeof Buf);
      logLine("fatbin #%d prelinked: %d entries: %s", H->Number, Entries, Buf);
    }
  } else {
    logLine("register fatbin #%d wrapper magic=%#x version=%d", H->Number,
            (unsigned)W->Magic, W->Version);
  }
  // One line per entry of the fat binary itself.
  int Entries = describeFatbin(W->Data, "\n", Buf, sizeof Buf);
  char *Line = Buf;
  if (Entries < 0) {
    logLine("fatbin #%d unreadable: %s", H->Number, Buf);
  } else {
    for (int I = 0; I < Entries; ++I) {
      char *Next = strchr(Line, '\n');
      if (Next)
        *Next = 0;
      logLine("fatbin #%d entry %s", H->Number, Line);
      Line = Next ? Next + 1 : Line + strlen(Line);
    }
  }
  return (void **)H;
}

CUDART_EXPORT void __cudaRegisterFatBinaryEnd(void **Handle) {
  logLine("register end #%d", handleNumber(Handle));
}

CUDART_EXPORT void __cudaUnregisterFatBinary(void **Handle) {
  logLine("unregister #%d", handleNumber(Handle));
}

CUDART_EXPORT void __cudaRegisterFunction(void **Handle, const char *HostFun,
                                          char *DeviceFun,
                                          const char *DeviceName,
                                          int ThreadLimit, void *Tid,
                                          void *Bid, void *BlockDim,
                                          void *GridDim, int *WarpSize) {
  logLine("function #%d %s", handleNumber(Handle), DeviceName);
  if (NumFunctions < MaxFunctions) {
    Functions[NumFunctions].HostFun = HostFun;
    Functions[NumFunctions].Name = DeviceName;
    ++NumFunctions;
  }
}

CUDART_EXPORT void __cudaRegisterVar(void **Handle, char *HostVar,
                                     char *DeviceAddress,
                                     const char *DeviceName, int Ext,
                                     size_t Size, int Constant, int Global) {
  logLine("var #%d %s size=%zu constant=%d ext=%d", handleNumber(Handle),
          DeviceName, Size, Constant, Ext);
}

CUDART_EXPORT void __cudaRegisterManagedVar(void **Handle,
                                            void **HostVarPtrAddress,
                                            char *DeviceAddress,
                                            const char *DeviceName, int Ext,
                                            size_t Size, int Constant,
                                            int Global) {
  logLine("managed var #%d %s size=%zu", handleNumber(Handle), DeviceName,
          Size);
  if (NumManaged < MaxManaged) {
    ManagedVars[NumManaged].Handle = Handle;
    ManagedVars[NumManaged].HostPtr = HostVarPtrAddress;
    ManagedVars[NumManaged].Size = Size;
    ++NumManaged;
  }
}

CUDART_EXPORT void __cudaRegisterSurface(void **Handle, const void *HostVar,
                                         const void **DeviceAddress,
                                         const char *DeviceName, int Dim,
                                         int Ext) {
  logLine("surface #%d %s dim=%d ext=%d", handleNumber(Handle), DeviceName,
          Dim, Ext);
}

CUDART_EXPORT void __cudaRegisterTexture(void **Handle, const void *HostVar,
                                         const void **DeviceAddress,
                                         const char *DeviceName, int Dim,
                                         int Norm, int Ext) {
  logLine("texture #%d %s dim=%d norm=%d ext=%d", handleNumber(Handle),
          DeviceName, Dim, Norm, Ext);
}

// What host code calls before it first touches a __managed__ variable: the
// runtime then gives the variables of the module their memory (here, zeroed
// host memory) through the pointers registered.
CUDART_EXPORT char __cudaInitModule(void **Handle) {
  logLine("init module #%d", handleNumber(Handle));
  for (int I = 0; I < NumManaged; ++I)
    if (ManagedVars[I].Handle == Handle && !*ManagedVars[I].HostPtr)
      *ManagedVars[I].HostPtr = calloc(1, ManagedVars[I].Size ? ManagedVars[I].Size : 1);
  return 1;
}

// ---------------------------------------------------------------------------
// Launches.

struct Dim3 {
  unsigned X, Y, Z;
};

static struct Dim3 PushedGrid, PushedBlock;
static size_t PushedShared;
static void *PushedStream;

CUDART_EXPORT unsigned __cudaPushCallConfiguration(struct Dim3 Grid,
                                                   struct Dim3 Block,
                                                   size_t SharedMem,
                                                   void *Stream) {
  logLine("push call configuration grid=%u,%u,%u block=%u,%u,%u shared=%zu",
          Grid.X, Grid.Y, Grid.Z, Block.X, Block.Y, Block.Z, SharedMem);
  PushedGrid = Grid;
  PushedBlock = Block;
  PushedShared = SharedMem;
  PushedStream = Stream;
  return 0;
}

CUDART_EXPORT int __cudaPopCallConfiguration(struct Dim3 *Grid,
                                             struct Dim3 *Block,
                                             size_t *SharedMem,
                                             void *Stream) {
  logLine("pop call configuration");
  *Grid = PushedGrid;
  *Block = PushedBlock;
  *SharedMem = PushedShared;
  *(void **)Stream = PushedStream;
  return 0;
}

// A kernel handle is the host stub's address: the name comes from the
// functions registered.
CUDART_EXPORT int __cudaGetKernel(void **Kernel, const void *HostFun) {
  logLine("get kernel %s", kernelName(HostFun));
  *Kernel = (void *)HostFun;
  return 0;
}

CUDART_EXPORT int __cudaLaunchKernel(void *Kernel, struct Dim3 Grid,
                                     struct Dim3 Block, void **Args,
                                     size_t SharedMem, void *Stream) {
  logLine("launch kernel %s grid=%u,%u,%u block=%u,%u,%u",
          kernelName(Kernel), Grid.X, Grid.Y, Grid.Z, Block.X, Block.Y,
          Block.Z);
  return 0;
}

CUDART_EXPORT int __cudaLaunchKernel_ptsz(void *Kernel, struct Dim3 Grid,
                                          struct Dim3 Block, void **Args,
                                          size_t SharedMem, void *Stream) {
  return __cudaLaunchKernel(Kernel, Grid, Block, Args, SharedMem, Stream);
}

// What clang's host stubs call.
CUDART_EXPORT int cudaLaunchKernel(const void *HostFun, struct Dim3 Grid,
                                   struct Dim3 Block, void **Args,
                                   size_t SharedMem, void *Stream) {
  logLine("launch kernel %s grid=%u,%u,%u block=%u,%u,%u",
          kernelName(HostFun), Grid.X, Grid.Y, Grid.Z, Block.X, Block.Y,
          Block.Z);
  return 0;
}

// ---------------------------------------------------------------------------
// Runtime API calls the test programs make.

CUDART_EXPORT int cudaDeviceSynchronize(void) {
  logLine("cudaDeviceSynchronize");
  return 0;
}
CUDART_EXPORT int cudaGetLastError(void) { return 0; }
CUDART_EXPORT int cudaPeekAtLastError(void) { return 0; }
CUDART_EXPORT const char *cudaGetErrorString(int Error) {
  return Error ? "stand-in error" : "no error";
}
CUDART_EXPORT const char *cudaGetErrorName(int Error) {
  return Error ? "cudaErrorUnknown" : "cudaSuccess";
}
CUDART_EXPORT int cudaMalloc(void **Ptr, size_t Size) {
  logLine("cudaMalloc %zu", Size);
  *Ptr = calloc(1, Size ? Size : 1);
  return 0;
}
CUDART_EXPORT int cudaMallocManaged(void **Ptr, size_t Size, unsigned Flags) {
  logLine("cudaMallocManaged %zu", Size);
  *Ptr = calloc(1, Size ? Size : 1);
  return 0;
}
CUDART_EXPORT int cudaFree(void *Ptr) {
  logLine("cudaFree");
  free(Ptr);
  return 0;
}
CUDART_EXPORT int cudaMemcpy(void *Dst, const void *Src, size_t Size,
                             int Kind) {
  logLine("cudaMemcpy %zu kind=%d", Size, Kind);
  memmove(Dst, Src, Size);
  return 0;
}
CUDART_EXPORT int cudaMemcpyToSymbol(const void *Symbol, const void *Src,
                                     size_t Count, size_t Offset, int Kind) {
  logLine("cudaMemcpyToSymbol %zu", Count);
  return 0;
}
CUDART_EXPORT int cudaMemcpyFromSymbol(void *Dst, const void *Symbol,
                                       size_t Count, size_t Offset, int Kind) {
  logLine("cudaMemcpyFromSymbol %zu", Count);
  memset(Dst, 0, Count);
  return 0;
}

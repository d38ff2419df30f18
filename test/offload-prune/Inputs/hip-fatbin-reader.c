// Stands in for the HIP runtime's __hipRegisterFatBinary: parses the fat
// binary the wrapper points at as the runtime does, and prints what it
// finds. A binary bundle: the magic "__CLANG_OFFLOAD_BUNDLE__", the number
// of entries, each entry's offset, size and ID; the runtime takes the
// bundle's size from its last entry (offset + size). A compressed bundle
// (CCOB v2/v3): its header (version, method, total and uncompressed size),
// then the bundle it inflates to (zstd), parsed the same way.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct FatbinWrapper {
  int Magic, Version;
  const char *Data;
  const void *Unused;
};

static uint64_t read64(const char *P) {
  uint64_t V;
  memcpy(&V, P, 8);
  return V;
}

static void printBundle(const char *B) {
  if (memcmp(B, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) {
    printf("  not a bundle\n");
    return;
  }
  uint64_t N = read64(B + 24);
  const char *P = B + 32;
  uint64_t LastEnd = 0;
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t Offset = read64(P), Size = read64(P + 8), Len = read64(P + 16);
    printf("  entry %.*s size=%llu%s\n", (int)Len, P + 24,
           (unsigned long long)Size,
           Size >= 4 && memcmp(B + Offset, "\177ELF", 4) == 0 ? " elf" : "");
    LastEnd = Offset + Size;
    P += 24 + Len;
  }
  printf("  entries=%llu size-from-last-entry=%llu\n", (unsigned long long)N,
         (unsigned long long)LastEnd);
}

void *__hipRegisterFatBinary(struct FatbinWrapper *W) {
  const char *D = W->Data;
  printf("fatbin magic=%#x version=%d\n", (unsigned)W->Magic, W->Version);
  if (memcmp(D, "CCOB", 4) == 0) {
    uint16_t Version, Method;
    memcpy(&Version, D + 4, 2);
    memcpy(&Method, D + 6, 2);
    uint64_t Total, Size, HeaderSize = Version == 3 ? 32 : 24;
    if (Version == 3) {
      Total = read64(D + 8);
      Size = read64(D + 16);
    } else {
      uint32_t T, S;
      memcpy(&T, D + 8, 4);
      memcpy(&S, D + 12, 4);
      Total = T;
      Size = S;
    }
    printf("  CCOB version=%u method=%u total=%llu uncompressed=%llu\n",
           Version, Method, (unsigned long long)Total,
           (unsigned long long)Size);
    char *Out = malloc(Size);
    size_t Got = ZSTD_decompress(Out, Size, D + HeaderSize, Total - HeaderSize);
    if (ZSTD_isError(Got) || Got != Size) {
      printf("  cannot inflate\n");
      return W;
    }
    printBundle(Out);
    free(Out);
    return W;
  }
  printBundle(D);
  return W;
}
void __hipUnregisterFatBinary(void *Handle) {}
int __hipRegisterFunction(void *Handle, const void *HostFun, char *DevFun,
                          const char *DevName) {
  return 0;
}
void __hipRegisterVar(void *Handle, char *Var, char *DevAddr,
                      const char *DevName, int Ext, unsigned long Size,
                      int Constant, int Global) {}
void __hipRegisterManagedVar(void) {}
void __hipRegisterSurface(void) {}
void __hipRegisterTexture(void) {}
int __hipPopCallConfiguration(void) { return 0; }
int hipLaunchKernel(void) { return 0; }

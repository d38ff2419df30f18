//===- fuzz/fuzz-cuda-fatbin.cpp - CUDA fat binary reader fuzzer ----------===//
//
// Reads arbitrary bytes as a CUDA fat binary, as offload-inspect does, and
// inflates every compressed entry (zstd, LZ4).
//
//===----------------------------------------------------------------------===//

#include "format/InspectCudaFatbin.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Buffer(reinterpret_cast<const char *>(Data), Size);
  if (!offload::isCudaFatbin(Buffer))
    return 0;
  Expected<offload::CudaFatbin> Fatbin =
      offload::readCudaFatbin(Buffer, "fuzz");
  if (!Fatbin) {
    consumeError(Fatbin.takeError());
    return 0;
  }
  for (const offload::CudaFatbinEntry &Entry : Fatbin->Entries) {
    if (!Entry.isCompressed())
      continue;
    Expected<SmallVector<uint8_t, 0>> Out =
        offload::decompressCudaFatbinEntry(Entry, "fuzz");
    if (!Out) {
      consumeError(Out.takeError());
      continue;
    }
    // The header's size is the one promise a caller relies on.
    if (Out->size() != Entry.UncompressedSize)
      __builtin_trap();
  }
  return 0;
}

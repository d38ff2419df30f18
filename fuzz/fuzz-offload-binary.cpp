//===- fuzz/fuzz-offload-binary.cpp - OffloadBinary reader fuzzer ---------===//
//
// Reads arbitrary bytes as back-to-back OffloadBinaries (v1 to v3, compressed
// v3 too) and touches every view the reader hands out.
//
//===----------------------------------------------------------------------===//

#include "format/OffloadBinary.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Buffer(reinterpret_cast<const char *>(Data), Size);
  offload::ByteStore Store;
  Expected<std::vector<offload::OffloadBinary>> Binaries =
      offload::readOffloadBinaries(Buffer, Store, "fuzz");
  if (!Binaries) {
    consumeError(Binaries.takeError());
    return 0;
  }
  // Views must lie in memory we may read: sum a byte of each.
  volatile unsigned Sum = 0;
  for (const offload::OffloadBinary &B : *Binaries)
    for (const offload::OffloadImage &I : B.Images) {
      for (const auto &[K, V] : I.Strings)
        Sum += (K.empty() ? 0 : K.back()) + (V.empty() ? 0 : V.back());
      if (!I.Image.empty())
        Sum += I.Image.front() + I.Image.back();
      Sum += I.getTriple().size() + I.getArch().size();
    }
  return 0;
}

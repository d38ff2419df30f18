//===- fuzz/fuzz-ccob.cpp - Compressed bundle (CCOB) fuzzer ---------------===//
//
// Splits arbitrary bytes into compressed bundles and inflates each, with and
// without hash verification.
//
//===----------------------------------------------------------------------===//

#include "format/CompressedBundle.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Buffer(reinterpret_cast<const char *>(Data), Size);
  Expected<std::vector<StringRef>> Bundles =
      offload::splitCompressedBundles(Buffer, "fuzz");
  if (!Bundles) {
    consumeError(Bundles.takeError());
    return 0;
  }
  for (StringRef Bundle : *Bundles) {
    for (bool Verify : {true, false}) {
      offload::CompressedBundleHeader Header;
      Expected<SmallVector<char, 0>> Inflated =
          offload::decompressBundle(Bundle, "fuzz", Verify, &Header);
      if (!Inflated) {
        consumeError(Inflated.takeError());
        continue;
      }
      if (Inflated->size() != Header.UncompressedSize)
        __builtin_trap();
    }
  }
  return 0;
}

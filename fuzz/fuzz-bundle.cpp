//===- fuzz/fuzz-bundle.cpp - Binary and text bundle reader fuzzer --------===//
//
// The first byte picks the reader: binary bundles, or text bundles with one
// of the three comment strings; the rest is the file.
//
//===----------------------------------------------------------------------===//

#include "format/OffloadBundle.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

static void touch(const std::vector<offload::BundleEntry> &Entries) {
  volatile unsigned Sum = 0;
  for (const offload::BundleEntry &E : Entries) {
    Sum += E.ID.size();
    if (!E.ID.empty())
      Sum += E.ID.front() + E.ID.back();
    if (!E.Data.empty())
      Sum += E.Data.front() + E.Data.back();
  }
  for (const offload::BundleEntry &E : offload::inBundlerOrder(Entries))
    Sum += E.Data.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  uint8_t Selector = Data[0];
  StringRef Buffer(reinterpret_cast<const char *>(Data + 1), Size - 1);
  static const char *const Comments[] = {"//", "#", ";"};
  Expected<std::vector<offload::BundleEntry>> Entries =
      Selector % 4 == 0
          ? offload::readBinaryBundle(Buffer, "fuzz")
          : offload::readTextBundle(Buffer, Comments[Selector % 4 - 1], "fuzz");
  if (!Entries) {
    consumeError(Entries.takeError());
    return 0;
  }
  touch(*Entries);
  return 0;
}

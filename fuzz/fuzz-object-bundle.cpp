//===- fuzz/fuzz-object-bundle.cpp - Object bundle reader fuzzer ----------===//
//
// Reads arbitrary bytes as an object bundle (clang-offload-bundler -type=o)
// and, when that succeeds, strips the bundle sections as -unbundle does for
// the host entry.
//
//===----------------------------------------------------------------------===//

#include "format/ObjectBundle.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  MemoryBufferRef Object(StringRef(reinterpret_cast<const char *>(Data), Size),
                         "fuzz.o");
  Expected<bool> Has = offload::hasBundleSections(Object);
  if (!Has) {
    consumeError(Has.takeError());
    return 0;
  }
  Expected<std::vector<offload::BundleEntry>> Entries =
      offload::readObjectBundle(Object);
  if (!Entries) {
    consumeError(Entries.takeError());
    return 0;
  }
  volatile unsigned Sum = 0;
  for (const offload::BundleEntry &E : *Entries)
    if (!E.Data.empty())
      Sum += E.Data.front() + E.Data.back();
  Expected<SmallVector<char, 0>> Host = offload::getHostObject(Object);
  if (!Host)
    consumeError(Host.takeError());
  return 0;
}

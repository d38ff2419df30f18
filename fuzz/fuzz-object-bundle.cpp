//===- fuzz/fuzz-object-bundle.cpp - Object bundle reader fuzzer ----------===//
//
// Reads arbitrary bytes as an object bundle (clang-offload-bundler -type=o)
// and, when that succeeds, strips the bundle sections as -unbundle does for
// the host entry.
//
//===----------------------------------------------------------------------===//

#include "format/ObjectBundle.h"

#include "llvm/Object/COFF.h"
#include "llvm/Object/ELFObjectFile.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

// objcopy pads the host object to its sections' alignments (ELF) and sizes
// it by their SizeOfRawData (COFF, even for uninitialized data): up to 4 GiB
// each is valid input (the library refuses more alignment, as LLD does) but
// would stop the run at libFuzzer's memory limit, a resource limit rather
// than a bug (docs/fuzzing.md, finding 4). Such inputs skip getHostObject.
static bool hasHugeAlignment(MemoryBufferRef Object) {
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(Object);
  if (!Obj) {
    consumeError(Obj.takeError());
    return false;
  }
  // COFF: objcopy sizes its output by every section's SizeOfRawData, which
  // for uninitialized data has no bytes in the file.
  if (const auto *COFF = dyn_cast<object::COFFObjectFile>(Obj->get())) {
    for (const object::SectionRef &Sec : COFF->sections())
      if (COFF->getCOFFSection(Sec)->SizeOfRawData > (16u << 20))
        return true;
    return false;
  }
  const auto *ELF = dyn_cast<object::ELF64LEObjectFile>(Obj->get());
  if (!ELF)
    return false;
  for (const object::SectionRef &Sec : ELF->sections())
    if (ELF->getSection(Sec.getRawDataRefImpl())->sh_addralign > (16u << 20))
      return true;
  return false;
}

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
  if (hasHugeAlignment(Object))
    return 0;
  Expected<SmallVector<char, 0>> Host = offload::getHostObject(Object);
  if (!Host)
    consumeError(Host.takeError());
  return 0;
}

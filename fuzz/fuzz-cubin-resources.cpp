//===- fuzz/fuzz-cubin-resources.cpp - Cubin kernel resources fuzzer ------===//
//
// Reads arbitrary bytes as a cubin, as offload-inspect --resources does: the
// SM from the ELF header, then every kernel's resources from .nv.info and
// the kernels' sections.
//
//===----------------------------------------------------------------------===//

#include "format/CubinResources.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Buffer(reinterpret_cast<const char *>(Data), Size);
  if (!offload::isCubin(Buffer))
    return 0;
  MemoryBufferRef Ref(Buffer, "fuzz");
  Expected<std::string> Arch = offload::readCubinArch(Ref);
  Expected<std::vector<offload::CubinKernelResources>> Kernels =
      offload::readCubinResources(Ref);
  if (!Arch) {
    consumeError(Arch.takeError());
    // The resources need the SM too.
    if (Kernels)
      __builtin_trap();
    consumeError(Kernels.takeError());
    return 0;
  }
  if (!Kernels) {
    consumeError(Kernels.takeError());
    return 0;
  }
  // Every kernel carries the cubin's SM.
  for (const offload::CubinKernelResources &K : *Kernels)
    if (K.Arch != *Arch)
      __builtin_trap();
  return 0;
}

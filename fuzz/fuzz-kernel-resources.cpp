//===- fuzz/fuzz-kernel-resources.cpp - GPU code objects' kernels ---------===//
//
// Reads arbitrary bytes as a GPU code object, as offload-inspect --resources
// and ld.lld-offload --offload-resource-usage do: the AMDGPU metadata note
// (msgpack), the kernel descriptors, the occupancy from them, and the table
// and JSON made of the rows. Seeds are code objects clang-22 makes of
// test/Inputs/kernel-resources.hip for gfx90a and gfx1100.
//
//===----------------------------------------------------------------------===//

#include "format/KernelResourceTable.h"
#include "format/KernelResources.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  Expected<std::vector<offload::KernelResources>> Rows =
      offload::readKernelResources(Bytes, "fuzz");
  if (!Rows) {
    std::string Message = toString(Rows.takeError());
    // Every error names the code object and an offset in it.
    if (!StringRef(Message).starts_with("fuzz: offset 0x"))
      __builtin_trap();
    return 0;
  }
  for (const offload::KernelResources &Row : *Rows)
    // No processor runs more than 20 wavefronts per SIMD, nor fewer than 1.
    if (Row.WavesPerSIMD && (*Row.WavesPerSIMD < 1 || *Row.WavesPerSIMD > 20))
      __builtin_trap();
  std::string Out;
  raw_string_ostream OS(Out);
  offload::printKernelResourceTable(OS, *Rows, /*Demangle=*/true);
  json::OStream J(OS);
  J.array([&] {
    for (const offload::KernelResources &Row : *Rows)
      offload::writeKernelResourcesJSON(J, Row, /*Demangle=*/true);
  });
  return 0;
}

//===- format/KernelResources.cpp - What a GPU kernel uses ----------------===//

#include "format/KernelResources.h"
#include "format/ELFMachine.h"

#include "format/AMDGPUResources.h"
#include "format/CubinResources.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/Endian.h"

using namespace llvm;

namespace offload {

/// A cubin's kernels, as rows: what ptxas -v reports for each.
static Expected<std::vector<KernelResources>>
readCubinKernelResources(StringRef Data, StringRef Location) {
  MemoryBufferRef Cubin(Data, Location);
  Expected<std::vector<CubinKernelResources>> Kernels =
      readCubinResources(Cubin);
  if (!Kernels)
    return Kernels.takeError();
  std::vector<KernelResources> Rows;
  for (const CubinKernelResources &K : *Kernels) {
    KernelResources &Row = Rows.emplace_back();
    Row.Container = Location.str();
    Row.Triple = "nvptx64-nvidia-cuda";
    Row.Arch = K.Arch;
    Row.Name = K.Name;
    Row.Registers = K.Registers;
    Row.LDSBytes = K.SharedBytes;
    Row.ScratchBytes = K.LocalBytes;
    Row.ConstantBytes = K.ConstantBytes;
    Row.WavefrontSize = 32;
    Row.MaxWorkgroupSize = K.MaxThreadsPerBlock;
  }
  return Rows;
}

Expected<std::vector<KernelResources>> readKernelResources(StringRef Data,
                                                           StringRef Location) {
  switch (identify_magic(Data)) {
  case file_magic::elf_relocatable:
  case file_magic::elf_executable:
  case file_magic::elf_shared_object:
    break;
  default:
    return std::vector<KernelResources>();
  }
  // A code object's vendor picks its reader.
  switch (readELFMachine(Data).value_or(ELF::EM_NONE)) {
  case ELF::EM_AMDGPU:
    return readAMDGPUKernelResources(Data, Location);
  case ELF::EM_CUDA:
    return readCubinKernelResources(Data, Location);
  default:
    return std::vector<KernelResources>();
  }
}

} // namespace offload

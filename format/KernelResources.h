//===- format/KernelResources.h - What a GPU kernel uses --------*- C++ -*-===//
//
// The resources of the kernels of a linked GPU code object, one row per
// kernel, whatever the vendor: registers, spills, work-group (LDS, shared)
// memory, scratch memory, stack, wavefront size, the largest work-group and
// the occupancy these allow. What a vendor's code object does not say is
// left empty. readKernelResources() reads one code object, choosing the
// reader by its ELF machine; rendering the rows as a table or as JSON is in
// KernelResourceTable.h.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_KERNELRESOURCES_H
#define LLD_OFFLOAD_FORMAT_KERNELRESOURCES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace offload {

/// One kernel of one code object.
struct KernelResources {
  /// Where the code object is, for people: a path as offload-inspect names
  /// it, or the device link that made it.
  std::string Container;
  /// The code object's triple ("amdgcn-amd-amdhsa") and its processor, with
  /// the target-ID features the code object fixes ("gfx90a:xnack-").
  std::string Triple;
  std::string Arch;
  /// The kernel's name as the code object stores it (mangled).
  std::string Name;

  /// AMDGPU: scalar registers per wavefront; vector registers per lane as
  /// they count for occupancy (on gfx908 the larger of the VGPRs and AGPRs,
  /// on gfx90a, gfx942 and gfx950, whose register file is unified, the VGPRs
  /// rounded up to 4 plus the AGPRs); accumulation registers (AGPRs) alone.
  std::optional<uint32_t> SGPRs, VGPRs, AGPRs;
  /// AMDGPU: how many scalar and vector registers were spilled to memory.
  std::optional<uint32_t> SGPRSpills, VGPRSpills;
  /// CUDA: registers per thread ("Used N registers" in ptxas -v).
  std::optional<uint32_t> Registers;
  /// Work-group memory (LDS, CUDA shared memory) the kernel allocates
  /// statically, in bytes per work-group.
  std::optional<uint64_t> LDSBytes;
  /// Scratch memory (private, CUDA local) in bytes per work-item, not
  /// counting a dynamic stack. (CUDA: the kernel's stack frame, where spills
  /// go.)
  std::optional<uint64_t> ScratchBytes;
  /// CUDA: the kernel's constant bank 0 (parameters and constants), bytes.
  std::optional<uint64_t> ConstantBytes;
  /// The stack's size is not known at compile time (recursion, dynamic
  /// alloca, indirect calls): ScratchBytes is the least the kernel takes.
  std::optional<bool> DynamicStack;
  /// Work-items per wavefront (warp).
  std::optional<uint32_t> WavefrontSize;
  /// The largest work-group the kernel may be launched with.
  std::optional<uint32_t> MaxWorkgroupSize;
  /// AMDGPU: the most wavefronts per SIMD the kernel's registers and LDS
  /// allow on its processor, as the compiler computes it.
  std::optional<uint32_t> WavesPerSIMD;
};

/// The kernels of the code object \p Data, in the order its metadata lists
/// them, with \p Location (the code object's place, for people) as their
/// Container and in every error, which also names the offset in \p Data and
/// what is wrong. Data that is not a GPU code object (another ELF machine,
/// not ELF at all) has no kernels.
llvm::Expected<std::vector<KernelResources>>
readKernelResources(llvm::StringRef Data, llvm::StringRef Location);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_KERNELRESOURCES_H

//===- format/AMDGPUOccupancy.h - Waves per SIMD of a kernel ----*- C++ -*-===//
//-*-//
//
// How many wavefronts of a kernel an AMDGPU processor keeps on one SIMD at
// once, given the registers and LDS the kernel uses: the "Occupancy
// [waves/SIMD]" that clang prints under -Rpass-analysis=kernel-resource-usage
// and that AMDGPUBaseInfo computes. LLVM exports the processors' names and
// ISA versions (llvm/TargetParser/TargetParser.h) but not their register
// file and LDS sizes, so those are a small table here, from AMDGPUUsage and
// checked against clang 22's remarks for each kind of processor
// (test/offload-inspect/resources-occupancy.test).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_AMDGPUOCCUPANCY_H
#define LLD_OFFLOAD_FORMAT_AMDGPUOCCUPANCY_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace offload {

/// What decides a kernel's occupancy, as its code object says it.
struct AMDGPUKernelUsage {
  unsigned WavefrontSize = 64;
  /// GFX10 and later: the kernel runs in WGP mode (its work-groups may span
  /// the two CUs of a work-group processor), not CU mode.
  bool WGPMode = false;
  unsigned SGPRs = 0;
  /// Vector registers as they count for occupancy (.vgpr_count: AGPRs
  /// included where the register file is unified).
  unsigned VGPRs = 0;
  uint64_t LDSBytes = 0;
  unsigned MaxWorkgroupSize = 1024;
};

/// The most wavefronts per SIMD that \p Usage allows on \p Processor ("gfx90a",
/// "gfx11-generic"); none for a processor LLVM 22 does not know.
std::optional<unsigned> getAMDGPUWavesPerSIMD(llvm::StringRef Processor,
                                              const AMDGPUKernelUsage &Usage);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_AMDGPUOCCUPANCY_H

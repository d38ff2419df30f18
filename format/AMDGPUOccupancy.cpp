//===- format/AMDGPUOccupancy.cpp - Waves per SIMD of a kernel ------------===//

#include "format/AMDGPUOccupancy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/TargetParser.h"

#include <algorithm>

using namespace llvm;

namespace offload {

namespace {

/// What a processor has per compute unit and per SIMD, for one wavefront
/// size and mode.
struct ProcessorLimits {
  unsigned MaxWavesPerSIMD;
  unsigned SIMDsPerCU;
  /// Vector registers per lane of one SIMD, and the block they are
  /// allocated in, for this wavefront size.
  unsigned VGPRFile;
  unsigned VGPRGranule;
  /// LDS the work-groups on one CU (one WGP in WGP mode) share.
  uint64_t LDSPerCU;
  /// Work-groups of more than one wavefront each take one of these.
  unsigned BarriersPerCU;
  /// GFX6-GFX9 share a SIMD's SGPRs between its wavefronts.
  unsigned SGPRGeneration;
};

} // namespace

/// gfx90a and its successors: one file of 512 registers per lane holds both
/// the VGPRs and the AGPRs, allocated in blocks of 8, and a SIMD runs at
/// most 8 wavefronts (AMDGPUUsage, "Register file" of the CDNA2/CDNA3 ISA).
static bool hasUnifiedRegisterFile(AMDGPU::GPUKind Kind) {
  return is_contained({AMDGPU::GK_GFX90A, AMDGPU::GK_GFX942, AMDGPU::GK_GFX950,
                       AMDGPU::GK_GFX9_4_GENERIC},
                      Kind);
}

/// The RDNA3 and RDNA4 processors with half as many VGPRs again (1536 per
/// lane in wave32; the "1.5x VGPRs" processors of AMDGPUUsage): gfx1102,
/// gfx1103 and the gfx115x APUs have the usual 1024.
static bool hasLargeVGPRFile(AMDGPU::GPUKind Kind) {
  return is_contained({AMDGPU::GK_GFX1100, AMDGPU::GK_GFX1101,
                       AMDGPU::GK_GFX1151, AMDGPU::GK_GFX1200,
                       AMDGPU::GK_GFX1201, AMDGPU::GK_GFX12_GENERIC},
                      Kind);
}

/// LDS per compute unit: 32 KiB on GFX6, 160 KiB on gfx950, 320 KiB on
/// gfx1250 and gfx1251 (per WGP), 64 KiB elsewhere, twice that for a WGP's
/// two CUs in WGP mode (AMDGPUUsage, "LDS" and "Memory Spaces").
static uint64_t getLDSPerCU(AMDGPU::GPUKind Kind, const AMDGPU::IsaVersion &ISA,
                            bool WGPMode) {
  if (ISA.Major < 7)
    return 32 << 10;
  if (Kind == AMDGPU::GK_GFX950)
    return 160 << 10;
  if (Kind == AMDGPU::GK_GFX1250 || Kind == AMDGPU::GK_GFX1251)
    return 320 << 10;
  return WGPMode ? 128 << 10 : 64 << 10;
}

static std::optional<ProcessorLimits>
getLimits(StringRef Processor, unsigned WavefrontSize, bool WGPMode) {
  AMDGPU::GPUKind Kind = AMDGPU::parseArchAMDGCN(Processor);
  if (Kind == AMDGPU::GK_NONE)
    return std::nullopt;
  AMDGPU::IsaVersion ISA = AMDGPU::getIsaVersion(Processor);
  // GFX10 to GFX12 pair their CUs into work-group processors: in CU mode a
  // work-group stays on one CU of a WGP, with its two SIMDs; in WGP mode it
  // may use the four SIMDs, the barriers and the LDS of both. gfx1250 has
  // no WGPs, and four SIMDs per CU as GFX9 has.
  bool HasWGPs = AMDGPU::getArchAttrAMDGCN(Kind) & AMDGPU::FEATURE_WGP;
  WGPMode = WGPMode && HasWGPs;
  bool Wave32 = WavefrontSize == 32;
  ProcessorLimits L;
  L.SGPRGeneration = ISA.Major;
  L.SIMDsPerCU = HasWGPs && !WGPMode ? 2 : 4;
  L.BarriersPerCU = WGPMode ? 32 : 16;
  L.LDSPerCU = getLDSPerCU(Kind, ISA, WGPMode);
  if (hasUnifiedRegisterFile(Kind)) {
    L.MaxWavesPerSIMD = 8;
    L.VGPRFile = 512;
    L.VGPRGranule = 8;
  } else if (ISA.Major < 10) {
    L.MaxWavesPerSIMD = 10;
    L.VGPRFile = 256;
    L.VGPRGranule = 4;
  } else {
    // GFX10.1 has 20 wave slots per SIMD, later ones 16. Registers are
    // 32 lanes wide: a wave64 takes two of each, so it sees half the file.
    bool GFX101 = ISA.Major == 10 && ISA.Minor < 3;
    L.MaxWavesPerSIMD = GFX101 ? 20 : 16;
    if (hasLargeVGPRFile(Kind)) {
      L.VGPRFile = 1536;
      L.VGPRGranule = 24;
    } else {
      L.VGPRFile = 1024;
      L.VGPRGranule = GFX101 ? 8 : 16;
    }
    if (!Wave32) {
      L.VGPRFile /= 2;
      L.VGPRGranule /= 2;
    }
  }
  return L;
}

/// GFX6-GFX9 give each SIMD a fixed pool of SGPRs (512 on GFX6/GFX7, 800
/// from GFX8): the wave counts at which a kernel's SGPRs still fit, as
/// AMDGPUUsage's occupancy tables give them. Later processors give every
/// wavefront all the SGPRs it can address.
static unsigned getWavesWithSGPRs(unsigned Generation, unsigned SGPRs,
                                  unsigned MaxWaves) {
  if (Generation >= 10 || SGPRs == 0)
    return MaxWaves;
  unsigned Waves;
  if (Generation >= 8)
    Waves = SGPRs <= 80 ? 10 : SGPRs <= 88 ? 9 : SGPRs <= 100 ? 8 : 7;
  else
    Waves = SGPRs <= 48   ? 10
            : SGPRs <= 56 ? 9
            : SGPRs <= 64 ? 8
            : SGPRs <= 72 ? 7
            : SGPRs <= 80 ? 6
                          : 5;
  return std::min(Waves, MaxWaves);
}

static unsigned getWavesWithVGPRs(const ProcessorLimits &L, unsigned VGPRs) {
  if (VGPRs == 0)
    return L.MaxWavesPerSIMD;
  unsigned Allocated = alignTo(VGPRs, L.VGPRGranule);
  return std::clamp(L.VGPRFile / Allocated, 1u, L.MaxWavesPerSIMD);
}

/// Work-groups of \p WavesPerGroup wavefronts that fit a CU by its wave
/// slots and barriers: a one-wave work-group never waits at a barrier, so
/// takes none.
static unsigned getGroupsBySlots(const ProcessorLimits &L,
                                 unsigned WavesPerGroup) {
  unsigned Slots = L.MaxWavesPerSIMD * L.SIMDsPerCU;
  if (WavesPerGroup <= 1)
    return Slots;
  return std::min(Slots / WavesPerGroup, L.BarriersPerCU);
}

/// The occupancy LDS allows, the compiler's way: the most wavefronts per
/// SIMD any launch could reach, for work-groups between one work-item (no
/// HIP or OpenMP kernel names a larger minimum, and a code object does not
/// record it) and \p MaxGroupSize, assuming the waves spread evenly over
/// the CU's SIMDs.
static unsigned getWavesWithLDS(const ProcessorLimits &L, unsigned WaveSize,
                                uint64_t LDSBytes, unsigned MaxGroupSize) {
  uint64_t GroupsByLDS = L.LDSPerCU / std::max<uint64_t>(LDSBytes, 1);
  // More LDS than a CU has: the compiler counts that as one wave.
  if (GroupsByLDS == 0)
    return 1;
  unsigned Slots = L.MaxWavesPerSIMD * L.SIMDsPerCU;
  // One-wave work-groups: as many as LDS and the slots allow.
  unsigned SmallGroups =
      std::min<uint64_t>(getGroupsBySlots(L, 1), GroupsByLDS);
  // The largest work-groups.
  unsigned BigWavesPerGroup = divideCeil(std::max(MaxGroupSize, 1u), WaveSize);
  unsigned BigGroups =
      std::min<uint64_t>(getGroupsBySlots(L, BigWavesPerGroup), GroupsByLDS);
  unsigned Waves = BigGroups * BigWavesPerGroup;
  // Fewer waves than the small work-groups give: those work-groups grown
  // into the slots left over, as far as the largest work-group allows.
  if (Waves < SmallGroups) {
    unsigned Growth =
        std::min((Slots - SmallGroups) / SmallGroups, BigWavesPerGroup - 1);
    Waves = SmallGroups * (1 + Growth);
  }
  return std::clamp<unsigned>(divideCeil(Waves, L.SIMDsPerCU), 1,
                              L.MaxWavesPerSIMD);
}

std::optional<unsigned> getAMDGPUWavesPerSIMD(StringRef Processor,
                                              const AMDGPUKernelUsage &Usage) {
  if (Usage.WavefrontSize != 32 && Usage.WavefrontSize != 64)
    return std::nullopt;
  std::optional<ProcessorLimits> L =
      getLimits(Processor, Usage.WavefrontSize, Usage.WGPMode);
  if (!L)
    return std::nullopt;
  return std::min(
      {getWavesWithLDS(*L, Usage.WavefrontSize, Usage.LDSBytes,
                       Usage.MaxWorkgroupSize),
       getWavesWithSGPRs(L->SGPRGeneration, Usage.SGPRs, L->MaxWavesPerSIMD),
       getWavesWithVGPRs(*L, Usage.VGPRs)});
}

} // namespace offload

//===- format/TargetSelection.cpp - Which images a request keeps ----------===//

#include "format/TargetSelection.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/TargetParser/TargetParser.h"

#include <optional>

using namespace llvm;

namespace offload {

namespace {
/// A generic target and the processors it serves.
struct GenericTarget {
  StringLiteral Name;
  ArrayRef<StringLiteral> Members;
};
} // namespace

// The generic processor versions of LLVM's AMDGPUUsage ("Generic Processor
// Versions" table), the one place they are listed. gfx940 and gfx941, which
// LLVM 20 retired, are kept for images built before.
static constexpr StringLiteral GFX9[] = {"gfx900", "gfx902", "gfx904",
                                         "gfx906", "gfx909", "gfx90c"};
static constexpr StringLiteral GFX9_4[] = {"gfx940", "gfx941", "gfx942",
                                           "gfx950"};
static constexpr StringLiteral GFX10_1[] = {"gfx1010", "gfx1011", "gfx1012",
                                            "gfx1013"};
static constexpr StringLiteral GFX10_3[] = {"gfx1030", "gfx1031", "gfx1032",
                                            "gfx1033", "gfx1034", "gfx1035",
                                            "gfx1036"};
static constexpr StringLiteral GFX11[] = {"gfx1100", "gfx1101", "gfx1102",
                                          "gfx1103", "gfx1150", "gfx1151",
                                          "gfx1152", "gfx1153"};
static constexpr StringLiteral GFX12[] = {"gfx1200", "gfx1201"};
static const GenericTarget GenericTargets[] = {
    {"gfx9-generic", GFX9},       {"gfx9-4-generic", GFX9_4},
    {"gfx10-1-generic", GFX10_1}, {"gfx10-3-generic", GFX10_3},
    {"gfx11-generic", GFX11},     {"gfx12-generic", GFX12},
};

StringRef getAMDGPUGenericTarget(StringRef Processor) {
  for (const GenericTarget &G : GenericTargets)
    if (is_contained(G.Members, Processor))
      return G.Name;
  return "";
}

std::vector<StringRef> getAMDGPUGenericMembers(StringRef Generic) {
  for (const GenericTarget &G : GenericTargets)
    if (G.Name == Generic)
      return {G.Members.begin(), G.Members.end()};
  return {};
}

Expected<TargetRequest> TargetRequest::create(ArrayRef<std::string> Archs,
                                              ArrayRef<std::string> Triples,
                                              bool KeepNewestPTX) {
  TargetRequest Request;
  Request.KeepNewestPTX = KeepNewestPTX;
  for (const std::string &Text : Archs) {
    if (Text.empty())
      return createStringError("empty target ID in --offload-arch");
    Expected<TargetID> ID = TargetID::parse(Text);
    if (!ID)
      return ID.takeError();
    Request.Archs.push_back(std::move(*ID));
  }
  for (const std::string &Text : Triples) {
    Triple T(Text);
    if (Text.empty() || T.getArch() == Triple::UnknownArch)
      return createStringError("'" + Text +
                               "' in --offload-targets is not a target "
                               "triple LLVM knows");
    Request.Triples.push_back(std::move(T));
  }
  if (Request.Archs.empty() && Request.Triples.empty())
    return createStringError(
        "no target requested: give --offload-arch= or --offload-targets=");
  return std::move(Request);
}

std::string describeSelectReason(SelectReason Reason) {
  switch (Reason) {
  case SelectReason::NotRequested:
    return "not requested";
  case SelectReason::Requested:
    return "requested";
  case SelectReason::GenericForMember:
    return "generic";
  case SelectReason::NewestPTX:
    return "newest PTX";
  case SelectReason::RequestedTriple:
    return "triple";
  }
  llvm_unreachable("unknown reason");
}

size_t ImageSelection::numKept() const {
  return count_if(
      Reasons, [](SelectReason R) { return R != SelectReason::NotRequested; });
}

/// Whether the image triple \p Image is the requested \p Want: same
/// architecture and OS, and the same vendor and environment unless either
/// leaves them unknown (bundle entry IDs of AMDHSA have no environment).
static bool tripleMatches(const Triple &Image, const Triple &Want) {
  if (Image.getArch() != Want.getArch() || Image.getOS() != Want.getOS())
    return false;
  if (Image.getVendor() != Want.getVendor() &&
      Image.getVendor() != Triple::UnknownVendor &&
      Want.getVendor() != Triple::UnknownVendor)
    return false;
  return Image.getEnvironment() == Want.getEnvironment() ||
         Image.getEnvironment() == Triple::UnknownEnvironment ||
         Want.getEnvironment() == Triple::UnknownEnvironment;
}

/// Whether \p Processor names a processor of \p T's architecture, so that a
/// request naming it speaks for the images of that triple.
static bool isProcessorOf(StringRef Processor, const Triple &T) {
  if (T.isAMDGCN())
    return AMDGPU::parseArchAMDGCN(Processor) != AMDGPU::GK_NONE;
  if (T.isNVPTX())
    return Processor.starts_with("sm_");
  return false;
}

/// The compute capability of a CUDA arch (sm_90a: 90), if it is one.
static std::optional<unsigned> getCudaVersion(StringRef Arch) {
  if (!Arch.consume_front("sm_") && !Arch.consume_front("compute_"))
    return std::nullopt;
  if (Arch.ends_with("a") || Arch.ends_with("f"))
    Arch = Arch.drop_back();
  unsigned Version;
  if (Arch.getAsInteger(10, Version))
    return std::nullopt;
  return Version;
}

/// Whether an image of target ID \p Image serves the request \p Want, whose
/// processor is \p Processor (the image's own, or the generic one serving
/// it): a request without features takes every image of the processor, one
/// with features the images clang-offload-bundler finds compatible.
static bool serves(const TargetID &Image, const TargetID &Want,
                   StringRef Processor) {
  if (Image.Processor != Processor)
    return false;
  if (Want.Features.empty())
    return true;
  TargetID AsWant = Image;
  AsWant.Processor = Want.Processor;
  return isTargetIDCompatible(AsWant, Want);
}

ImageSelection selectImages(const TargetRequest &Request,
                            ArrayRef<SelectableImage> Images) {
  ImageSelection Result;
  Result.Reasons.assign(Images.size(), SelectReason::NotRequested);
  Result.ArchUsed.assign(Request.Archs.size(), false);

  // Target IDs that do not parse match no requested one.
  std::vector<std::optional<TargetID>> IDs;
  std::vector<bool> TripleOK;
  for (const SelectableImage &Image : Images) {
    std::optional<TargetID> ID;
    if (!Image.TargetIDText.empty()) {
      if (Expected<TargetID> Parsed = TargetID::parse(Image.TargetIDText))
        ID = std::move(*Parsed);
      else
        consumeError(Parsed.takeError());
    }
    IDs.push_back(std::move(ID));
    TripleOK.push_back(Request.Triples.empty() ||
                       any_of(Request.Triples, [&](const Triple &T) {
                         return tripleMatches(Image.TargetTriple, T);
                       }));
  }

  // Each requested target ID: its images, or else its generic ones.
  for (auto [ArchIndex, Want] : enumerate(Request.Archs)) {
    auto Mark = [&](StringRef Processor, SelectReason Reason) {
      bool Any = false;
      for (size_t I = 0; I < Images.size(); ++I)
        if (TripleOK[I] && IDs[I] && serves(*IDs[I], Want, Processor)) {
          if (Result.Reasons[I] == SelectReason::NotRequested)
            Result.Reasons[I] = Reason;
          Any = true;
        }
      return Any;
    };
    bool Used = Mark(Want.Processor, SelectReason::Requested);
    if (!Used) {
      StringRef Generic = getAMDGPUGenericTarget(Want.Processor);
      if (!Generic.empty())
        Used = Mark(Generic, SelectReason::GenericForMember);
    }
    Result.ArchUsed[ArchIndex] = Used;
  }

  // With triples: those that no requested target ID speaks for keep all
  // their images.
  if (!Request.Triples.empty())
    for (size_t I = 0; I < Images.size(); ++I)
      if (TripleOK[I] && Result.Reasons[I] == SelectReason::NotRequested &&
          none_of(Request.Archs, [&](const TargetID &Want) {
            return isProcessorOf(Want.Processor, Images[I].TargetTriple);
          }))
        Result.Reasons[I] = SelectReason::RequestedTriple;

  if (Request.KeepNewestPTX) {
    std::optional<size_t> Newest;
    unsigned NewestVersion = 0;
    for (size_t I = 0; I < Images.size(); ++I) {
      if (Images[I].Kind != ImageKind::PTX || !TripleOK[I] || !IDs[I])
        continue;
      std::optional<unsigned> Version = getCudaVersion(IDs[I]->Processor);
      if (Version && (!Newest || *Version > NewestVersion)) {
        Newest = I;
        NewestVersion = *Version;
      }
    }
    if (Newest && Result.Reasons[*Newest] == SelectReason::NotRequested)
      Result.Reasons[*Newest] = SelectReason::NewestPTX;
  }
  return Result;
}

} // namespace offload

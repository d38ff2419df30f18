//===- lld-plugin/DevicePlan.cpp - Grouping images into device links ------===//

#include "lld-plugin/DevicePlan.h"

#include "format/SafeFileName.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace offload {

std::string DeviceLinkJob::name() const {
  return (getOffloadKindName(Kind) + "-" + TargetTriple.str() + "-" +
          (Arch.empty() ? "generic" : Arch))
      .str();
}

std::string DeviceLinkJob::fileName(bool *Changed) const {
  // Room for ".<n>.<ext>" and a work directory's other names.
  return safeFileNamePart(name(), Changed, MaxFileNameSize - 32);
}

std::string describeImage(const OffloadImage &Image) {
  StringRef Kind = getImageKindName(Image.TheImageKind);
  return (getOffloadKindName(Image.TheOffloadKind) + " " +
          (Image.getTriple().empty() ? "(no triple)" : Image.getTriple()) +
          " " + (Image.getArch().empty() ? "(no arch)" : Image.getArch()) +
          " (" + (Kind.empty() ? "no image kind" : Kind) + ")")
      .str();
}

static bool isGeneric(StringRef Arch) {
  return Arch.empty() || Arch == "generic";
}

/// The CPUs LLD links for in-process here; GPUs need their own device
/// toolchains (AMDGPU code objects, PTX/cubin through the CUDA tools).
static bool isCPUTarget(const Triple &T) {
  switch (T.getArch()) {
  case Triple::x86_64:
  case Triple::x86:
  case Triple::aarch64:
  case Triple::aarch64_be:
  case Triple::ppc64le:
  case Triple::ppc64:
  case Triple::riscv64:
  case Triple::systemz:
  case Triple::loongarch64:
    return T.isOSBinFormatELF();
  default:
    return false;
  }
}

static Error imageError(const DeviceImage &Image, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           Image.Where + ": device image " +
                               describeImage(Image.Image) + ": " + Msg);
}

static Error checkImage(const DeviceImage &Image) {
  const OffloadImage &I = Image.Image;
  Triple T(Triple::normalize(I.getTriple()));
  if (I.getTriple().empty() || T.getArch() == Triple::UnknownArch)
    return imageError(Image, "unknown target triple");
  if (I.TheImageKind != ImageKind::Object &&
      I.TheImageKind != ImageKind::Bitcode)
    return imageError(Image, "a device link takes objects or bitcode");
  if (T.isAMDGCN()) {
    if (I.TheOffloadKind != OffloadKind::OpenMP &&
        I.TheOffloadKind != OffloadKind::HIP)
      return imageError(Image, "AMDGPU device code must come from OpenMP or "
                               "HIP");
    if (isGeneric(I.getArch()))
      return imageError(Image, "an AMDGPU image needs a processor (target "
                               "ID) to be linked for");
    return Error::success();
  }
  if (T.isNVPTX()) {
    if (I.TheOffloadKind != OffloadKind::Cuda &&
        I.TheOffloadKind != OffloadKind::OpenMP)
      return imageError(Image, "NVPTX device code must come from CUDA or "
                               "OpenMP");
    if (!StringRef(I.getArch()).starts_with("sm_"))
      return imageError(Image, "an NVPTX image needs an sm_NN arch to be "
                               "linked for");
    return Error::success();
  }
  if (!isCPUTarget(T))
    return imageError(Image, "no device linker for " + T.str() +
                                 " (CPU and AMDGPU code is linked by LLD, "
                                 "NVPTX code by the CUDA toolkit's nvlink)");
  if (I.TheOffloadKind != OffloadKind::OpenMP)
    return imageError(Image, "only OpenMP images can be linked for a CPU "
                             "target");
  return Error::success();
}

/// A target ID is "<processor>[:<feature>(+|-)]...": an image built with a
/// feature on cannot be linked with one built with it off, while one that
/// leaves a feature unspecified goes with either. Images of one offload kind,
/// triple and processor that set a feature both ways conflict.
static Error checkTargetIDs(ArrayRef<DeviceImage> Images) {
  // (kind|triple|processor|feature) -> the first image setting it, and how.
  StringMap<std::pair<const DeviceImage *, bool>> Settings;
  for (const DeviceImage &Image : Images) {
    SmallVector<StringRef, 4> Parts;
    Image.Image.getArch().split(Parts, ':');
    for (StringRef Feature : ArrayRef(Parts).drop_front()) {
      if (!Feature.ends_with("+") && !Feature.ends_with("-"))
        return imageError(Image, "malformed target ID: feature '" + Feature +
                                     "' must end in '+' or '-'");
      bool On = Feature.back() == '+';
      std::string Key =
          (Twine(static_cast<unsigned>(Image.Image.TheOffloadKind)) + "|" +
           Triple::normalize(Image.Image.getTriple()) + "|" + Parts.front() +
           "|" + Feature.drop_back())
              .str();
      auto [It, New] = Settings.try_emplace(Key, &Image, On);
      if (!New && It->second.second != On)
        return createStringError(
            inconvertibleErrorCode(),
            "conflicting target IDs: " + It->second.first->Where + " has " +
                describeImage(It->second.first->Image) + ", " + Image.Where +
                " has " + describeImage(Image.Image) +
                "; no device link can take both");
    }
  }
  return Error::success();
}

/// Old-driver HIP units (-fgpu-rdc) register one fat binary the link
/// defines for them; new-driver HIP images are registered by the link. One
/// program cannot do both: its kernels would be registered twice or not at
/// all.
static Error checkHIPDrivers(ArrayRef<DeviceImage> Images,
                             ArrayRef<std::string> HIPFatbinUnits) {
  if (HIPFatbinUnits.empty())
    return Error::success();
  bool OldDriverCode = false;
  for (const DeviceImage &Image : Images) {
    if (Image.Image.TheOffloadKind != OffloadKind::HIP)
      continue;
    if (!Image.FromBundle)
      return imageError(Image,
                        "HIP device code from clang's new offload driver "
                        "cannot be linked with units from its old driver "
                        "(-fgpu-rdc without --offload-new-driver; unit " +
                            HIPFatbinUnits.front() +
                            "); compile every unit with one driver");
    OldDriverCode = true;
  }
  if (!OldDriverCode)
    return createStringError(
        inconvertibleErrorCode(),
        "HIP units compiled with -fgpu-rdc (unit " + HIPFatbinUnits.front() +
            " refers to __hip_fatbin_" + HIPFatbinUnits.front() +
            ") but no HIP device code in the inputs: link the objects clang "
            "made, not their host parts");
  return Error::success();
}

Expected<std::vector<DeviceLinkJob>>
planDeviceLinks(ArrayRef<DeviceImage> Images,
                ArrayRef<std::string> HIPFatbinUnits) {
  if (Error E = checkHIPDrivers(Images, HIPFatbinUnits))
    return std::move(E);
  if (Error E = checkTargetIDs(Images))
    return std::move(E);
  for (const DeviceImage &Image : Images)
    if (Error E = checkImage(Image))
      return std::move(E);

  // (kind, triple) -> its specific archs, both in first-seen order.
  using Key = std::pair<uint16_t, StringRef>;
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  std::vector<StringRef> Triples;
  for (const DeviceImage &Image : Images)
    Triples.push_back(Saver.save(Triple::normalize(Image.Image.getTriple())));
  auto KeyOf = [&](const DeviceImage &Image) {
    return Key{static_cast<uint16_t>(Image.Image.TheOffloadKind),
               Triples[&Image - Images.data()]};
  };
  MapVector<Key, SetVector<StringRef>> Archs;
  for (const DeviceImage &Image : Images) {
    SetVector<StringRef> &Specific = Archs[KeyOf(Image)];
    if (!isGeneric(Image.Image.getArch()))
      Specific.insert(Image.Image.getArch());
  }

  // One job per specific arch, or one generic job where there is none; each
  // takes its images in link order, generic ones included.
  std::vector<DeviceLinkJob> Jobs;
  for (const auto &[K, Specific] : Archs) {
    SmallVector<StringRef, 2> JobArchs(Specific.begin(), Specific.end());
    if (JobArchs.empty())
      JobArchs.push_back("generic");
    for (StringRef Arch : JobArchs) {
      DeviceLinkJob Job;
      Job.Kind = static_cast<OffloadKind>(K.first);
      Job.TargetTriple = Triple(K.second);
      Job.Arch = Arch.str();
      for (const DeviceImage &Image : Images) {
        StringRef ImageArch = Image.Image.getArch();
        if (KeyOf(Image) != K || !(isGeneric(ImageArch) || ImageArch == Arch))
          continue;
        Job.Images.push_back(&Image);
        Job.NeedsLTO |= Image.Image.TheImageKind == ImageKind::Bitcode;
      }
      Jobs.push_back(std::move(Job));
    }
  }
  return std::move(Jobs);
}

} // namespace offload

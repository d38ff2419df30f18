//===- lld-plugin/DevicePlan.cpp - Grouping images into device links ------===//

#include "lld-plugin/DevicePlan.h"

#include "format/BundleEntryID.h"
#include "format/SPIRVModule.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/TargetParser.h"

#include <map>

using namespace llvm;

namespace offload {

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

/// The target ID of an AMDGPU image, checked as clang checks an
/// --offload-arch=: a processor LLVM knows, and only features that processor
/// has (sramecc, xnack), each set once. A device link passes the features to
/// LTO, which would take an unknown one with a warning and make code that
/// the code object's flags do not describe.
static Expected<TargetID> amdgpuTargetID(const DeviceImage &Image) {
  Expected<TargetID> ID = TargetID::parse(Image.Image.getArch());
  if (!ID)
    return imageError(Image, toString(ID.takeError()));
  AMDGPU::GPUKind GPU = AMDGPU::parseArchAMDGCN(ID->Processor);
  if (GPU == AMDGPU::GK_NONE)
    return imageError(Image, "'" + ID->Processor +
                                 "' is not an AMDGPU processor LLVM knows");
  unsigned Attrs = AMDGPU::getArchAttrAMDGCN(GPU);
  SmallVector<StringRef, 2> Has;
  if (Attrs & AMDGPU::FEATURE_SRAMECC)
    Has.push_back("sramecc");
  if (Attrs & AMDGPU::FEATURE_XNACK)
    Has.push_back("xnack");
  for (const auto &[Name, On] : ID->Features)
    if (!is_contained(Has, Name))
      return imageError(Image, "target ID feature '" + Name + "' is not one " +
                                   ID->Processor + " has (" +
                                   (Has.empty() ? "it has none"
                                                : "it has " + join(Has, ", ")) +
                                   ")");
  return std::move(*ID);
}

static Error checkImage(const DeviceImage &Image) {
  const OffloadImage &I = Image.Image;
  Triple T(Triple::normalize(I.getTriple()));
  if (I.getTriple().empty() || T.getArch() == Triple::UnknownArch)
    return imageError(Image, "unknown target triple");
  // nvcc's relocatable device code is a cubin or PTX in a host object,
  // which nvlink is given whole.
  bool FromNvcc = !Image.NvccObject.empty() &&
                  (I.TheImageKind == ImageKind::Cubin ||
                   I.TheImageKind == ImageKind::PTX);
  if (I.TheImageKind != ImageKind::Object &&
      I.TheImageKind != ImageKind::Bitcode &&
      I.TheImageKind != ImageKind::SPIRV && !FromNvcc)
    return imageError(Image, "a device link takes objects or bitcode");
  if (T.isAMDGCN()) {
    if (I.TheOffloadKind != OffloadKind::OpenMP &&
        I.TheOffloadKind != OffloadKind::HIP)
      return imageError(Image, "AMDGPU device code must come from OpenMP or "
                               "HIP");
    if (isGeneric(I.getArch()))
      return imageError(Image, "an AMDGPU image needs a processor (target "
                               "ID) to be linked for");
    return amdgpuTargetID(Image).takeError();
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
  if (T.isSPIRV()) {
    // HIP's portable image: bitcode, compiled by LLVM's SPIR-V backend.
    if (I.TheOffloadKind == OffloadKind::HIP &&
        I.TheImageKind == ImageKind::Bitcode)
      return Error::success();
    // OpenMP's: SPIR-V already (clang 22 calls it an object, "elf").
    if (I.TheOffloadKind == OffloadKind::OpenMP && isSPIRVModule(I.Image))
      return Error::success();
    return imageError(Image,
                      "SPIR-V device code is linked from HIP bitcode "
                      "(--offload-arch=amdgcnspirv) or OpenMP SPIR-V "
                      "modules (-fopenmp-targets=spirv64-intel); this image "
                      "is neither");
  }
  if (!isCPUTarget(T))
    return imageError(Image,
                      "no device linker for " + T.str() +
                          " (CPU and AMDGPU code is linked by LLD, NVPTX code "
                          "by the CUDA toolkit's nvlink, SPIR-V by LLVM's "
                          "SPIR-V backend)");
  if (I.TheOffloadKind != OffloadKind::OpenMP)
    return imageError(Image, "only OpenMP images can be linked for a CPU "
                             "target");
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

/// Why no link of planProcessorLinks takes image \p I: it leaves unset a
/// feature that the links set, and the images that set that feature set
/// another the other way.
static Error noLinkError(ArrayRef<const DeviceImage *> Images,
                         ArrayRef<TargetID> IDs, size_t I,
                         ArrayRef<std::string> LinkFeatures) {
  const TargetID &ID = IDs[I];
  for (StringRef Unset : LinkFeatures) {
    if (ID.feature(Unset))
      continue;
    for (size_t J = 0; J != IDs.size(); ++J) {
      std::optional<std::string> Both = ID.featureSetOtherwise(IDs[J]);
      if (!IDs[J].feature(Unset) || !Both)
        continue;
      return imageError(
          *Images[I],
          "no device link of " + ID.Processor + " can take it: every link of " +
              ID.Processor + " sets " + Unset +
              ", which this image leaves unset, and the images that set " +
              Unset + " (" + Images[J]->Where + " has " +
              describeImage(Images[J]->Image) + ") set " + *Both +
              " the other way; one link would need both settings of " + *Both +
              " (build the images with the same features)");
    }
  }
  return imageError(*Images[I],
                    "no device link of " + ID.Processor + " can take it");
}

/// The device links of the images of one AMDGPU processor, of one offload
/// kind and triple (\p IDs: their target IDs), appended to \p Jobs.
///
/// A code object serves the configurations of its processor that its target
/// ID allows, and the runtime (comgr, libomptarget) loads one code object per
/// device: each link must hold all the code a configuration runs, and no two
/// links may serve one configuration. So every link sets each feature that
/// some image of the processor sets (clang asks the same of one compile's
/// --offload-arch= list: a feature is in every target ID of a processor or
/// in none), in a way that some image of the link sets it; each image joins
/// every link it is compatible with (isTargetIDCompatible, the rule of
/// clang-offload-bundler and comgr). An image that leaves a feature unset
/// thus joins the links that set it both ways, and gets no link of its own
/// beside them (a "gfx90a" link would serve the devices that the
/// "gfx90a:xnack+" and "gfx90a:xnack-" links serve). A setting that no image
/// names gets no link: code built for xnack on only does not run with it off.
static Error planProcessorLinks(OffloadKind Kind, const Triple &T,
                                ArrayRef<const DeviceImage *> Images,
                                ArrayRef<TargetID> IDs,
                                std::vector<DeviceLinkJob> &Jobs) {
  // The features some image sets, by name (as TargetID keeps them), with the
  // settings seen: bit 0 off, bit 1 on.
  std::map<std::string, unsigned> Seen;
  for (const TargetID &ID : IDs)
    for (const auto &[Name, On] : ID.Features)
      Seen[Name] |= On ? 2 : 1;
  // Every complete target ID of the settings seen: at most four, since a
  // processor has at most two features (amdgpuTargetID).
  std::vector<TargetID> Complete(1);
  Complete.front().Processor = IDs.front().Processor;
  for (const auto &[Name, Settings] : Seen) {
    std::vector<TargetID> Next;
    for (const TargetID &ID : Complete)
      for (bool On : {true, false})
        if (Settings & (On ? 2 : 1)) {
          Next.push_back(ID);
          Next.back().setFeature(Name, On);
        }
    Complete = std::move(Next);
  }

  struct Link {
    TargetID ID;
    SmallVector<size_t, 4> Members;
  };
  std::vector<Link> Links;
  for (TargetID &ID : Complete) {
    Link L{std::move(ID), {}};
    for (size_t I = 0; I != IDs.size(); ++I)
      if (isTargetIDCompatible(IDs[I], L.ID))
        L.Members.push_back(I);
    bool Named = all_of(L.ID.Features, [&](const auto &F) {
      return any_of(L.Members, [&](size_t I) {
        return IDs[I].feature(F.first) == F.second;
      });
    });
    if (!L.Members.empty() && Named)
      Links.push_back(std::move(L));
  }

  SmallVector<bool, 8> Placed(IDs.size());
  for (const Link &L : Links)
    for (size_t I : L.Members)
      Placed[I] = true;
  std::vector<std::string> LinkFeatures;
  for (const auto &Entry : Seen)
    LinkFeatures.push_back(Entry.first);
  for (size_t I = 0; I != IDs.size(); ++I)
    if (!Placed[I])
      return noLinkError(Images, IDs, I, LinkFeatures);

  // In the order the links' own images come in the link: by their members'
  // positions, the first that differs deciding.
  llvm::stable_sort(Links, [](const Link &A, const Link &B) {
    return A.Members < B.Members;
  });
  for (const Link &L : Links) {
    DeviceLinkJob Job;
    Job.Kind = Kind;
    Job.TargetTriple = T;
    Job.Arch = L.ID.str();
    for (size_t I : L.Members) {
      Job.Images.push_back(Images[I]);
      Job.NeedsLTO |= Images[I]->Image.TheImageKind == ImageKind::Bitcode;
    }
    Jobs.push_back(std::move(Job));
  }
  return Error::success();
}

bool mayShareDeviceLink(const Triple &T, StringRef ArchA, StringRef ArchB) {
  if (ArchA == ArchB || isGeneric(ArchA) || isGeneric(ArchB))
    return true;
  if (!T.isAMDGCN())
    return false;
  Expected<TargetID> A = TargetID::parse(ArchA);
  Expected<TargetID> B = TargetID::parse(ArchB);
  if (!A || !B) {
    consumeError(A.takeError());
    consumeError(B.takeError());
    return false;
  }
  return A->Processor == B->Processor && !A->featureSetOtherwise(*B);
}

Expected<std::vector<DeviceLinkJob>>
planDeviceLinks(ArrayRef<DeviceImage> Images,
                ArrayRef<std::string> HIPFatbinUnits) {
  if (Error E = checkHIPDrivers(Images, HIPFatbinUnits))
    return std::move(E);
  for (const DeviceImage &Image : Images)
    if (Error E = checkImage(Image))
      return std::move(E);

  // The images of each (kind, triple), in first-seen order.
  using Key = std::pair<uint16_t, std::string>;
  MapVector<Key, SmallVector<const DeviceImage *, 4>, std::map<Key, unsigned>>
      Groups;
  for (const DeviceImage &Image : Images)
    Groups[{static_cast<uint16_t>(Image.Image.TheOffloadKind),
            Triple::normalize(Image.Image.getTriple())}]
        .push_back(&Image);

  std::vector<DeviceLinkJob> Jobs;
  for (const auto &[K, Group] : Groups) {
    auto Kind = static_cast<OffloadKind>(K.first);
    Triple T(K.second);
    if (T.isAMDGCN()) {
      // By processor, in first-seen order; the target IDs decide the links.
      using ProcessorImages = std::pair<SmallVector<const DeviceImage *, 4>,
                                        SmallVector<TargetID, 4>>;
      MapVector<std::string, ProcessorImages, std::map<std::string, unsigned>>
          ByProcessor;
      for (const DeviceImage *Image : Group) {
        TargetID ID = cantFail(amdgpuTargetID(*Image)); // checked above
        ProcessorImages &Entry = ByProcessor[ID.Processor];
        Entry.first.push_back(Image);
        Entry.second.push_back(std::move(ID));
      }
      for (const auto &[Processor, Entry] : ByProcessor)
        if (Error E =
                planProcessorLinks(Kind, T, Entry.first, Entry.second, Jobs))
          return std::move(E);
      continue;
    }

    // Elsewhere one job per specific arch, or one generic job where there
    // is none; each takes its images in link order, generic ones included.
    SetVector<StringRef> Specific;
    for (const DeviceImage *Image : Group)
      if (!isGeneric(Image->Image.getArch()))
        Specific.insert(Image->Image.getArch());
    SmallVector<StringRef, 2> JobArchs(Specific.begin(), Specific.end());
    if (JobArchs.empty())
      JobArchs.push_back("generic");
    for (StringRef Arch : JobArchs) {
      DeviceLinkJob Job;
      Job.Kind = Kind;
      Job.TargetTriple = T;
      Job.Arch = Arch.str();
      for (const DeviceImage *Image : Group) {
        StringRef ImageArch = Image->Image.getArch();
        if (!isGeneric(ImageArch) && ImageArch != Arch)
          continue;
        Job.Images.push_back(Image);
        Job.NeedsLTO |= Image->Image.TheImageKind == ImageKind::Bitcode;
      }
      Jobs.push_back(std::move(Job));
    }
  }
  return std::move(Jobs);
}

} // namespace offload

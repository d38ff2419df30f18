//===- lld-plugin/RegisterImages.cpp - The registration object ------------===//

#include "lld-plugin/RegisterImages.h"

#include "lld-plugin/DeviceLinkCache.h"
#include "lld-plugin/HostLink.h"

#include "format/BundleEntryID.h"
#include "format/NvccModule.h"
#include "format/OffloadBinaryWriter.h"
#include "format/OffloadBundle.h"
#include "wrapper-ir/Emit.h"
#include "wrapper-ir/Registration.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Frontend/Offloading/Utility.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace offload {

/// Emits \p M as the object \p Name.
static Expected<std::string> emitObject(Expected<std::unique_ptr<Module>> M,
                                        StringRef Name, const WorkDir &Dir) {
  if (!M)
    return M.takeError();
  Expected<SmallString<0>> Object = emitModule(**M, EmitOptions());
  if (!Object)
    return Object.takeError();
  return Dir.write(Name, *Object);
}

/// Emits the registration module built for \p Images as the object \p Name.
static Expected<std::string>
emitRegistration(ArrayRef<ImageToRegister> Images, const Triple &HostTriple,
                 const RegistrationOptions &Options, StringRef Name,
                 const WorkDir &Dir) {
  LLVMContext Context;
  return emitObject(
      buildRegistrationModule(Context, HostTriple, Images, Options), Name, Dir);
}

/// Emits the object \p Name that registers the fat binary \p Fatbin with
/// the \p Kind (HIP or CUDA) runtime.
static Expected<std::string>
emitFatbinRegistration(StringRef Fatbin, RegistrationKind Kind,
                       const Triple &HostTriple,
                       const RegistrationSettings &Settings, StringRef Name,
                       const WorkDir &Dir,
                       std::vector<std::string> NvccModules = {}) {
  ImageToRegister Image;
  Image.Data = Fatbin;
  Image.ImageEnd = Fatbin.size();
  RegistrationOptions Options;
  Options.Kind = Kind;
  Options.Relocatable = Settings.Relocatable;
  Options.EntriesSection = Settings.EntriesSection;
  Options.NvccModules = std::move(NvccModules);
  return emitRegistration({Image}, HostTriple, Options, Name, Dir);
}

/// The nvcc modules the links of \p Links linked, from nvlink's lists
/// (DEFINE_REGISTER_FUNC(<ID>) lines), in first-seen order; \p Dir is
/// their work directory.
static Expected<std::vector<std::string>>
readNvccModules(ArrayRef<const PreparedDeviceLink *> Links,
                const WorkDir &Dir) {
  // nvlink lists its other inputs too (clang's cubins, in the work
  // directory), under their paths made identifiers; no host code of theirs
  // calls in. The units given as fat binaries are listed so too: under
  // their module IDs here.
  std::string OtherInputs = nvlinkModuleIDOfPath(Dir.path(""));
  std::vector<std::string> Modules;
  StringSet<> Seen;
  for (const PreparedDeviceLink *Link : Links) {
    if (!Link->linksNvccModules())
      continue;
    ErrorOr<std::unique_ptr<MemoryBuffer>> List =
        MemoryBuffer::getFile(Link->NvccModuleList);
    if (std::error_code EC = List.getError())
      return createStringError(EC, "cannot read nvlink's list of the nvcc "
                                   "modules it linked, '%s': %s",
                               Link->NvccModuleList.c_str(),
                               EC.message().c_str());
    SmallVector<StringRef, 8> Lines;
    (*List)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef Line : Lines) {
      StringRef ID = Line.trim();
      if (!ID.consume_front("DEFINE_REGISTER_FUNC(") || !ID.consume_back(")"))
        continue;
      auto Unit = Link->NvccFatbinModules.find(ID.str());
      if (Unit != Link->NvccFatbinModules.end())
        ID = Unit->second;
      else if (ID.starts_with(OtherInputs))
        continue;
      if (Seen.insert(ID).second)
        Modules.push_back(ID.str());
    }
  }
  return std::move(Modules);
}

/// The OpenMP runtime takes each linked image with its metadata, as an
/// OffloadBinary of its own.
static Expected<std::string> writeOpenMPRegistration(
    ArrayRef<const PreparedDeviceLink *> Links, const Triple &HostTriple,
    const RegistrationSettings &Settings, const WorkDir &Dir) {
  std::vector<std::string> Packed;
  for (const PreparedDeviceLink *Link : Links) {
    Expected<std::unique_ptr<MemoryBuffer>> Image = Link->readOutput();
    if (!Image)
      return Image.takeError();
    // A SPIR-V module goes to the runtime in the ELF container that clang's
    // pipeline puts it in (Intel's notes, the module in a section), which
    // the runtime's SPIR-V plugin looks for.
    if (Link->Job->TargetTriple.isSPIRV()) {
      std::unique_ptr<MemoryBuffer> Module = MemoryBuffer::getMemBufferCopy(
          (*Image)->getBuffer(), (*Image)->getBufferIdentifier());
      if (Error E = offloading::intel::containerizeOpenMPSPIRVImage(Module))
        return std::move(E);
      *Image = std::move(Module);
    }
    ImageToWrite ToWrite;
    ToWrite.TheImageKind = Link->Job->TargetTriple.isNVPTX()
                               ? ImageKind::Cubin
                               : ImageKind::Object;
    ToWrite.TheOffloadKind = Link->Job->Kind;
    ToWrite.Strings = {{"triple", Link->Job->TargetTriple.str()},
                       {"arch", Link->Job->Arch}};
    ToWrite.Image = (*Image)->getBuffer();
    std::string Binary;
    raw_string_ostream OS(Binary);
    if (Error E = writeOffloadBinaries(OS, {ToWrite}, WriteOptions()))
      return std::move(E);
    Packed.push_back(std::move(Binary));
  }

  std::vector<ImageToRegister> Images;
  ByteStore Store;
  for (const std::string &Binary : Packed) {
    Expected<OffloadBinary> Read = readOffloadBinary(Binary, 0, Store);
    if (!Read)
      return Read.takeError();
    const OffloadImage &Image = Read->Images.front();
    ImageToRegister R;
    R.Data = Binary;
    R.ImageBegin = Image.ImageOffset;
    R.ImageEnd = Image.ImageOffset + Image.Image.size();
    R.Arch = Image.getArch().str();
    Images.push_back(std::move(R));
  }
  RegistrationOptions Options;
  Options.Relocatable = Settings.Relocatable;
  Options.EntriesSection = Settings.EntriesSection;
  return emitRegistration(Images, HostTriple, Options, "registration.o", Dir);
}

Expected<SmallVector<char, 0>>
makeHIPFatbin(ArrayRef<const PreparedDeviceLink *> Links,
              const std::optional<BundleCompression> &Compression,
              StringRef EntryKind) {
  // clang-linker-wrapper names the (empty) host entry this way, whatever the
  // host.
  std::vector<std::unique_ptr<MemoryBuffer>> Images;
  std::vector<BundleEntryToWrite> Entries = {
      {"host-x86_64-unknown-linux-gnu-", StringRef()}};
  // In the order of clang's pipeline, for the same bytes: by triple, then
  // target ID, descending as clang-linker-wrapper sorts them ("gfx90a"
  // before "gfx1100", SPIR-V before AMDGPU), or, for old-driver units
  // (hipv4), by target ID ascending as clang --hip-link's
  // clang-offload-bundler is given them ("amdgcnspirv" first).
  bool OldDriver = EntryKind == "hipv4";
  std::vector<const PreparedDeviceLink *> Ordered(Links.begin(), Links.end());
  llvm::stable_sort(Ordered, [&](const PreparedDeviceLink *A,
                                 const PreparedDeviceLink *B) {
    if (OldDriver)
      return A->Job->Arch < B->Job->Arch;
    return std::make_tuple(A->Job->TargetTriple.str(), A->Job->Arch) >
           std::make_tuple(B->Job->TargetTriple.str(), B->Job->Arch);
  });
  // clang --hip-link names its entries "hip" when all are SPIR-V (its
  // "hipv4" is for AMDGPU code objects of version 4 on, and marks every
  // entry of a program that has one).
  if (OldDriver && llvm::none_of(Links, [](const PreparedDeviceLink *Link) {
        return Link->Job->TargetTriple.isAMDGCN();
      }))
    EntryKind = "hip";
  for (const PreparedDeviceLink *Link : Ordered) {
    Expected<std::unique_ptr<MemoryBuffer>> Image = Link->readOutput();
    if (!Image)
      return Image.takeError();
    BundleEntryID ID;
    ID.Kind = EntryKind.str();
    ID.TargetTriple = Link->Job->TargetTriple;
    ID.TargetIDText = Link->Job->Arch;
    Entries.push_back({ID.str(), (*Image)->getBuffer()});
    Images.push_back(std::move(*Image));
  }
  SmallVector<char, 0> Bundle;
  raw_svector_ostream OS(Bundle);
  writeBinaryBundle(OS, Entries, /*Alignment=*/4096);
  if (!Compression)
    return std::move(Bundle);
  return compressBundle(StringRef(Bundle.data(), Bundle.size()), *Compression);
}

static Expected<std::string>
writeHIPRegistration(ArrayRef<const PreparedDeviceLink *> Links,
                     const Triple &HostTriple,
                     const RegistrationSettings &Settings, const WorkDir &Dir) {
  Expected<SmallVector<char, 0>> Fatbin =
      makeHIPFatbin(Links, Settings.Compression,
                    // clang's old driver names code objects "hipv4-...".
                    Settings.HIPFatbinUnits.empty() ? "hip" : "hipv4");
  if (!Fatbin)
    return Fatbin.takeError();
  StringRef Data(Fatbin->data(), Fatbin->size());
  // Kept with the other intermediates, for --offload-save-temps.
  if (Expected<std::string> Saved = Dir.write("hip.hipfb", Data); !Saved)
    return Saved.takeError();
  // Units of clang's old driver (-fgpu-rdc) register the fat binary
  // themselves: the link only defines it and their module handle.
  if (!Settings.HIPFatbinUnits.empty()) {
    LLVMContext Context;
    return emitObject(buildHIPFatbinDefinitions(Context, HostTriple, Data,
                                                Settings.HIPFatbinUnits),
                      "hip-fatbin.o", Dir);
  }
  return emitFatbinRegistration(Data, RegistrationKind::HIP, HostTriple,
                                Settings, "registration-hip.o", Dir);
}

/// The CUDA fat binary of \p Links: the toolkit's fatbinary, one ELF image
/// per sm_NN, as clang-linker-wrapper runs it.
static Expected<std::string> writeCUDARegistration(
    ArrayRef<const PreparedDeviceLink *> Links, const Triple &HostTriple,
    const RegistrationSettings &Settings, const WorkDir &Dir) {
  Expected<std::string> Fatbinary =
      findCudaTool(Settings.CudaPath, "fatbinary");
  if (!Fatbinary)
    return Fatbinary.takeError();
  Expected<std::vector<std::string>> NvccModules = readNvccModules(Links, Dir);
  if (!NvccModules)
    return NvccModules.takeError();
  std::string Output = Dir.path("cuda.fatbin");
  std::vector<std::string> Args = {*Fatbinary, "--create=" + Output, "--64"};
  // nvcc's link makes a linked fat binary (-link).
  if (!NvccModules->empty())
    Args.push_back("-link");
  for (const PreparedDeviceLink *Link : Links) {
    if (Error E = Link->writeOutput())
      return std::move(E);
    Args.push_back("--image3=kind=elf,sm=" +
                   StringRef(Link->Job->Arch).drop_front(3).str() +
                   ",file=" + Link->Output);
  }
  SmallVector<StringRef, 16> Argv(Args.begin(), Args.end());
  std::string Log = Dir.path("fatbinary.log");
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Log),
                                          StringRef(Log)};
  std::string ErrMsg;
  if (sys::ExecuteAndWait(*Fatbinary, Argv, std::nullopt, Redirects, 0, 0,
                          &ErrMsg) != 0) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Said = MemoryBuffer::getFile(Log);
    return createStringError(
        inconvertibleErrorCode(),
        "fatbinary failed: " +
            (Said ? (*Said)->getBuffer().rtrim().str() : ErrMsg));
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Fatbin = MemoryBuffer::getFile(
      Output, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Fatbin.getError())
    return createStringError(EC, "cannot read '%s': %s", Output.c_str(),
                             EC.message().c_str());
  return emitFatbinRegistration((*Fatbin)->getBuffer(), RegistrationKind::Cuda,
                                HostTriple, Settings, "registration-cuda.o",
                                Dir, std::move(*NvccModules));
}

/// The key of a registration object: the keys of its images (each decides
/// its image's bytes), and all else it is made of. Empty when an image has
/// none.
static std::string registrationKey(ArrayRef<const PreparedDeviceLink *> Links,
                                   StringRef Name, const Triple &HostTriple,
                                   const RegistrationSettings &Settings) {
  CacheKeyHasher H;
  // 2: objects of images that may not be whole are no longer kept.
  H.add("format", "lld-offload registration object 2");
  H.add("object", Name);
  H.add("host", HostTriple.str());
  H.add("entries", Settings.EntriesSection);
  H.add("relocatable", Settings.Relocatable ? "yes" : "no");
  if (const std::optional<BundleCompression> &C = Settings.Compression)
    H.add("compression", (Twine(static_cast<int>(C->Method)) + " " +
                          Twine(C->Level) + " " + Twine(C->Version))
                             .str());
  for (const std::string &Unit : Settings.HIPFatbinUnits)
    H.add("hip unit", Unit);
  for (const PreparedDeviceLink *Link : Links) {
    if (Link->CacheKey.empty())
      return "";
    H.add("image", Link->Job->name() + " " + Link->CacheKey);
    if (Link->Job->Kind == OffloadKind::Cuda) {
      Expected<std::string> Fatbinary =
          findCudaTool(Settings.CudaPath, "fatbinary");
      if (!Fatbinary) {
        consumeError(Fatbinary.takeError());
        return "";
      }
      H.add("fatbinary", Settings.Cache->toolVersion(*Fatbinary));
    }
  }
  return H.finish("registration");
}

/// The registration object \p Name of \p Links that \p Write writes: from
/// \p Cache when it has it (an object of cached images is fixed cost of a
/// relink: codegen, and for CUDA the toolkit's fatbinary), else written and
/// kept there. A cache that fails is a warning.
static Expected<std::string>
cachedRegistration(ArrayRef<const PreparedDeviceLink *> Links, StringRef Name,
                   const Triple &HostTriple,
                   const RegistrationSettings &Settings, const WorkDir &Dir,
                   function_ref<Expected<std::string>()> Write) {
  std::string Key;
  if (Settings.Cache)
    Key = registrationKey(Links, Name, HostTriple, Settings);
  if (Key.empty())
    return Write();
  std::string Path = Dir.path(Name);
  Expected<DeviceLinkCache::Tier> Hit = Settings.Cache->fetchEither(Key, Path);
  if (!Hit)
    reportWarning(Hit.takeError());
  else if (*Hit != DeviceLinkCache::Tier::None) {
    if (Settings.Verbose)
      errs() << ToolName << ": device-link cache: "
             << (*Hit == DeviceLinkCache::Tier::Local ? "local" : "remote")
             << " hit for the registration object " << Name << "\n";
    return Path;
  }
  Expected<std::string> Written = Write();
  if (!Written)
    return Written;
  // An image linked here without the host's static archives may turn out
  // to need one (the host link tells): its object is kept when the image
  // is, once that is known.
  if (llvm::any_of(Links, [](const PreparedDeviceLink *Link) {
        return !Link->Cached && Link->omitsArchives();
      })) {
    Settings.Cache->KeepIfWhole.emplace_back(Key, *Written);
    return Written;
  }
  if (Error E = Settings.Cache->storeEither(Key, *Written))
    reportWarning(createStringError(inconvertibleErrorCode(),
                                    "cannot keep the registration object " +
                                        Name + " in the device-link cache '" +
                                        Settings.Cache->directory() +
                                        "': " + toString(std::move(E))));
  return Written;
}

/// The size of the fat binary in the registration object \p Path (0 if it
/// has none): where the host link places it depends on it.
static Expected<uint64_t> fatbinSize(StringRef Path) {
  Expected<object::OwningBinary<object::ObjectFile>> Object =
      object::ObjectFile::createObjectFile(Path);
  if (!Object)
    return Object.takeError();
  for (const object::SectionRef &Section : Object->getBinary()->sections()) {
    Expected<StringRef> SectionName = Section.getName();
    if (SectionName &&
        (*SectionName == ".hip_fatbin" || *SectionName == ".nv_fatbin"))
      return Section.getSize();
    consumeError(SectionName.takeError());
  }
  return 0;
}

namespace {
/// The links of each offload kind, and the names of their registration
/// objects.
struct RegistrationGroups {
  std::vector<const PreparedDeviceLink *> OpenMP, HIP, CUDA;
  static constexpr StringLiteral OpenMPName = "registration.o",
                                 CUDAName = "registration-cuda.o";
  StringRef HIPName;
  RegistrationGroups(ArrayRef<PreparedDeviceLink> Links,
                     const RegistrationSettings &Settings)
      : HIPName(Settings.HIPFatbinUnits.empty() ? "registration-hip.o"
                                                : "hip-fatbin.o") {
    for (const PreparedDeviceLink &Link : Links)
      (Link.Job->Kind == OffloadKind::HIP    ? HIP
       : Link.Job->Kind == OffloadKind::Cuda ? CUDA
                                             : OpenMP)
          .push_back(&Link);
  }
};
} // namespace

std::vector<RegistrationKey>
registrationKeys(ArrayRef<PreparedDeviceLink> Links, const Triple &HostTriple,
                 const RegistrationSettings &Settings) {
  std::vector<RegistrationKey> Keys;
  if (!Settings.Cache || Settings.Relocatable)
    return Keys;
  RegistrationGroups G(Links, Settings);
  for (auto [Kind, Name] :
       {std::pair(&G.OpenMP, StringRef(RegistrationGroups::OpenMPName)),
        {&G.HIP, G.HIPName},
        {&G.CUDA, StringRef(RegistrationGroups::CUDAName)}})
    if (!Kind->empty())
      if (std::string Key = registrationKey(*Kind, Name, HostTriple, Settings);
          !Key.empty())
        Keys.push_back({std::move(Key), *Kind});
  return Keys;
}

Expected<RegistrationObjects> writeRegistrationObjects(
    ArrayRef<PreparedDeviceLink> Links, const Triple &HostTriple,
    const RegistrationSettings &Settings, const WorkDir &Dir) {
  RegistrationGroups G(Links, Settings);
  RegistrationObjects Result;
  auto Register = [&](ArrayRef<const PreparedDeviceLink *> Kind, StringRef Name,
                      auto Write) -> Error {
    if (Kind.empty())
      return Error::success();
    Expected<std::string> Object =
        cachedRegistration(Kind, Name, HostTriple, Settings, Dir, [&] {
          return Write(Kind, HostTriple, Settings, Dir);
        });
    if (!Object)
      return Object.takeError();
    Expected<uint64_t> Size = fatbinSize(*Object);
    if (!Size)
      return Size.takeError();
    Result.Paths.push_back(*Object);
    Result.LargestFatbin = std::max(Result.LargestFatbin, *Size);
    return Error::success();
  };
  if (Error E = Register(G.OpenMP, G.OpenMPName, writeOpenMPRegistration))
    return std::move(E);
  if (Error E = Register(G.HIP, G.HIPName, writeHIPRegistration))
    return std::move(E);
  if (Error E = Register(G.CUDA, G.CUDAName, writeCUDARegistration))
    return std::move(E);
  return std::move(Result);
}

Expected<RelocatableRegistration>
planRelocatableRegistration(ArrayRef<PreparedDeviceLink> Links) {
  uint64_t Hash = 0;
  for (const PreparedDeviceLink &Link : Links) {
    Expected<std::unique_ptr<MemoryBuffer>> Image = Link.readOutput();
    if (!Image)
      return Image.takeError();
    Hash = xxh3_64bits((*Image)->getBuffer()) ^ (Hash * 31);
  }
  RelocatableRegistration R;
  R.EntriesSection = "llvm_offload_entries_" + utohexstr(Hash, true, 16);
  R.Script = "SECTIONS {\n  " + R.EntriesSection +
             " : { KEEP(*(llvm_offload_entries " + R.EntriesSection +
             ")) }\n  /DISCARD/ : { *(.llvm.offloading) }\n}\n";
  return R;
}

} // namespace offload

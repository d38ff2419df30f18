//===- lld-plugin/DeviceWork.cpp - A link's device code and its links -----===//

#include "lld-plugin/DeviceWork.h"

#include "lld-plugin/DeviceLinkCache.h"
#include "lld-plugin/HostLink.h"
#include "lld-plugin/LinkChecks.h"
#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/RegisterImages.h"
#include "lld-plugin/RemoteCache.h"
#include "lld-plugin/WorkDir.h"

#include "support/AtomicOutput.h"
#include "wrapper-ir/Emit.h"

#include "format/TargetSelection.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <set>

using namespace llvm;

namespace offload {

bool DeviceWork::registersNothing() const {
  return Inputs->alreadyRegisteredBy() || Jobs.empty();
}

bool DeviceWork::linksOpenMP() const {
  return llvm::any_of(Jobs, [](const DeviceLinkJob &Job) {
    return Job.Kind == OffloadKind::OpenMP;
  });
}

/// Says what the options that name a triple or a runtime miss for
/// \p Jobs, each once in a link (\p Said).
static Error warnAboutOptions(const LinkCommandLine &CL,
                              ArrayRef<DeviceLinkJob> Jobs,
                              StringSet<> &Said) {
  Expected<std::vector<std::string>> Warnings = checkLinkOptions(CL, Jobs);
  if (!Warnings)
    return Warnings.takeError();
  for (const std::string &Warning : *Warnings)
    if (Said.insert(Warning).second)
      WithColor::warning(errs(), ToolName) << Warning << "\n";
  return Error::success();
}

/// Leaves out of \p Inputs the images of targets the link is not for
/// (--offload-arch=, --offload-targets=: format/TargetSelection.h, each
/// input's images a container), saying which under --offload-verbose. A
/// requested target no input has code for is a warning (once in a link,
/// \p Warned); a request that leaves no device code, an error.
static Error selectTargets(const OffloadOptions &Opts,
                           const std::optional<TargetRequest> &Request,
                           DeviceInputs &Inputs, StringSet<> &Warned) {
  if (!Request)
    return Error::success();
  ArrayRef<DeviceImage> Images = Inputs.images();
  std::vector<bool> Dropped(Images.size());
  std::vector<bool> ArchUsed(Request->Archs.size());
  // The images of one input, together: a generic image serves a requested
  // processor only where its input has none for it.
  for (size_t Begin = 0; Begin != Images.size();) {
    size_t End = Begin;
    std::vector<SelectableImage> Container;
    while (End != Images.size() && Images[End].Input == Images[Begin].Input) {
      const OffloadImage &I = Images[End++].Image;
      Container.push_back(
          {I.TheImageKind, Triple(I.getTriple()), I.getArch().str()});
    }
    ImageSelection S = selectImages(*Request, Container);
    for (size_t N = 0; N != Container.size(); ++N)
      Dropped[Begin + N] = !S.isKept(N);
    for (size_t A = 0; A != ArchUsed.size(); ++A)
      ArchUsed[A] = ArchUsed[A] || S.ArchUsed[A];
    Begin = End;
  }
  std::set<std::string> Have;
  for (const DeviceImage &Image : Images)
    Have.insert(Image.Image.getArch().empty() ? Image.Image.getTriple().str()
                                              : Image.Image.getArch().str());
  std::string Listed = join(Have, ", ");
  for (size_t A = 0; A != ArchUsed.size(); ++A)
    if (!ArchUsed[A] && !Images.empty()) {
      std::string Warning = "--offload-arch=" + Request->Archs[A].str() +
                            ": no input has device code for it; the inputs "
                            "have " +
                            Listed;
      if (Warned.insert(Warning).second)
        WithColor::warning(errs(), ToolName) << Warning << "\n";
    }
  std::vector<DeviceImage> LeftOut = Inputs.leaveOut(Dropped);
  if (Opts.Verbose || Opts.DryRun)
    for (const DeviceImage &Image : LeftOut) {
      std::string Said = "left out (not a target of this link): " +
                         describeImage(Image.Image) + " in " + Image.Where;
      if (Warned.insert(Said).second)
        errs() << ToolName << ": " << Said << "\n";
    }
  if (Inputs.images().empty() && !LeftOut.empty())
    return createStringError(
        inconvertibleErrorCode(),
        "the targets asked for (--offload-arch=%s%s%s) leave no device code "
        "to link; the inputs have %s",
        join(Opts.Archs, ",").c_str(),
        Opts.Targets.empty() ? "" : ", --offload-targets=",
        join(Opts.Targets, ",").c_str(), Listed.c_str());
  return Error::success();
}

Expected<DeviceWork> findDeviceWork(const LinkCommandLine &CL,
                                    const LoadedInputs &Loaded,
                                    const LinkInputs &Named,
                                    StringSet<> &Warned) {
  const OffloadOptions &Opts = CL.Offload;
  DeviceWork Work;
  DeviceInputs &Inputs = *Work.Inputs;
  {
    Pass P("find device code", Opts.Verbose);
    if (Error E = Inputs.scanLoadedInputs(Loaded, &Named))
      return std::move(E);
  }
  // The targets the link is for (--offload-arch=, --offload-targets=).
  std::optional<TargetRequest> Request;
  if (!Opts.Archs.empty() || !Opts.Targets.empty()) {
    Expected<TargetRequest> R = TargetRequest::create(Opts.Archs, Opts.Targets);
    if (!R)
      return R.takeError();
    Request = std::move(*R);
  }
  {
    Pass P("find device code in unused archive members", Opts.Verbose);
    // Archive members with code for a requested target give it, as
    // --offload-extract's (clang's --should-extract).
    if (Error E = Inputs.addArchiveMembersDeviceCodeNeeds(
            Opts.ExtractArchs, Request ? &*Request : nullptr))
      return std::move(E);
  }
  // Each device link's inputs in clang-linker-wrapper's order.
  Inputs.sortInLinkOrder();
  // Only the targets the link is for.
  if (Error E = selectTargets(Opts, Request, Inputs, Warned))
    return std::move(E);
  Work.Host = getHostLinkInfo(CL.LLD, Loaded);
  Work.Host.Named = &Named;
  if (Inputs.loadsObjectsBesideNvcc() &&
      llvm::any_of(Inputs.images(), [](const DeviceImage &Image) {
        return !Image.NvccObject.empty();
      })) {
    LLVMContext Context;
    Module Empty("host", Context);
    Empty.setTargetTriple(Work.Host.HostTriple);
    Expected<SmallString<0>> Object = emitModule(Empty, EmitOptions());
    if (!Object)
      return Object.takeError();
    Work.Host.NvlinkHostObject = Object->str().str();
  }
  raw_string_ostream OS(Work.Description);
  for (const DeviceImage &Image : Inputs.images())
    OS << "image " << Image.Where << "\n";
  for (const std::string &Unit : Inputs.hipFatbinUnits())
    OS << "hip unit " << Unit << "\n";
  if (std::optional<std::string> By = Inputs.alreadyRegisteredBy())
    OS << "registered by " << *By << "\n";
  OS << "calls registration " << Inputs.callsOpenMPRegistration() << "\n";
  for (const std::string &Lib : spell(Work.Host.Libraries))
    OS << "library " << Lib << "\n";
  if (!Inputs.images().empty() || !Inputs.hipFatbinUnits().empty()) {
    // Refuse what cannot be linked before any work is done.
    Expected<std::vector<DeviceLinkJob>> Jobs =
        planDeviceLinks(Inputs.images(), Inputs.hipFatbinUnits());
    if (!Jobs)
      return Jobs.takeError();
    Work.Jobs = std::move(*Jobs);
  }
  if (Error E = warnAboutOptions(CL, Work.Jobs, Warned))
    return std::move(E);
  return std::move(Work);
}

/// How the registration objects of a link are made: the bundler's
/// environment (its warnings into \p Warnings), our options, the inputs'
/// old-driver HIP units, and the cache.
static RegistrationSettings
registrationSettings(const LinkCommandLine &CL, const DeviceWork &Work,
                     DeviceLinkCache *Cache,
                     std::vector<std::string> *Warnings) {
  const OffloadOptions &Opts = CL.Offload;
  RegistrationSettings Settings;
  // clang's pipeline bundles as clang-offload-bundler's environment says
  // (OFFLOAD_BUNDLER_COMPRESS=1, ..._COMPRESSION_LEVEL, ...): so do we, but
  // for what our options set otherwise than by default.
  BundlerEnvironment Env = readBundlerEnvironment();
  if (Warnings)
    *Warnings = Env.Warnings;
  if (Opts.Compress || Env.Compress) {
    BundleCompression Default;
    Settings.Compression =
        BundleCompression{compression::Format::Zstd, Opts.CompressionLevel,
                          Opts.CompressionVersion};
    if (Env.Level && Opts.CompressionLevel == Default.Level)
      Settings.Compression->Level = *Env.Level;
    if (Env.Version && Opts.CompressionVersion == Default.Version)
      Settings.Compression->Version = *Env.Version;
  }
  Settings.Relocatable = CL.Relocatable;
  Settings.CudaPath = Opts.CudaPath;
  Settings.HIPFatbinUnits = Work.Inputs->hipFatbinUnits();
  // What --offload-save-temps keeps (the fat binaries) is not in the cache.
  if (!Opts.SaveTemps)
    Settings.Cache = Cache;
  Settings.Verbose = Opts.Verbose;
  return Settings;
}

/// Whether a link reads its device images even when the cache keeps its
/// registration objects: a dry run says what each device link would find,
/// --offload-save-temps keeps the images, the resource report reads them,
/// and a relocatable output's entries section is named after them.
static bool readsEveryImage(const LinkCommandLine &CL) {
  const OffloadOptions &Opts = CL.Offload;
  return Opts.DryRun || Opts.SaveTemps || Opts.PrintResourceUsage ||
         !Opts.ResourceUsageFile.empty() || CL.Relocatable;
}

/// Looks \p Links up in \p Cache, each tier at once: first the
/// registration objects of their images (\p RegistrationKeys; a link whose
/// object either tier keeps needs its image no more: the object holds it),
/// then the images of the links still without one.
static void lookUpDeviceLinks(
    DeviceLinkCache &Cache, MutableArrayRef<PreparedDeviceLink> Links,
    const WorkDir &Dir, const OffloadOptions &Opts,
    function_ref<std::vector<RegistrationKey>()> RegistrationKeys) {
  using Tier = DeviceLinkCache::Tier;
  for (PreparedDeviceLink &Link : Links) {
    Expected<std::string> Key = Cache.key(Link, Dir);
    if (!Key)
      reportWarning(Key.takeError());
    else
      Link.CacheKey = std::move(*Key);
  }
  std::vector<Tier> Hits(Links.size(), Tier::None);
  std::vector<bool> InRegistration(Links.size());
  std::vector<RegistrationKey> Objects = RegistrationKeys();
  std::vector<std::string> Keys;
  for (const RegistrationKey &Object : Objects)
    Keys.push_back(Object.Key);
  std::vector<DeviceLinkCache::Found> Found =
      Cache.lookUpEither(Keys, reportWarning, Opts.DryRun);
  for (auto [Object, F] : zip(Objects, Found)) {
    if (F.Where != Tier::None)
      for (const PreparedDeviceLink *Link : Object.Links) {
        Hits[Link - Links.data()] = F.Where;
        InRegistration[Link - Links.data()] = true;
      }
    // Its images, unread, are as used as it is.
    if (F.Where == Tier::Local && !Opts.DryRun) {
      std::vector<std::string> Images;
      for (const PreparedDeviceLink *Link : Object.Links)
        Images.push_back(Link->CacheKey);
      Cache.markUsed(Images);
    }
    Cache.foundEarlier(Object.Key, std::move(F));
  }
  Keys.clear();
  std::vector<size_t> Asked;
  // An image of nvcc's code is of no use alone: its registration needs
  // nvlink's list of the units it linked, which only a link that runs makes
  // (and the registration object keeps).
  for (auto [N, Link] : enumerate(Links))
    if (!InRegistration[N] && !Link.CacheKey.empty() &&
        !Link.linksNvccModules()) {
      Keys.push_back(Link.CacheKey);
      Asked.push_back(N);
    }
  Found = Cache.lookUpEither(Keys, reportWarning, Opts.DryRun);
  for (auto [N, F] : zip(Asked, Found)) {
    PreparedDeviceLink &Link = Links[N];
    if (F.Unusable) {
      Link.CacheKey.clear();
      continue;
    }
    Hits[N] = F.Where;
    Link.CachedImage = F.Contents;
    Link.CachedEntry = std::move(F.Entry);
  }
  if (Opts.Verbose && Cache.remote())
    for (const std::string &Note : Cache.remote()->takeNotes())
      errs() << ToolName << ": " << Note << "\n";
  for (auto [N, Link] : enumerate(Links)) {
    if (Link.CacheKey.empty())
      continue;
    Link.Cached = Hits[N] != Tier::None && !Opts.DryRun;
    ++(Hits[N] == Tier::Local    ? Cache.Counts.LocalHits
       : Hits[N] == Tier::Remote ? Cache.Counts.RemoteHits
                                 : Cache.Counts.Misses);
    if (!Opts.Verbose && !Opts.DryRun)
      continue;
    StringRef Said[] = {"miss", "local hit", "remote hit"};
    StringRef Would[] = {"would miss", "would hit locally",
                         "would hit remotely"};
    errs() << ToolName << ": device-link cache: "
           << (Opts.DryRun ? Would : Said)[static_cast<int>(Hits[N])] << " for "
           << Link.Job->name() << " (key " << shortKey(Link.CacheKey)
           << (InRegistration[N] ? ", in its registration object" : "")
           << ")\n";
  }
}

Expected<std::vector<PreparedDeviceLink>>
prepareDeviceLinks(const LinkCommandLine &CL, const DeviceWork &Work,
                   const WorkDir &Dir, DeviceLinkCache *Cache) {
  const OffloadOptions &Opts = CL.Offload;
  std::vector<PreparedDeviceLink> Links;
  for (const DeviceLinkJob &Job : Work.Jobs) {
    // Work files are named after the job, and so after what the images say
    // of themselves: never a path outside the work directory.
    bool Renamed = false;
    std::string FileName = Job.fileName(&Renamed);
    if (Renamed) {
      raw_ostream &OS = WithColor::warning(errs(), ToolName);
      OS << "device link '";
      printEscapedString(Job.name(), OS);
      OS << "': an image's triple or arch is not a plain name; its work "
            "files are named '"
         << FileName << ".*'\n";
    }
    Expected<PreparedDeviceLink> Link =
        prepareDeviceLink(Job, Work.Host, Opts, Dir, Work.EveryLibrary);
    if (!Link)
      return Link.takeError();
    if (Opts.Verbose || Opts.DryRun) {
      std::string What = "device link " + Job.name() + " (" +
                         std::to_string(Job.Images.size()) + " images)";
      for (const DeviceLinkCommand &Command : Link->commands())
        printCommand(What, Command.Args, Command.Program);
    }
    Links.push_back(std::move(*Link));
  }
  if (Cache) {
    Pass P("device-link cache lookup", Opts.Verbose);
    lookUpDeviceLinks(*Cache, Links, Dir, Opts, [&] {
      std::vector<RegistrationKey> Keys;
      if (readsEveryImage(CL) && !Opts.DryRun)
        return Keys;
      Keys = registrationKeys(
          Links, Work.Host.HostTriple,
          registrationSettings(CL, Work, Cache, /*Warnings=*/nullptr));
      // A dry run says what each device link would find: its image, but
      // nvcc's code, kept only in its registration object.
      if (Opts.DryRun)
        llvm::erase_if(Keys, [](const RegistrationKey &Object) {
          return llvm::none_of(Object.Links, [](const PreparedDeviceLink *L) {
            return L->linksNvccModules();
          });
        });
      return Keys;
    });
  }
  // The images of the links that run (kept with --offload-save-temps);
  // those the cache has are never written, and what it has of their
  // outputs only for a tool that reads files, or to be kept.
  if (!Opts.DryRun)
    for (PreparedDeviceLink &Link : Links) {
      if (!Link.Cached)
        if (Error E = Link.checkBitcodeInputs())
          return std::move(E);
      if (!Link.Cached || Opts.SaveTemps)
        if (Error E = Link.writeInputs())
          return std::move(E);
      if (Opts.SaveTemps)
        if (Error E = Link.writeOutput())
          return std::move(E);
    }
  return std::move(Links);
}

/// Sends the images of \p Links that were linked here, and that \p Pick
/// picks, to the server, if there is one.
static void
uploadDeviceLinks(DeviceLinkCache &Cache, ArrayRef<PreparedDeviceLink> Links,
                  function_ref<bool(const PreparedDeviceLink &)> Pick) {
  RemoteCache *Remote = Cache.remote();
  if (!Remote)
    return;
  // With what registration objects left for it.
  std::vector<std::pair<std::string, std::string>> Entries =
      std::move(Cache.PendingUploads);
  Cache.PendingUploads.clear();
  for (const PreparedDeviceLink &Link : Links) {
    if (Link.Cached || Link.CacheKey.empty() || Link.linksNvccModules() ||
        !Pick(Link))
      continue;
    ErrorOr<std::unique_ptr<MemoryBuffer>> Image =
        MemoryBuffer::getFile(Link.Output, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (Image)
      Entries.emplace_back(Link.CacheKey, (*Image)->getBuffer().str());
  }
  Remote->upload(std::move(Entries));
}

void uploadCompleteDeviceLinks(DeviceLinkCache &Cache,
                               ArrayRef<PreparedDeviceLink> Links) {
  uploadDeviceLinks(Cache, Links, [](const PreparedDeviceLink &Link) {
    return !Link.omitsArchives();
  });
}

void keepDeviceLinks(DeviceLinkCache &Cache,
                     ArrayRef<PreparedDeviceLink> Links) {
  // What may have needed an archive is known to be whole now: the
  // registration objects made of such images, and the images.
  for (const auto &[Key, Object] : std::exchange(Cache.KeepIfWhole, {}))
    if (Error E = Cache.storeEither(Key, Object))
      reportWarning(createStringError(
          inconvertibleErrorCode(),
          "cannot keep the registration object " + sys::path::filename(Object) +
              " in the device-link cache '" + Cache.directory() +
              "': " + toString(std::move(E))));
  uploadDeviceLinks(Cache, Links, [](const PreparedDeviceLink &Link) {
    return Link.omitsArchives();
  });
  for (const PreparedDeviceLink &Link : Links)
    if (!Link.Cached && !Link.CacheKey.empty() && !Link.linksNvccModules())
      if (Error E = Cache.store(Link.CacheKey, Link.Output))
        reportWarning(createStringError(
            inconvertibleErrorCode(),
            "cannot keep the image of " + Link.Job->name() +
                " in the device-link cache '" + Cache.directory() +
                "': " + toString(std::move(E))));
  if (Error E = Cache.prune())
    reportWarning(std::move(E));
}

std::vector<std::string> hostLibraries(const LinkCommandLine &CL,
                                       ArrayRef<PreparedDeviceLink> Links) {
  // nvcc's code may need the CUDA device runtime's host part (its module,
  // which nvlink linked from libcudadevrt.a, registers through ours), as
  // nvcc's link always names it.
  if (CL.Relocatable || llvm::none_of(Links, [](const PreparedDeviceLink &L) {
        return L.linksNvccModules();
      }))
    return {};
  SmallString<128> DeviceRuntime(CL.Offload.CudaPath);
  sys::path::append(DeviceRuntime, "lib64", "libcudadevrt.a");
  return {DeviceRuntime.str().str()};
}

Expected<std::vector<std::string>>
registerImages(const LinkCommandLine &CL, const DeviceWork &Work,
               ArrayRef<PreparedDeviceLink> Links, const WorkDir &Dir,
               DeviceLinkCache *Cache, std::vector<std::string> Keep) {
  const OffloadOptions &Opts = CL.Offload;
  // What an earlier round left to keep was not whole.
  if (Cache)
    Cache->KeepIfWhole.clear();
  std::vector<std::string> Warnings;
  RegistrationSettings Settings =
      registrationSettings(CL, Work, Cache, &Warnings);
  for (const std::string &Warning : Warnings)
    errs() << Warning << "\n";
  // A relocatable output that links device code now keeps its own entries
  // section, so that it registers its images and no others (and keeps them
  // by its own script).
  std::vector<std::string> Extra = std::move(Keep);
  if (CL.Relocatable) {
    Expected<RelocatableRegistration> R = planRelocatableRegistration(Links);
    if (!R)
      return R.takeError();
    Expected<std::string> Script = Dir.write("relocatable.lds", R->Script);
    if (!Script)
      return Script.takeError();
    Settings.EntriesSection = R->EntriesSection;
    Extra = {"-T", *Script};
  }

  Expected<RegistrationObjects> Registration = [&] {
    Pass P("registration objects", Opts.Verbose);
    return writeRegistrationObjects(Links, Work.Host.HostTriple, Settings, Dir);
  }();
  if (!Registration)
    return Registration.takeError();
  llvm::append_range(Extra, Registration->Paths);
  llvm::append_range(Extra, hostLibraries(CL, Links));

  // A fat binary of hundreds of MiB between .text and .data would push them
  // apart beyond the +-2 GiB that small-code-model references reach: place
  // large ones after .bss, where nothing refers to them but the wrapper's
  // 64-bit pointer.
  if (!CL.Relocatable &&
      Registration->LargestFatbin >= Opts.LargeFatbinThreshold) {
    Expected<std::string> Script = Dir.write(
        "large-fatbin.lds", "SECTIONS {\n  .hip_fatbin : { *(.hip_fatbin) }\n"
                            "  .nv_fatbin : { *(.nv_fatbin) }\n"
                            "} INSERT AFTER .bss;\n");
    if (!Script)
      return Script.takeError();
    Extra.push_back("-T");
    Extra.push_back(*Script);
  }
  return std::move(Extra);
}

} // namespace offload

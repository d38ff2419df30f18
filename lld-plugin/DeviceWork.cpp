//===- lld-plugin/DeviceWork.cpp - A link's device code and its links -----===//

#include "lld-plugin/DeviceWork.h"

#include "lld-plugin/DeviceLinkCache.h"
#include "lld-plugin/HostLink.h"
#include "lld-plugin/LinkChecks.h"
#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/RegisterImages.h"
#include "lld-plugin/WorkDir.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/WithColor.h"

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
  {
    Pass P("find device code in unused archive members", Opts.Verbose);
    if (Error E = Inputs.addArchiveMembersDeviceCodeNeeds(Opts.ExtractArchs))
      return std::move(E);
  }
  Work.Host = getHostLinkInfo(CL.LLD, Loaded);
  Work.Host.Named = &Named;
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

/// Takes \p Link's image from \p Cache if it is there (on a dry run: says
/// whether it is). A key that cannot be made is a warning: the link runs.
static void lookUpDeviceLink(DeviceLinkCache &Cache, PreparedDeviceLink &Link,
                             const WorkDir &Dir, StringRef Self,
                             const OffloadOptions &Opts) {
  Expected<std::string> Key = Cache.key(Link, Dir, Self);
  if (!Key)
    return reportWarning(Key.takeError());
  Link.CacheKey = *Key;
  Expected<bool> Hit = Cache.fetch(*Key, Link.Output, Opts.DryRun);
  if (!Hit) {
    Link.CacheKey.clear();
    return reportWarning(Hit.takeError());
  }
  Link.Cached = *Hit && !Opts.DryRun;
  if (Opts.Verbose || Opts.DryRun)
    errs() << ToolName << ": device-link cache: "
           << (*Hit ? (Opts.DryRun ? "would hit" : "hit")
                    : (Opts.DryRun ? "would miss" : "miss"))
           << " for " << Link.Job->name() << " (key " << shortKey(*Key)
           << ")\n";
}

Expected<std::vector<PreparedDeviceLink>>
prepareDeviceLinks(const LinkCommandLine &CL, const DeviceWork &Work,
                   const WorkDir &Dir, StringRef Self, DeviceLinkCache *Cache) {
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
      // An NVPTX link with LTO is ours: its steps, one line each.
      if (Link->NVPTX)
        for (const NVPTXLinkRequest::Step &Step : Link->NVPTX->steps())
          printCommand(What, Step.Args, Step.Program);
      else
        printCommand(What, Link->Args,
                     Link->Program.empty() ? StringRef("ld.lld")
                                           : StringRef(Link->Program));
    }
    Links.push_back(std::move(*Link));
  }
  if (Cache) {
    Pass P("device-link cache lookup", Opts.Verbose);
    for (PreparedDeviceLink &Link : Links)
      lookUpDeviceLink(*Cache, Link, Dir, Self, Opts);
  }
  return std::move(Links);
}

void keepDeviceLinks(DeviceLinkCache &Cache,
                     ArrayRef<PreparedDeviceLink> Links) {
  for (const PreparedDeviceLink &Link : Links)
    if (!Link.Cached && !Link.CacheKey.empty())
      if (Error E = Cache.store(Link.CacheKey, Link.Output))
        reportWarning(createStringError(
            inconvertibleErrorCode(),
            "cannot keep the image of " + Link.Job->name() +
                " in the device-link cache '" + Cache.directory() +
                "': " + toString(std::move(E))));
  if (Error E = Cache.prune())
    reportWarning(std::move(E));
}

Expected<std::vector<std::string>>
registerImages(const LinkCommandLine &CL, const DeviceWork &Work,
               ArrayRef<PreparedDeviceLink> Links, const WorkDir &Dir,
               DeviceLinkCache *Cache, std::vector<std::string> Keep) {
  const OffloadOptions &Opts = CL.Offload;
  RegistrationSettings Settings;
  // clang's pipeline bundles as clang-offload-bundler's environment says
  // (OFFLOAD_BUNDLER_COMPRESS=1, ..._COMPRESSION_LEVEL, ...): so do we, but
  // for what our options set otherwise than by default.
  BundlerEnvironment Env = readBundlerEnvironment();
  for (const std::string &Warning : Env.Warnings)
    errs() << Warning << "\n";
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

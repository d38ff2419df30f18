//===- ld.lld-offload.cpp - LLD with an offload extension -----------------===//
//
// ld.lld's command line, and the link it asks for, plus the device code the
// inputs carry: each pass below is one step of the link, in order.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/BackgroundArchiveScan.h"
#include "lld-plugin/DependencyFile.h"
#include "lld-plugin/DeviceInputs.h"
#include "lld-plugin/DeviceLink.h"
#include "lld-plugin/DeviceLinkCache.h"
#include "lld-plugin/DevicePlan.h"
#include "lld-plugin/InputGate.h"
#include "lld-plugin/LinkChecks.h"
#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/LinkOptions.h"
#include "lld-plugin/NVPTXLink.h"
#include "lld-plugin/RegisterImages.h"
#include "lld-plugin/ResourceUsage.h"
#include "lld-plugin/RunLLD.h"
#include "lld-plugin/WorkDir.h"
#include "support/CleanupGuard.h"
#include "support/CrashReport.h"
#include "support/MappedFileFaults.h"

#include "lld/Common/Filesystem.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Jobserver.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <future>
#include <signal.h>
#include <sys/prctl.h>

using namespace llvm;
using namespace offload;

static const char *ToolName = "ld.lld-offload";

namespace {

/// Times one pass: into the time trace when one is recorded, and onto
/// stderr under --offload-verbose.
class Pass {
public:
  Pass(StringRef Name, bool Verbose)
      : Name(Name), Verbose(Verbose), Scope("Offload: " + Name.str()),
        Start(std::chrono::steady_clock::now()) {}
  ~Pass() {
    if (!Verbose)
      return;
    auto Elapsed = std::chrono::steady_clock::now() - Start;
    errs() << ToolName << ": " << Name << ": "
           << format("%.1f",
                     std::chrono::duration<double, std::milli>(Elapsed).count())
           << " ms\n";
  }

private:
  StringRef Name;
  bool Verbose;
  TimeTraceScope Scope;
  std::chrono::steady_clock::time_point Start;
};

/// --time-trace covers the whole link, ours and LLD's passes alike: the
/// options are taken from LLD, the profiler runs here, and LLD's own scopes
/// record into it.
struct TimeTrace {
  bool Enabled = false;
  unsigned Granularity = 500;
  std::string File;
};

TimeTrace takeTimeTraceOptions(std::vector<std::string> &LLDArgs) {
  TimeTrace T;
  llvm::erase_if(LLDArgs, [&](const std::string &A) {
    StringRef Arg = StringRef(A).ltrim('-');
    if (Arg == "time-trace")
      return T.Enabled = true;
    if (Arg.consume_front("time-trace=") ||
        Arg.consume_front("time-trace-file=")) {
      T.File = Arg.str();
      return T.Enabled = true;
    }
    if (Arg.consume_front("time-trace-granularity="))
      return !Arg.getAsInteger(10, T.Granularity);
    return false;
  });
  return T;
}

void printCommand(StringRef What, ArrayRef<std::string> Args,
                  StringRef Program = "ld.lld") {
  errs() << ToolName << ": " << What << ": " << Program;
  for (const std::string &Arg : Args) {
    errs() << ' ';
    sys::printArg(errs(), Arg, /*Quote=*/true);
  }
  errs() << '\n';
}

int fail(Error E) {
  logAllUnhandledErrors(std::move(E), WithColor::error(errs(), ToolName));
  return 1;
}

/// True if the command line asks LLD for --trace (-t) itself.
bool asksForTrace(ArrayRef<std::string> LLDArgs) {
  return llvm::any_of(LLDArgs, [](StringRef Arg) {
    return Arg == "-t" || Arg == "--trace" || Arg == "-trace";
  });
}

/// With --offload-save-temps, what LLD said of the archives it searched.
void keepArchiveStats(const LinkCommandLine &CL, const WorkDir &Dir,
                      const LoadedInputs &Loaded) {
  if (!CL.Offload.SaveTemps)
    return;
  Expected<std::string> Kept =
      Dir.write("archive-stats.txt", Loaded.ArchiveStats);
  if (!Kept)
    logAllUnhandledErrors(Kept.takeError(),
                          WithColor::warning(errs(), ToolName));
}

/// The host link as asked for, plus \p Extra. With \p Trace, LLD also
/// reports what the link loads (traceArguments()): into \p Loaded, inputs
/// under \p Dir (ours) left out, and LLD's standard output is printed only
/// if the command line asked for the trace itself. LLD's messages go to
/// \p Messages, or errs(); with \p Messages, a fatal error of LLD returns
/// here rather than end the process (they are held there).
int linkHost(const LinkCommandLine &CL, ArrayRef<std::string> Extra,
             const WorkDir *Trace = nullptr, LoadedInputs *Loaded = nullptr,
             raw_ostream *Messages = nullptr) {
  raw_ostream &Err = Messages ? *Messages : errs();
  std::vector<std::string> Args = CL.LLDArgs;
  llvm::append_range(Args, Extra);
  // The host link is the process's last: its state is left to the exit.
  auto Run = [&](raw_ostream &Out) {
    return Messages ? runLLDRecovering(Args, Out, Err, AfterLink::Keep)
                    : runLLD(Args, Out, Err, AfterLink::Keep);
  };
  if (CL.Offload.Verbose || CL.Offload.DryRun)
    printCommand("host link", Args);
  if (CL.Offload.DryRun)
    return 0;
  setCrashPhase("in the host link");
  if (!Trace)
    return Run(outs());
  ArchiveStats Stats(Trace->path("archive-stats.txt"));
  llvm::append_range(Args, traceArguments(Stats));
  std::string Out;
  raw_string_ostream OutOS(Out);
  int Status = Run(OutOS);
  *Loaded = readLoadedInputs(Out, Stats.read(), Trace->dir() + "/");
  keepArchiveStats(CL, *Trace, *Loaded);
  if (asksForTrace(CL.LLDArgs))
    outs() << Out;
  return Status;
}

/// What LLD prints for an informational command line (--version, --help),
/// with what is ours added (LinkOptions' printInfo()).
int printInfo(const LinkCommandLine &CL) {
  std::string Out;
  raw_string_ostream OS(Out);
  int Status = runLLD(CL.LLDArgs, OS, errs());
  offload::printInfo(outs(), Out, CL.Help);
  return Status;
}

/// The device code of a link's loaded inputs and the links it asks for.
struct DeviceWork {
  std::unique_ptr<DeviceInputs> Inputs = std::make_unique<DeviceInputs>();
  std::vector<DeviceLinkJob> Jobs;
  HostLinkInfo Host;
  /// Everything the device links and the registration are made of: equal
  /// descriptions, equal links.
  std::string Description;
  /// CPU device links take every host library, static archives included.
  bool EveryLibrary = false;
};

/// Finds the device code in the \p Loaded inputs, plus what it needs from
/// archive members the host left out, and groups it into device links.
Expected<DeviceWork> findDeviceWork(const LinkCommandLine &CL,
                                    const LoadedInputs &Loaded,
                                    const LinkInputs &Named) {
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
  Work.Host = getHostLinkInfo(CL.LLDArgs, Loaded);
  Work.Host.Named = &Named;
  raw_string_ostream OS(Work.Description);
  for (const DeviceImage &Image : Inputs.images())
    OS << "image " << Image.Where << "\n";
  for (const std::string &Unit : Inputs.hipFatbinUnits())
    OS << "hip unit " << Unit << "\n";
  if (std::optional<std::string> By = Inputs.alreadyRegisteredBy())
    OS << "registered by " << *By << "\n";
  OS << "calls registration " << Inputs.callsOpenMPRegistration() << "\n";
  for (const std::string &Lib : Work.Host.Libraries)
    OS << "library " << Lib << "\n";
  if (Inputs.images().empty() && Inputs.hipFatbinUnits().empty())
    return std::move(Work);
  // Refuse what cannot be linked before any work is done.
  Expected<std::vector<DeviceLinkJob>> Jobs =
      planDeviceLinks(Inputs.images(), Inputs.hipFatbinUnits());
  if (!Jobs)
    return Jobs.takeError();
  Work.Jobs = std::move(*Jobs);
  return std::move(Work);
}

/// Asks LLD what the link loads, for \p Why, into \p Loaded: 0, or the
/// status of a host link that fails (LLD's messages said).
int askLLD(const LinkCommandLine &CL, const WorkDir &Dir, StringRef Why,
           LoadedInputs &Loaded) {
  if (CL.Offload.Verbose)
    errs() << ToolName << ": asking LLD what the link loads (" << Why << ")\n";
  Pass P("ask LLD what the link loads", CL.Offload.Verbose);
  setCrashPhase("while asking LLD what the link loads");
  Expected<LoadedInputs> Probed = traceLoadedInputs(CL.LLDArgs, Dir.dir());
  // A host link that fails fails here: say what LLD said, as ld.lld would.
  if (!Probed) {
    errs() << toString(Probed.takeError()) << "\n";
    return 1;
  }
  Loaded = std::move(*Probed);
  keepArchiveStats(CL, Dir, Loaded);
  return 0;
}

/// Says what the options that name a triple or a runtime miss for
/// \p Work, each once in a link (\p Said).
Error warnAboutOptions(const LinkCommandLine &CL, const DeviceWork &Work,
                       StringSet<> &Said) {
  Expected<std::vector<std::string>> Warnings = checkLinkOptions(CL, Work.Jobs);
  if (!Warnings)
    return Warnings.takeError();
  for (const std::string &Warning : *Warnings)
    if (Said.insert(Warning).second)
      WithColor::warning(errs(), ToolName) << Warning << "\n";
  return Error::success();
}

/// What keeps the inputs' offload entries, and what they name, as they are
/// in the host link: under --gc-sections, the entries themselves
/// (KeepEntriesScript); under --icf=all, the distinct addresses of the
/// symbols they name (\p Inputs' entryTargets()), which the runtime maps to
/// kernels and variables: two kernels' identical CUDA stubs would be folded
/// into one. Nothing otherwise.
Expected<std::vector<std::string>> keepEntries(const LinkCommandLine &CL,
                                               const WorkDir &Dir,
                                               const DeviceInputs *Inputs) {
  std::vector<std::string> Args;
  if (collectsUnusedSections(CL.LLDArgs)) {
    Expected<std::string> Script =
        Dir.write("keep-entries.lds", KeepEntriesScript);
    if (!Script)
      return Script.takeError();
    Args = {"-T", *Script};
  }
  if (Inputs && foldsAllIdenticalCode(CL.LLDArgs)) {
    const DeviceInputs::EntryTargets &Targets = Inputs->entryTargets();
    StringSet<> Kept;
    for (const std::string &Symbol : Targets.Global)
      if (Kept.insert(Symbol).second)
        Args.push_back("--keep-unique=" + Symbol);
    if (!Targets.Unnamed.empty())
      WithColor::warning(errs(), ToolName)
          << "--icf=all may fold kernels or variables into one address, "
             "which the offload runtime tells apart by address, and "
             "--keep-unique cannot name them: "
          << join(Targets.Unnamed, ", ")
          << "; link with --icf=safe, which leaves them apart\n";
  }
  return std::move(Args);
}

/// How a link with device code ended: LLD's status, or an error of ours.
struct Linked {
  Linked(int Status = 0) : Status(Status) {}
  Linked(Error E) : Status(1), Failure(std::move(E)) {}
  int Status;
  std::optional<Error> Failure;
  /// A device link without the host's static archives needs one: link
  /// again with every library.
  bool Again = false;
  /// The archive members, read beside the links, hold device code after
  /// all: the host link stopped before it read the registration object (or
  /// did not start), and LLD is to be asked what the link loads.
  bool Stopped = false;
};

/// How many times a link may find that its host link loaded other device
/// code than it was linked with before giving up.
constexpr unsigned MaxLinkRounds = 4;

Linked linkError(Error E) { return Linked(std::move(E)); }

/// Takes \p Link's image from \p Cache if it is there (on a dry run: says
/// whether it is). A key that cannot be made is a warning: the link runs.
void lookUpDeviceLink(DeviceLinkCache &Cache, PreparedDeviceLink &Link,
                      const WorkDir &Dir, StringRef Self,
                      const OffloadOptions &Opts) {
  Expected<std::string> Key = Cache.key(Link, Dir, Self);
  if (!Key) {
    logAllUnhandledErrors(Key.takeError(),
                          WithColor::warning(errs(), ToolName));
    return;
  }
  Link.CacheKey = *Key;
  Expected<bool> Hit = Cache.fetch(*Key, Link.Output, Opts.DryRun);
  if (!Hit) {
    Link.CacheKey.clear();
    logAllUnhandledErrors(Hit.takeError(),
                          WithColor::warning(errs(), ToolName));
    return;
  }
  Link.Cached = *Hit && !Opts.DryRun;
  if (Opts.Verbose || Opts.DryRun)
    errs() << ToolName << ": device-link cache: "
           << (*Hit ? (Opts.DryRun ? "would hit" : "hit")
                    : (Opts.DryRun ? "would miss" : "miss"))
           << " for " << Link.Job->name() << " (key " << shortKey(*Key)
           << ")\n";
}

/// Keeps the images of the links that ran in \p Cache, and prunes it. What
/// cannot be kept is a warning.
void keepDeviceLinks(DeviceLinkCache &Cache,
                     ArrayRef<PreparedDeviceLink> Links) {
  for (const PreparedDeviceLink &Link : Links)
    if (!Link.Cached && !Link.CacheKey.empty())
      if (Error E = Cache.store(Link.CacheKey, Link.Output))
        logAllUnhandledErrors(
            createStringError(inconvertibleErrorCode(),
                              "cannot keep the image of " + Link.Job->name() +
                                  " in the device-link cache '" +
                                  Cache.directory() +
                                  "': " + toString(std::move(E))),
            WithColor::warning(errs(), ToolName));
  if (Error E = Cache.prune())
    logAllUnhandledErrors(std::move(E), WithColor::warning(errs(), ToolName));
}

/// The largest registration object worth a pipe (InputGate): a larger one
/// costs more on its way through one than the wait for the archives saves.
constexpr uint64_t MaxGatedObject = 4 << 20;

/// Has the host link wait for \p Pending's archives where it reads the
/// registration object \p Path, and stop there if one holds device code
/// (InputGate). Where that cannot be (the archives are read, the object is
/// large, or no pipe can be made there), waits here instead: then null, and
/// \p Stop says whether to stop.
std::unique_ptr<InputGate> gateOnArchives(BackgroundArchiveScan &Pending,
                                          StringRef Path, bool &Stop) {
  Stop = false;
  uint64_t Size = 0;
  if (!Pending.done() && !sys::fs::file_size(Path, Size) &&
      Size <= MaxGatedObject) {
    Expected<std::unique_ptr<InputGate>> Gate = InputGate::create(
        Path, [&Pending] { return Pending.holdNoDeviceCode(); });
    if (Gate)
      return std::move(*Gate);
    consumeError(Gate.takeError()); // only slower without it
  }
  Stop = !Pending.holdNoDeviceCode();
  return nullptr;
}

/// Links \p Work's device code, builds its registration and links the host
/// with it (and, for OpenMP, the runtime), tracing what the host link loads
/// into \p HostLoaded when not null. With \p Pending, \p Work assumes that
/// the archive members being read hold no device code: the host link waits
/// for them, and stops if they do.
Linked linkWithDeviceCode(const LinkCommandLine &CL, DeviceWork &Work,
                          const WorkDir &Dir, const char *Argv0,
                          DeviceLinkCache *Cache, LoadedInputs *HostLoaded,
                          BackgroundArchiveScan *Pending) {
  const OffloadOptions &Opts = CL.Offload;
  DeviceInputs &Inputs = *Work.Inputs;
  if (Opts.Verbose)
    for (const DeviceImage &Image : Inputs.images())
      errs() << ToolName << ": device image " << describeImage(Image.Image)
             << " in " << Image.Where << "\n";
  const WorkDir *Trace = HostLoaded ? &Dir : nullptr;

  // Without a registration object to wait at, the archive members are
  // waited for here.
  auto Stopped = [] {
    Linked L(1);
    L.Stopped = true;
    return L;
  };
  bool RegistersImages = !Inputs.alreadyRegisteredBy() && !Work.Jobs.empty();
  if (Pending && !RegistersImages && !Pending->holdNoDeviceCode())
    return Stopped();

  // The inputs' offload entries survive --gc-sections (a relocatable output
  // that registers its images keeps them by its own script), and what they
  // name stays distinct under --icf=all.
  Expected<std::vector<std::string>> Keep = keepEntries(CL, Dir, &Inputs);
  if (!Keep)
    return linkError(Keep.takeError());

  // Images already registered by an input (clang-linker-wrapper's wrapper
  // object) or none at all: the host link as it was asked for.
  if (std::optional<std::string> By = Inputs.alreadyRegisteredBy()) {
    if (Opts.Verbose)
      errs() << ToolName << ": " << *By
             << " registers the device images already; linking the host only\n";
    return {linkHost(CL, *Keep, Trace, HostLoaded)};
  }
  // No device code: the host link as asked for, with the runtime if an input
  // registers images (a relocatable output that linked its own, say).
  if (Work.Jobs.empty()) {
    if (Inputs.callsOpenMPRegistration())
      llvm::append_range(*Keep, runtimeArguments(CL));
    return {linkHost(CL, *Keep, Trace, HostLoaded)};
  }

  // Write each job's images out and build its LLD command line.
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
      return linkError(Link.takeError());
    if (Opts.Verbose || Opts.DryRun)
      printCommand("device link " + Job.name() + " (" +
                       std::to_string(Job.Images.size()) + " images)",
                   Link->Args,
                   Link->NVPTXWorker       ? StringRef(NVPTXWorkerFlag)
                   : Link->Program.empty() ? StringRef("ld.lld")
                                           : StringRef(Link->Program));
    Links.push_back(std::move(*Link));
  }
  // Take what the device-link cache has of them; say what it would have on
  // a dry run.
  std::string Self = sys::fs::getMainExecutable(Argv0, (void *)&fail);
  if (Cache) {
    Pass P("device-link cache lookup", Opts.Verbose);
    for (PreparedDeviceLink &Link : Links)
      lookUpDeviceLink(*Cache, Link, Dir, Self, Opts);
  }

  // OpenMP images need the offload runtime in the host link.
  bool LinksOpenMP = llvm::any_of(Work.Jobs, [](const DeviceLinkJob &Job) {
    return Job.Kind == OffloadKind::OpenMP;
  });
  if (Opts.DryRun) {
    std::vector<std::string> Extra = {"<registration object>"};
    if (!CL.Relocatable)
      llvm::append_range(Extra, *Keep);
    if (LinksOpenMP)
      llvm::append_range(Extra, runtimeArguments(CL));
    return {linkHost(CL, Extra)};
  }

  // Link the device images, in parallel when asked.
  {
    Pass P("device links", Opts.Verbose);
    if (Error E = runDeviceLinks(Links, Opts, Self, Dir)) {
      // Planned without the archive members still being read: if one holds
      // device code, it may define what the failed link missed. Plan again
      // with them; the failure is final only once they are known.
      if (Pending && !Pending->holdNoDeviceCode()) {
        consumeError(std::move(E));
        if (Opts.Verbose)
          errs() << ToolName
                 << ": a device link failed before the archive members "
                    "were read; planning again with them\n";
        return Stopped();
      }
      return linkError(std::move(E));
    }
  }

  // Show the linked kernels' resources, when asked.
  auto Warn = [](Error W) {
    logAllUnhandledErrors(std::move(W), WithColor::warning(errs(), ToolName));
  };
  if (Error E = reportResourceUsage(Links, Opts, CL.Output, errs(), Warn))
    return linkError(std::move(E));

  // A relocatable output that links device code now keeps its own entries
  // section, so that it registers its images and no others.
  RegistrationSettings Settings;
  if (Opts.Compress)
    Settings.Compression =
        BundleCompression{compression::Format::Zstd, Opts.CompressionLevel,
                          Opts.CompressionVersion};
  Settings.Relocatable = CL.Relocatable;
  Settings.CudaPath = Opts.CudaPath;
  Settings.HIPFatbinUnits = Inputs.hipFatbinUnits();
  std::vector<std::string> Extra;
  if (CL.Relocatable) {
    Expected<RelocatableRegistration> R = planRelocatableRegistration(Links);
    if (!R)
      return linkError(R.takeError());
    Expected<std::string> Script = Dir.write("relocatable.lds", R->Script);
    if (!Script)
      return linkError(Script.takeError());
    Settings.EntriesSection = R->EntriesSection;
    Extra = {"-T", *Script};
  } else {
    Extra = std::move(*Keep);
  }

  // Build the objects that register the linked images at startup, one per
  // offload kind.
  Expected<RegistrationObjects> Registration = [&] {
    Pass P("registration objects", Opts.Verbose);
    return writeRegistrationObjects(Links, Work.Host.HostTriple, Settings, Dir);
  }();
  if (!Registration)
    return linkError(Registration.takeError());
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
      return linkError(Script.takeError());
    Extra.push_back("-T");
    Extra.push_back(*Script);
  }

  // The host link waits for the archive members at the registration object,
  // and stops there if one holds device code after all.
  std::unique_ptr<InputGate> Gate;
  if (Pending) {
    bool Stop = false;
    Gate = gateOnArchives(*Pending, Registration->Paths.front(), Stop);
    if (Stop)
      return Stopped();
  }

  // Whether a device link left out a static archive it needs: checked
  // beside the host link, which leaves a core idle most of its time; after
  // the archive members, which the host link waits for.
  std::future<bool> ArchivesNeeded;
  if (llvm::any_of(Links, [](const PreparedDeviceLink &Link) {
        return Link.omitsArchives();
      }))
    ArchivesNeeded = std::async(std::launch::async, [&] {
      if (Pending)
        Pending->wait();
      return omittedArchivesNeeded(Links);
    });

  // Link the host with the registration objects and, for OpenMP, the
  // offload runtime.
  if (LinksOpenMP)
    llvm::append_range(Extra, runtimeArguments(CL));
  Linked L;
  {
    Pass P("host link", Opts.Verbose);
    L.Status = linkHost(CL, Extra, Trace, HostLoaded,
                        Gate ? &Gate->messages() : nullptr);
  }
  L.Stopped = Gate && !Gate->finish();
  // A fatal error before LLD got to the gate (a malformed input): LLD cannot
  // be asked again, and what it said is the link's last word.
  if (L.Stopped && !canRunLLDAgain()) {
    errs() << Gate->heldMessages();
    L.Stopped = false;
  }
  L.Again = ArchivesNeeded.valid() && ArchivesNeeded.get();

  // The dependency file names no file of the work directory, gone after
  // the link: build tools would take it for changed and link again. (The
  // output is made: a rule that cannot be rewritten is only a warning.)
  if (L.Status == 0 && !Opts.SaveTemps)
    if (std::optional<std::string> DepFile = dependencyFile(CL.LLDArgs))
      if (Error E = dropFromDependencyFile(*DepFile, Dir.dir()))
        logAllUnhandledErrors(std::move(E),
                              WithColor::warning(errs(), ToolName));

  // Keep what was linked in the cache, unless it is to be linked again.
  if (Cache && L.Status == 0 && !L.Again)
    keepDeviceLinks(*Cache, Links);
  return L;
}

int link(ArrayRef<const char *> Argv) {
  // Split our --offload-* options from LLD's.
  Expected<LinkCommandLine> Parsed =
      parseLinkCommandLine(Argv.drop_front(), LLD_OFFLOAD_RUNTIME_PATH);
  if (!Parsed)
    return fail(Parsed.takeError());
  LinkCommandLine &CL = *Parsed;
  const OffloadOptions &Opts = CL.Offload;

  // Join make's jobserver before this process opens a file of its own: the
  // jobserver's pipe is named by descriptor numbers (MAKEFLAGS), which a
  // file of ours would take where make closed the pipe (a recipe without
  // '+'), and the client would take that file for the pipe.
  if (Opts.UseJobserver)
    (void)JobserverClient::getInstance();

  TimeTrace Trace = takeTimeTraceOptions(CL.LLDArgs);
  if (Trace.Enabled)
    timeTraceProfilerInitialize(Trace.Granularity, ToolName);
  scope_exit WriteTrace([&] {
    if (!Trace.Enabled)
      return;
    if (Error E = timeTraceProfilerWrite(Trace.File, CL.Output))
      fail(std::move(E));
    timeTraceProfilerCleanup();
  });

  // --version, --help, or -v without input files: what LLD prints for
  // them, with our version and options.
  if (CL.InfoOnly || (CL.PrintsVersion && !namesInputFiles(CL.LLDArgs)))
    return printInfo(CL);
  // -v or -V with input files: the version, then the link.
  if (CL.PrintsVersion) {
    outs() << versionLine();
    dropVersionOptions(CL.LLDArgs);
  }

  // Nothing of ours to do: LLD alone, exactly as ld.lld would link. A fat
  // relocatable link keeps device code as it is: LLD merges the sections
  // (keeping the offload entries under --gc-sections, for the link that
  // takes the output). A helper removes LLD's temporary output, and the work
  // directory, if the link is killed.
  if (Opts.Disabled ||
      (CL.Relocatable && Opts.Relocatable == RelocatableMode::Fat)) {
    std::unique_ptr<WorkDir> Dir;
    if (!Opts.Disabled && collectsUnusedSections(CL.LLDArgs)) {
      Expected<std::unique_ptr<WorkDir>> Made =
          WorkDir::create(CL.Output, Opts.SaveTemps);
      if (!Made)
        return fail(Made.takeError());
      Dir = std::move(*Made);
    }
    Expected<std::unique_ptr<CleanupGuard>> Guard = CleanupGuard::start(
        CL.Output, Dir && !Opts.SaveTemps ? StringRef(Dir->dir()) : "");
    if (!Guard)
      return fail(Guard.takeError());
    Expected<std::vector<std::string>> Keep =
        Dir ? keepEntries(CL, *Dir, nullptr) : std::vector<std::string>();
    if (!Keep)
      return fail(Keep.takeError());
    return linkHost(CL, *Keep);
  }

  // Fail now if the output cannot be written, as LLD would at the end, with
  // LLD's words, before the device links have spent their time.
  if (!Opts.DryRun)
    if (std::error_code EC = lld::tryCreateFile(CL.Output))
      return fail(createStringError(EC, "cannot open output file %s: %s",
                                    CL.Output.c_str(), EC.message().c_str()));

  // Somewhere for what LLD reads from files: the probe's report, device
  // images, linked images, the registration object. Gone after the link
  // unless --offload-save-temps. (The guard below outlives it.)
  std::unique_ptr<CleanupGuard> Guard;
  Expected<std::unique_ptr<WorkDir>> Dir =
      WorkDir::create(CL.Output, Opts.SaveTemps);
  if (!Dir)
    return fail(Dir.takeError());

  // A link killed from here on runs no cleanup: a helper removes the work
  // directory and LLD's temporary output if this process ends without
  // saying it is done.
  Expected<std::unique_ptr<CleanupGuard>> Started = CleanupGuard::start(
      CL.Output, Opts.SaveTemps ? StringRef() : StringRef((*Dir)->dir()));
  if (!Started)
    return fail(Started.takeError());
  Guard = std::move(*Started);

  // Read the section tables of the objects the command line names: which
  // may hold device code. Its archives' members are read below.
  LinkInputs Named = [&] {
    Pass P("find the inputs LLD loads", Opts.Verbose);
    return LinkInputs::find(CL.LLDArgs, LinkInputs::Reading::Later);
  }();

  // What the host link loads: the objects the command line names, when no
  // archive member or lazy object holds device code; otherwise LLD's
  // answer, from a probe that stops once symbols are resolved. The host
  // link's own trace checks the answer below, unless there is no host link
  // (a dry run) or its trace would mix with other output on stdout.
  std::optional<std::string> Untraced =
      Opts.DryRun ? std::optional<std::string>("--offload-dry-run")
                  : optionPrintingToStdout(CL.LLDArgs);

  // Read the archive members' section tables: beside the device links and
  // the start of the host link, which waits for them where it reads the
  // registration object (BackgroundArchiveScan); without a host link trace
  // to check, now.
  std::unique_ptr<BackgroundArchiveScan> Pending;
  if (Named.archivesPending() && !Untraced) {
    Pending = std::make_unique<BackgroundArchiveScan>(Named);
  } else if (Named.archivesPending()) {
    Pass P("read the archive members' section tables", Opts.Verbose);
    Named.readPendingArchives();
  }

  // Ask LLD what the link loads, when the inputs named do not tell.
  std::string AskLLD = Untraced ? *Untraced : Named.whyAskLLD();
  LoadedInputs Loaded = Named.commandLineLoads();
  if (!AskLLD.empty())
    if (int Status = askLLD(CL, **Dir, AskLLD, Loaded))
      return Status;

  // The device-link cache, when one is asked for.
  std::unique_ptr<DeviceLinkCache> Cache;
  if (Expected<std::unique_ptr<DeviceLinkCache>> Opened =
          DeviceLinkCache::open(Opts))
    Cache = std::move(*Opened);
  else
    logAllUnhandledErrors(Opened.takeError(),
                          WithColor::warning(errs(), ToolName));

  // Find the device code in them and plan its links.
  Expected<DeviceWork> Work = findDeviceWork(CL, Loaded, Named);
  if (!Work)
    return fail(Work.takeError());

  // Say what the options that name a triple or a runtime miss.
  StringSet<> Warned;
  if (Error E = warnAboutOptions(CL, *Work, Warned))
    return fail(std::move(E));

  // Link the device code, register it and link the host; again if the host
  // link loaded other device code than it was linked with (a linker script's
  // input, a member only the registration pulls in): at most a few rounds.
  for (unsigned Round = 1;; ++Round) {
    LoadedInputs HostLoaded;
    Linked L =
        linkWithDeviceCode(CL, *Work, **Dir, Argv[0], Cache.get(),
                           Untraced ? nullptr : &HostLoaded, Pending.get());
    if (L.Failure)
      return fail(std::move(*L.Failure));

    // The archive members are read: from now on their answer counts.
    if (Pending) {
      double Milliseconds = Pending->addTo(Named);
      Pending.reset();
      if (Opts.Verbose)
        errs() << ToolName
               << ": read the archive members' section tables (beside the "
                  "links): "
               << format("%.1f", Milliseconds) << " ms\n";
    }

    // Some hold device code: the host link stopped before it read the
    // registration object. Ask LLD what the link loads, and start over.
    if (L.Stopped) {
      if (int Status = askLLD(CL, **Dir, Named.whyAskLLD(), Loaded))
        return Status;
      Work = findDeviceWork(CL, Loaded, Named);
      if (!Work)
        return fail(Work.takeError());
      if (Error E = warnAboutOptions(CL, *Work, Warned))
        return fail(std::move(E));
      --Round;
      continue;
    }
    if (L.Status != 0)
      return L.Status;

    // Nothing traced to check (a dry run, say): the work as planned, with
    // every library if a CPU device link needs one.
    if (Untraced) {
      if (!L.Again || Round == MaxLinkRounds)
        return 0;
      Work->EveryLibrary = true;
      continue;
    }

    // Check the device code of what the host link loaded.
    Expected<DeviceWork> Next = [&] {
      Pass P("check what the host link loaded", Opts.Verbose);
      return findDeviceWork(CL, HostLoaded, Named);
    }();
    if (!Next)
      return fail(Next.takeError());
    bool Changed = Next->Description != Work->Description;
    if (!Changed && !L.Again)
      return 0;
    if (Round == MaxLinkRounds)
      return fail(createStringError(
          inconvertibleErrorCode(),
          "the inputs the host link loads change with its device code: "
          "after %u links it still loads other device code than it was "
          "linked with",
          Round));
    if (Opts.Verbose && Changed)
      errs() << ToolName
             << ": the host link loaded other device code than planned; "
                "linking again\n";
    if (Opts.Verbose && L.Again)
      errs() << ToolName
             << ": a CPU device link needs a static archive of the host "
                "link; linking again with every library\n";
    Next->EveryLibrary = Work->EveryLibrary || L.Again;
    Work = std::move(Next);
  }
}

} // namespace

/// A worker dies with the link that started it, rather than go on writing
/// into a work directory that is being removed; also when that link died
/// before the worker got here.
static void dieWithParent() {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char *Parent = getenv(WorkerParentVar);
  if (Parent && std::to_string(getppid()) != Parent)
    _exit(1);
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  // A full disk under a memory-mapped output is an error, not a crash.
  reportMappedFileFaults(ToolName);
  // A crash in LLD, in any of its threads, is an error that says where.
  reportCrashes(ToolName);
  bool Worker = Argc > 1 && (StringRef(Argv[1]) == WorkerFlag ||
                             StringRef(Argv[1]) == NVPTXWorkerFlag);
  if (Worker)
    dieWithParent();
  // A parallel device link runs here, in a worker process of its own.
  if (Argc > 1 && StringRef(Argv[1]) == WorkerFlag) {
    std::vector<std::string> Args(Argv + 2, Argv + Argc);
    return runLLD(Args, outs(), errs());
  }
  // A parallel NVPTX link with LTO, likewise.
  if (Argc > 1 && StringRef(Argv[1]) == NVPTXWorkerFlag) {
    std::vector<std::string> Args(Argv + 2, Argv + Argc);
    Expected<NVPTXLinkRequest> Request = NVPTXLinkRequest::fromArgs(Args);
    Error E = Request ? linkNVPTX(*Request) : Request.takeError();
    if (!E)
      return 0;
    WithColor::error(errs(), ToolName) << toString(std::move(E)) << "\n";
    return 1;
  }
  int Status = link(ArrayRef<const char *>(Argv, Argc));
  // The link is done and what it made is in place: end as ld.lld ends,
  // without freeing LLD's state (destructors of its threads' allocations,
  // 10-20 ms of a large link), which the exit frees whole; LLVM's reports
  // at shutdown (-time-passes) still printed. Sanitizer builds end as
  // programs do, so that leaks are still looked for.
#if !LLVM_ADDRESS_SANITIZER_BUILD
  llvm_shutdown();
  outs().flush();
  errs().flush();
  sys::Process::Exit(Status, /*NoCleanup=*/true);
#endif
  return Status;
}

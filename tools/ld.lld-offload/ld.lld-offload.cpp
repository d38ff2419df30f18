//===- ld.lld-offload.cpp - LLD with an offload extension -----------------===//
//
// ld.lld's command line, and the link it asks for, plus the device code the
// inputs carry: each pass below is one step of the link, in order.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DeviceInputs.h"
#include "lld-plugin/DeviceLink.h"
#include "lld-plugin/DevicePlan.h"
#include "lld-plugin/LinkOptions.h"
#include "lld-plugin/NVPTXLink.h"
#include "lld-plugin/RegisterImages.h"
#include "lld-plugin/RunLLD.h"
#include "lld-plugin/WorkDir.h"
#include "support/CleanupGuard.h"
#include "support/MappedFileFaults.h"

#include "lld/Common/Filesystem.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
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

/// The host link as asked for, plus \p Extra.
int linkHost(const LinkCommandLine &CL, ArrayRef<std::string> Extra) {
  std::vector<std::string> Args = CL.LLDArgs;
  llvm::append_range(Args, Extra);
  if (CL.Offload.Verbose || CL.Offload.DryRun)
    printCommand("host link", Args);
  if (CL.Offload.DryRun)
    return 0;
  return runLLD(Args, outs(), errs());
}

/// The OpenMP offload runtime for a final link whose command line lacks it,
/// searched last in the LLVM library directory.
std::vector<std::string> runtimeArguments(const LinkCommandLine &CL) {
  if (CL.Relocatable || linksOffloadRuntime(CL.LLDArgs))
    return {};
  return {"--push-state", "-Bdynamic", "-L" + CL.Offload.RuntimePath,
          "-lomptarget", "--pop-state"};
}

int link(ArrayRef<const char *> Argv) {
  // Split our --offload-* options from LLD's.
  Expected<LinkCommandLine> Parsed =
      parseLinkCommandLine(Argv.drop_front(), LLD_OFFLOAD_RUNTIME_PATH);
  if (!Parsed)
    return fail(Parsed.takeError());
  LinkCommandLine &CL = *Parsed;
  const OffloadOptions &Opts = CL.Offload;
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

  if (CL.Help) {
    int Status = linkHost(CL, {});
    printOffloadHelp(outs());
    return Status;
  }
  if (CL.InfoOnly)
    return linkHost(CL, {});

  // Nothing of ours to do: LLD alone, exactly as ld.lld would link. A fat
  // relocatable link keeps device code as it is: LLD merges the sections.
  // A helper removes LLD's temporary output if the link is killed.
  if (Opts.Disabled ||
      (CL.Relocatable && Opts.Relocatable == RelocatableMode::Fat)) {
    Expected<std::unique_ptr<CleanupGuard>> Guard =
        CleanupGuard::start(CL.Output, "");
    if (!Guard)
      return fail(Guard.takeError());
    return linkHost(CL, {});
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

  // Ask LLD which files and archive members this link loads.
  Expected<LoadedInputs> Loaded = [&] {
    Pass P("find the inputs LLD loads", Opts.Verbose);
    return traceLoadedInputs(CL.LLDArgs, (*Dir)->path("archive-stats.txt"));
  }();
  // A host link that fails fails here: say what LLD said, as ld.lld would.
  if (!Loaded) {
    errs() << toString(Loaded.takeError()) << "\n";
    return 1;
  }

  // Find the device code in them.
  DeviceInputs Inputs;
  {
    Pass P("find device code", Opts.Verbose);
    if (Error E = Inputs.scanLoadedInputs(*Loaded))
      return fail(std::move(E));
  }

  // Add what device code needs from archive members the host left out.
  {
    Pass P("find device code in unused archive members", Opts.Verbose);
    if (Error E = Inputs.addArchiveMembersDeviceCodeNeeds(Opts.ExtractArchs))
      return fail(std::move(E));
  }
  if (Opts.Verbose)
    for (const DeviceImage &Image : Inputs.images())
      errs() << ToolName << ": device image " << describeImage(Image.Image)
             << " in " << Image.Where << "\n";

  // Images already registered by an input (clang-linker-wrapper's wrapper
  // object) or none at all: the host link as it was asked for.
  if (std::optional<std::string> By = Inputs.alreadyRegisteredBy()) {
    if (Opts.Verbose)
      errs() << ToolName << ": " << *By
             << " registers the device images already; linking the host only\n";
    return linkHost(CL, {});
  }
  // No device code: the host link as asked for, with the runtime if an input
  // registers images (a relocatable output that linked its own, say).
  if (Inputs.images().empty() && Inputs.hipFatbinUnits().empty())
    return linkHost(CL, Inputs.callsOpenMPRegistration()
                            ? runtimeArguments(CL)
                            : std::vector<std::string>());

  // Group the images into device links, refusing what cannot be linked
  // before any work is done.
  Expected<std::vector<DeviceLinkJob>> Jobs =
      planDeviceLinks(Inputs.images(), Inputs.hipFatbinUnits());
  if (!Jobs)
    return fail(Jobs.takeError());

  // Write each job's images out and build its LLD command line.
  HostLinkInfo Host = getHostLinkInfo(CL.LLDArgs, *Loaded);
  std::vector<PreparedDeviceLink> Links;
  for (const DeviceLinkJob &Job : *Jobs) {
    Expected<PreparedDeviceLink> Link =
        prepareDeviceLink(Job, Host, Opts, **Dir);
    if (!Link)
      return fail(Link.takeError());
    if (Opts.Verbose || Opts.DryRun)
      printCommand("device link " + Job.name() + " (" +
                       std::to_string(Job.Images.size()) + " images)",
                   Link->Args,
                   Link->NVPTXWorker       ? StringRef(NVPTXWorkerFlag)
                   : Link->Program.empty() ? StringRef("ld.lld")
                                           : StringRef(Link->Program));
    Links.push_back(std::move(*Link));
  }
  // OpenMP images need the offload runtime in the host link.
  bool LinksOpenMP = llvm::any_of(*Jobs, [](const DeviceLinkJob &Job) {
    return Job.Kind == OffloadKind::OpenMP;
  });
  if (Opts.DryRun) {
    std::vector<std::string> Extra = {"<registration object>"};
    if (LinksOpenMP)
      llvm::append_range(Extra, runtimeArguments(CL));
    return linkHost(CL, Extra);
  }

  // Link the device images, in parallel when asked.
  {
    Pass P("device links", Opts.Verbose);
    std::string Self = sys::fs::getMainExecutable(Argv[0], (void *)&fail);
    if (Error E = runDeviceLinks(Links, Opts, Self, **Dir))
      return fail(std::move(E));
  }

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
      return fail(R.takeError());
    Expected<std::string> Script = (*Dir)->write("relocatable.lds", R->Script);
    if (!Script)
      return fail(Script.takeError());
    Settings.EntriesSection = R->EntriesSection;
    Extra = {"-T", *Script};
  }

  // Build the objects that register the linked images at startup, one per
  // offload kind.
  Expected<RegistrationObjects> Registration = [&] {
    Pass P("registration objects", Opts.Verbose);
    return writeRegistrationObjects(Links, Host.HostTriple, Settings, **Dir);
  }();
  if (!Registration)
    return fail(Registration.takeError());
  llvm::append_range(Extra, Registration->Paths);

  // A fat binary of hundreds of MiB between .text and .data would push them
  // apart beyond the +-2 GiB that small-code-model references reach: place
  // large ones after .bss, where nothing refers to them but the wrapper's
  // 64-bit pointer.
  if (!CL.Relocatable &&
      Registration->LargestFatbin >= Opts.LargeFatbinThreshold) {
    Expected<std::string> Script = (*Dir)->write(
        "large-fatbin.lds", "SECTIONS {\n  .hip_fatbin : { *(.hip_fatbin) }\n"
                            "  .nv_fatbin : { *(.nv_fatbin) }\n"
                            "} INSERT AFTER .bss;\n");
    if (!Script)
      return fail(Script.takeError());
    Extra.push_back("-T");
    Extra.push_back(*Script);
  }

  // Link the host with the registration objects and, for OpenMP, the
  // offload runtime.
  if (LinksOpenMP)
    llvm::append_range(Extra, runtimeArguments(CL));
  Pass P("host link", Opts.Verbose);
  return linkHost(CL, Extra);
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
  return link(ArrayRef<const char *>(Argv, Argc));
}

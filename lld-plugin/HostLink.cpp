//===- lld-plugin/HostLink.cpp - The host link and LLD's answers ----------===//

#include "lld-plugin/HostLink.h"

#include "lld-plugin/DeviceInputs.h"
#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/RegisterImages.h"
#include "support/CrashReport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace offload {

int reportError(Error E) {
  logAllUnhandledErrors(std::move(E), WithColor::error(errs(), ToolName));
  return 1;
}

void reportWarning(Error E) {
  logAllUnhandledErrors(std::move(E), WithColor::warning(errs(), ToolName));
}

void printCommand(StringRef What, ArrayRef<std::string> Args,
                  StringRef Program) {
  errs() << ToolName << ": " << What << ": " << Program;
  for (const std::string &Arg : Args) {
    errs() << ' ';
    sys::printArg(errs(), Arg, /*Quote=*/true);
  }
  errs() << '\n';
}

Pass::Pass(StringRef Name, bool Verbose)
    : Name(Name), Verbose(Verbose), Scope("Offload: " + Name.str()),
      Start(std::chrono::steady_clock::now()) {}

Pass::~Pass() {
  if (!Verbose)
    return;
  auto Elapsed = std::chrono::steady_clock::now() - Start;
  errs() << ToolName << ": " << Name << ": "
         << format("%.1f",
                   std::chrono::duration<double, std::milli>(Elapsed).count())
         << " ms\n";
}

TimeTrace::TimeTrace(LinkCommandLine &CL) : Output(CL.Output) {
  TimeTraceRequest Request = CL.LLD.timeTrace();
  if (!Request.Enabled)
    return;
  Enabled = true;
  File = Request.File;
  CL.LLD = CL.LLD.withoutTimeTrace();
  timeTraceProfilerInitialize(Request.Granularity, ToolName);
}

TimeTrace::~TimeTrace() {
  if (!Enabled)
    return;
  if (Error E = timeTraceProfilerWrite(File, Output))
    reportError(std::move(E));
  timeTraceProfilerCleanup();
}

/// With --offload-save-temps, what LLD said of the archives it searched.
static void keepArchiveStats(const LinkCommandLine &CL, const WorkDir &Dir,
                             const LoadedInputs &Loaded) {
  if (!CL.Offload.SaveTemps)
    return;
  Expected<std::string> Kept =
      Dir.write("archive-stats.txt", Loaded.ArchiveStats);
  if (!Kept)
    reportWarning(Kept.takeError());
}

int linkHost(LLDSession &Session, const LinkCommandLine &CL,
             ArrayRef<std::string> Extra, const WorkDir *Dir,
             LoadedInputs *Traced, raw_ostream &Err) {
  std::vector<std::string> Args = CL.LLD.args();
  llvm::append_range(Args, Extra);
  if (CL.Offload.Verbose || CL.Offload.DryRun)
    printCommand("host link", Args);
  if (CL.Offload.DryRun)
    return 0;
  setCrashPhase("in the host link");
  // The host link is the process's last: its state is left to the exit.
  if (!Traced)
    return Session.run(Args, outs(), Err, AfterLink::Keep);
  ArchiveStats Stats(Dir->path("archive-stats.txt"));
  llvm::append_range(Args, traceArguments(Stats));
  std::string Out;
  raw_string_ostream OutOS(Out);
  int Status = Session.run(Args, OutOS, Err, AfterLink::Keep);
  *Traced = readLoadedInputs(Out, Stats.read(), Dir->dir() + "/");
  keepArchiveStats(CL, *Dir, *Traced);
  if (CL.LLD.asksForTrace())
    outs() << Out;
  return Status;
}

int printInfo(LLDSession &Session, const LinkCommandLine &CL) {
  std::string Out;
  raw_string_ostream OS(Out);
  int Status = Session.run(CL.LLD.args(), OS, errs());
  printInfo(outs(), Out, CL.Help);
  return Status;
}

Expected<LoadedInputs> askLLD(LLDSession &Session, const LinkCommandLine &CL,
                              const WorkDir &Dir, StringRef Why) {
  if (CL.Offload.Verbose)
    errs() << ToolName << ": asking LLD what the link loads (" << Why << ")\n";
  Pass P("ask LLD what the link loads", CL.Offload.Verbose);
  setCrashPhase("while asking LLD what the link loads");
  Expected<LoadedInputs> Loaded = traceLoadedInputs(Session, CL.LLD, Dir.dir());
  if (Loaded)
    keepArchiveStats(CL, Dir, *Loaded);
  return Loaded;
}

Expected<std::vector<std::string>> keepEntries(const LinkCommandLine &CL,
                                               const WorkDir &Dir,
                                               const DeviceInputs *Inputs) {
  std::vector<std::string> Args;
  if (CL.LLD.collectsUnusedSections()) {
    Expected<std::string> Script =
        Dir.write("keep-entries.lds", KeepEntriesScript);
    if (!Script)
      return Script.takeError();
    Args = {"-T", *Script};
  }
  if (Inputs && CL.LLD.foldsAllIdenticalCode()) {
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

} // namespace offload

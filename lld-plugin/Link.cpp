//===- lld-plugin/Link.cpp - A link, host and device code ----------------===//
//
// A link is a list of passes (link(), below): plan from what is known, link
// the device code, register it, link the host, check what was found, and
// link again only if a check says so. What is known at first may be
// wrong in two ways, each checked once its answer is there:
//   - the host link loaded other device code than planned (a linker
//     script's input, a member only the registration pulls in);
//   - a CPU device link, run without the host's static archives, needs one.
// With the device-link cache on, what is known may also be what the last
// link of the same command line loaded (LastLoaded.h): a guess, checked as
// any plan is, and dropped for LLD's answer if it fails.
// The checks record what they found (Findings); decide() says what follows
// (Verdict). A dry run, or a link whose host link cannot be traced, is the
// same list with the host link's check left out.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/Link.h"

#include "lld-plugin/DependencyFile.h"
#include "lld-plugin/DeviceLinkCache.h"
#include "lld-plugin/DeviceLinkDistributor.h"
#include "lld-plugin/DeviceWork.h"
#include "lld-plugin/HostLink.h"
#include "lld-plugin/LastLoaded.h"
#include "lld-plugin/LinkChecks.h"
#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/ResourceUsage.h"
#include "support/CleanupGuard.h"

#include "lld/Common/Filesystem.h"

#include "llvm/Support/MemoryBuffer.h"

#include <future>

using namespace llvm;

namespace offload {
namespace {

/// Where the plan of a link came from.
enum class PlanSource {
  /// The objects the command line names: nothing else holds device code.
  CommandLine,
  /// LLD, asked what the link loads.
  LLD,
  /// What the last link of this command line loaded (a guess).
  LastLink,
  /// What the host link loaded.
  HostLink,
};

/// Everything the passes of one link share.
struct LinkState {
  LinkState(LLDSession &Session, const LinkCommandLine &CL, const WorkDir &Dir,
            StringRef Self)
      : Session(Session), CL(CL), Opts(CL.Offload), Dir(Dir),
        Self(Self.str()) {}
  LLDSession &Session;
  const LinkCommandLine &CL;
  const OffloadOptions &Opts;
  const WorkDir &Dir;
  std::string Self;
  /// What the command line names, and what its section tables say.
  LinkInputs Named;
  /// Whether the host link's --trace checks the plan: not on a dry run
  /// (no host link), nor when LLD prints what the trace would mix with.
  bool Traced = false;
  /// Why the command line alone does not say what the link loads.
  std::string AskLLD;
  std::unique_ptr<DeviceLinkCache> Cache;
  /// Where device links that miss the cache are sent, if anywhere.
  std::optional<DeviceLinkDistributor> Distributor;
  /// The key under which the cache remembers what this command line loads,
  /// when it may.
  std::string LastLoadedKey;
  PlanSource Source = PlanSource::CommandLine;
  /// The warnings said so far, each once in a link.
  StringSet<> Warned;
  DeviceWork Work;
};

/// What the checks of one round found.
struct Findings {
  /// LLD's status, or 1 after an error of ours (said).
  int Status = 0;
  /// A CPU device link left out a static archive it needs.
  bool DeviceLinkNeedsArchive = false;
  /// What the host link loaded, when it was traced.
  std::optional<LoadedInputs> HostLoaded;
  /// A member with device code that only the registration or the runtime
  /// took (checked of a plan from the last link only).
  bool RegistrationTookDeviceCode = false;
  /// LLD's messages, held back while the plan is the last link's: said if
  /// it holds, else dropped with the link.
  std::string HeldMessages;
};

/// What follows a round.
enum class Verdict {
  Done,
  /// Plan again from what the host link loaded.
  PlanAgain,
  /// Link again, CPU device links with every host library.
  EveryLibrary,
  /// The last link's plan does not hold: plan from LLD's answer.
  AskLLD,
};

/// How many times a link may link again before giving up.
constexpr unsigned MaxLinkRounds = 4;

/// A round that failed with \p E (said).
Findings failed(Error E) {
  Findings F;
  F.Status = reportError(std::move(E));
  return F;
}

/// Plans from \p Loaded, what the host link loads, which \p Source says:
/// 0, or the status of a link that cannot be planned (said).
int plan(LinkState &S, const LoadedInputs &Loaded, PlanSource Source) {
  Expected<DeviceWork> Work = findDeviceWork(S.CL, Loaded, S.Named, S.Warned);
  if (!Work)
    return reportError(Work.takeError());
  S.Work = std::move(*Work);
  S.Source = Source;
  return 0;
}

/// Plans from what LLD says the link loads, asked for the reason \p Why.
/// A host link that fails fails here: LLD's messages say why, as ld.lld
/// says them.
int planFromLLD(LinkState &S, StringRef Why) {
  Expected<LoadedInputs> Loaded = askLLD(S.Session, S.CL, S.Dir, Why);
  if (!Loaded) {
    errs() << toString(Loaded.takeError()) << "\n";
    return 1;
  }
  return plan(S, *Loaded, PlanSource::LLD);
}

/// Plans from what the last link of this command line loaded, if the cache
/// remembers it and it can be planned from: true if it did.
bool planFromLastLink(LinkState &S) {
  // Not when the user asked for what the check adds, --why-extract, or
  // reads what a link that is dropped would have printed, --trace.
  if (!S.Cache || !S.Traced || S.CL.LLD.writesWhyExtract() ||
      S.CL.LLD.asksForTrace())
    return false;
  S.LastLoadedKey = lastLoadedKey(S.CL.LLD, S.Named);
  std::optional<LoadedInputs> Last =
      recallLastLoaded(*S.Cache, S.LastLoadedKey);
  if (!Last)
    return false;
  // Its files may be gone: then LLD is asked, and says what is missing.
  Expected<DeviceWork> Work = findDeviceWork(S.CL, *Last, S.Named, S.Warned);
  if (!Work) {
    consumeError(Work.takeError());
    return false;
  }
  if (S.Opts.Verbose)
    errs() << ToolName
           << ": planning from what the last link of this command line "
              "loaded ("
           << S.AskLLD << ")\n";
  S.Work = std::move(*Work);
  S.Source = PlanSource::LastLink;
  return true;
}

/// The dependency file of a host link that made its output names no file
/// of the work directory \p Dir, gone after the link: build tools would
/// take it for changed and link again. (The output is made: a rule that
/// cannot be rewritten is only a warning.)
void dropWorkFiles(const LinkCommandLine &CL, const WorkDir &Dir) {
  if (CL.Offload.SaveTemps || CL.Offload.DryRun)
    return;
  if (std::optional<std::string> DepFile = CL.LLD.dependencyFile())
    if (Error E = dropFromDependencyFile(*DepFile, Dir.dir()))
      reportWarning(std::move(E));
}

/// The host link with \p Extra, traced when the plan is to be checked.
Findings linkHost(LinkState &S, ArrayRef<std::string> Extra) {
  Findings F;
  Pass P("host link", S.Opts.Verbose);
  if (S.Traced)
    F.HostLoaded.emplace();
  // A plan from the last link is checked for members that only what it
  // adds takes: LLD says why it took each.
  std::vector<std::string> Args(Extra.begin(), Extra.end());
  std::string WhyExtract;
  if (S.Source == PlanSource::LastLink) {
    WhyExtract = S.Dir.path("why-extract.txt");
    Args.push_back("--why-extract=" + WhyExtract);
  }
  // LLD's messages are held while they may be dropped. When the link
  // registers CUDA or HIP device code, its undefined-symbol errors are held
  // and read before they are said: a runtime that the registration calls
  // and the link lacks is said as such, in place of LLD's errors naming the
  // registration object. (Only those: a fatal error ends the process from
  // one of LLD's threads, and what was held is lost with it.)
  bool ReadsMessages = llvm::any_of(S.Work.Jobs, [](const DeviceLinkJob &Job) {
    return Job.Kind == OffloadKind::Cuda || Job.Kind == OffloadKind::HIP;
  });
  std::string Messages;
  raw_string_ostream MessagesOS(Messages);
  UndefinedSymbolErrors Undefined(errs(), Messages);
  F.Status = linkHost(
      S.Session, S.CL, Args, &S.Dir, F.HostLoaded ? &*F.HostLoaded : nullptr,
      !WhyExtract.empty() ? static_cast<raw_ostream &>(MessagesOS)
      : ReadsMessages     ? static_cast<raw_ostream &>(Undefined)
                          : static_cast<raw_ostream &>(errs()));
  Undefined.flush();
  if (F.Status != 0 && ReadsMessages && WhyExtract.empty())
    for (OffloadKind Kind : {OffloadKind::Cuda, OffloadKind::HIP})
      if (Error E = takeMissingRuntimeErrors(Messages, Kind, S.Opts))
        reportError(std::move(E));
  if (WhyExtract.empty())
    errs() << Messages;
  else
    F.HeldMessages = std::move(Messages);
  if (F.Status == 0 && !WhyExtract.empty()) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Why =
        MemoryBuffer::getFile(WhyExtract);
    StringSet<> WithImages;
    for (const DeviceImage &Image : S.Work.Inputs->images())
      WithImages.insert(Image.Input);
    F.RegistrationTookDeviceCode =
        !Why || registrationTookDeviceCode((*Why)->getBuffer(), S.Named,
                                           [&](StringRef Input) {
                                             return WithImages.contains(Input);
                                           });
  }
  if (F.Status == 0)
    dropWorkFiles(S.CL, S.Dir);
  return F;
}

/// One round: link the device code, register it, link the host.
Findings linkRound(LinkState &S) {
  DeviceWork &Work = S.Work;
  if (S.Opts.Verbose)
    for (const DeviceImage &Image : Work.Inputs->images())
      errs() << ToolName << ": device image " << describeImage(Image.Image)
             << " in " << Image.Where << "\n";
  // The inputs' entries survive --gc-sections, and what they name --icf=all.
  Expected<std::vector<std::string>> Keep =
      keepEntries(S.CL, S.Dir, Work.Inputs.get());
  if (!Keep)
    return failed(Keep.takeError());

  // Images registered by an input already (clang-linker-wrapper's object),
  // or none: the host link as asked for, with the runtime if an input
  // calls its registration (a relocatable output that linked its own).
  if (Work.registersNothing()) {
    if (std::optional<std::string> By = Work.Inputs->alreadyRegisteredBy()) {
      if (S.Opts.Verbose)
        errs() << ToolName << ": " << *By
               << " registers the device images already; linking the host "
                  "only\n";
    } else if (Work.Inputs->callsOpenMPRegistration()) {
      llvm::append_range(*Keep, runtimeArguments(S.CL));
    }
    return linkHost(S, *Keep);
  }

  // Prepare the device links; take what the cache has of them.
  Expected<std::vector<PreparedDeviceLink>> Links =
      prepareDeviceLinks(S.CL, Work, S.Dir, S.Cache.get());
  if (!Links)
    return failed(Links.takeError());
  std::vector<std::string> Runtime;
  if (Work.linksOpenMP())
    Runtime = runtimeArguments(S.CL);
  if (S.Opts.DryRun) {
    if (S.Distributor)
      for (const std::string &Round :
           distributorJSON(*S.Distributor, *Links, S.Dir))
        errs() << ToolName << ": distributor " << S.Distributor->Program
               << " would get: " << Round << "\n";
    std::vector<std::string> Extra = {"<registration object>"};
    llvm::append_range(Extra, hostLibraries(S.CL, *Links));
    if (!S.CL.Relocatable)
      llvm::append_range(Extra, *Keep);
    llvm::append_range(Extra, Runtime);
    return linkHost(S, Extra);
  }

  // Send the device links a distributor takes; what it does not do runs
  // here.
  if (S.Distributor)
    distributeDeviceLinks(*S.Distributor, *Links, S.Dir, S.Opts.Verbose);

  // Link the device code, in parallel when asked.
  {
    Pass P("device links", S.Opts.Verbose);
    if (Error E = runDeviceLinks(S.Session, *Links, S.Opts, S.Self, S.Dir))
      return failed(std::move(E));
  }
  if (Error E = reportResourceUsage(*Links, S.Opts, S.CL.Output, errs(),
                                    reportWarning))
    return failed(std::move(E));

  // Register the linked images.
  Expected<std::vector<std::string>> Extra = registerImages(
      S.CL, Work, *Links, S.Dir, S.Cache.get(), std::move(*Keep));
  if (!Extra)
    return failed(Extra.takeError());
  llvm::append_range(*Extra, Runtime);

  // Link the host; meanwhile, whether a CPU device link left out a static
  // archive it needs (LLD leaves a core idle most of its time).
  std::future<bool> ArchiveNeeded;
  if (llvm::any_of(*Links, [](const PreparedDeviceLink &Link) {
        return Link.omitsArchives();
      }))
    ArchiveNeeded = std::async(std::launch::async,
                               [&] { return omittedArchivesNeeded(*Links); });
  // Meanwhile too, send what was linked to the cache's server.
  if (S.Cache)
    uploadCompleteDeviceLinks(*S.Cache, *Links);
  Findings F = linkHost(S, *Extra);
  F.DeviceLinkNeedsArchive = ArchiveNeeded.valid() && ArchiveNeeded.get();

  // Keep what was linked in the cache, unless it is to be linked again.
  if (S.Cache && F.Status == 0 && !F.DeviceLinkNeedsArchive)
    keepDeviceLinks(*S.Cache, *Links);
  return F;
}

/// A plan from the last link that did not hold: its link's messages are
/// dropped, and LLD is asked.
Verdict lastLinkFailed(LinkState &S) {
  if (S.Opts.Verbose)
    errs() << ToolName
           << ": what the last link of this command line loaded does not "
              "hold for this one; asking LLD\n";
  return Verdict::AskLLD;
}

/// What follows \p F, the findings of round \p Round: plans again into
/// \p S where it says so.
Expected<Verdict> decide(LinkState &S, const Findings &F, unsigned Round) {
  // A plan from the last link may fail the host link (a member it needs
  // left out): planned from LLD's answer, it is linked again.
  if (F.Status != 0)
    return S.Source == PlanSource::LastLink ? lastLinkFailed(S) : Verdict::Done;
  bool Changed = false;
  if (F.HostLoaded) {
    Pass P("check what the host link loaded", S.Opts.Verbose);
    Expected<DeviceWork> Loaded =
        findDeviceWork(S.CL, *F.HostLoaded, S.Named, S.Warned);
    if (!Loaded)
      return Loaded.takeError();
    Changed = Loaded->Description != S.Work.Description;
    // A plan from the last link that does not hold is dropped: planned
    // from LLD's answer instead, the link is as if there were none.
    if (S.Source == PlanSource::LastLink) {
      if (Changed || F.RegistrationTookDeviceCode)
        return lastLinkFailed(S);
      errs() << F.HeldMessages;
    }
    if (Changed) {
      Loaded->EveryLibrary = S.Work.EveryLibrary;
      S.Work = std::move(*Loaded);
      S.Source = PlanSource::HostLink;
    }
  }
  if (!Changed && !F.DeviceLinkNeedsArchive)
    return Verdict::Done;
  if (Round == MaxLinkRounds) {
    if (!S.Traced)
      return Verdict::Done;
    return createStringError(
        inconvertibleErrorCode(),
        "the inputs the host link loads change with its device code: after "
        "%u links it still loads other device code than it was linked with",
        Round);
  }
  if (S.Opts.Verbose && Changed)
    errs() << ToolName
           << ": the host link loaded other device code than planned; "
              "linking again\n";
  if (S.Opts.Verbose && F.DeviceLinkNeedsArchive)
    errs() << ToolName
           << ": a CPU device link needs a static archive of the host "
              "link; linking again with every library\n";
  if (F.DeviceLinkNeedsArchive)
    S.Work.EveryLibrary = true;
  return Changed ? Verdict::PlanAgain : Verdict::EveryLibrary;
}

/// LLD alone, exactly as ld.lld would link: with --no-offload, or a
/// relocatable link that keeps device code fat (LLD merges the sections;
/// the offload entries are kept under --gc-sections, for the link that
/// takes the output). A helper removes LLD's temporary output, and the
/// work directory, if the link is killed.
int linkAsLLD(LLDSession &Session, const LinkCommandLine &CL) {
  std::unique_ptr<WorkDir> Dir;
  if (!CL.Offload.Disabled && CL.LLD.collectsUnusedSections()) {
    Expected<std::unique_ptr<WorkDir>> Made =
        WorkDir::create(CL.Output, CL.Offload.SaveTemps);
    if (!Made)
      return reportError(Made.takeError());
    Dir = std::move(*Made);
  }
  Expected<std::unique_ptr<CleanupGuard>> Guard = CleanupGuard::start(
      CL.Output, Dir && !CL.Offload.SaveTemps ? StringRef(Dir->dir()) : "");
  if (!Guard)
    return reportError(Guard.takeError());
  Expected<std::vector<std::string>> Keep =
      Dir ? keepEntries(CL, *Dir, nullptr) : std::vector<std::string>();
  if (!Keep)
    return reportError(Keep.takeError());
  int Status = linkHost(Session, CL, *Keep);
  if (Status == 0 && Dir)
    dropWorkFiles(CL, *Dir);
  return Status;
}

/// Reads the section tables of what the command line names, its archives'
/// members too (on every core), and says why LLD must be asked what the
/// link loads, if it must. (Read beside the device links instead, the
/// members of LLVM's 210 archives saved 1% of a 150 MB program's link,
/// for a check more before the host link: bench/large_link.py.)
void findInputs(LinkState &S) {
  {
    Pass P("find the inputs LLD loads", S.Opts.Verbose);
    S.Named = LinkInputs::find(S.CL.LLD, LinkInputs::Reading::Later);
  }
  if (S.Named.archivesPending()) {
    Pass P("read the archive members' section tables", S.Opts.Verbose);
    S.Named.readPendingArchives();
  }
  std::optional<std::string> Untraced =
      S.Opts.DryRun ? std::optional<std::string>("--offload-dry-run")
                    : S.CL.LLD.optionPrintingToStdout();
  S.Traced = !Untraced;
  S.AskLLD = Untraced ? *Untraced : S.Named.whyAskLLD();
}

/// Plans from what is known: the objects the command line names when
/// nothing else may hold device code; else what the last link of this
/// command line loaded, or LLD's answer.
int planFromWhatIsKnown(LinkState &S) {
  if (S.AskLLD.empty())
    return plan(S, S.Named.commandLineLoads(), PlanSource::CommandLine);
  if (planFromLastLink(S))
    return 0;
  return planFromLLD(S, S.AskLLD);
}

/// Remembers what the host link of a link that is done loaded, for the next
/// link of this command line: when LLD's answer, the plan, held (then
/// neither the registration nor the runtime took device code).
void rememberWhatLoaded(LinkState &S, const Findings &F) {
  if (F.Status != 0 || !F.HostLoaded || S.LastLoadedKey.empty() ||
      S.Source != PlanSource::LLD)
    return;
  if (Error E = rememberLastLoaded(*S.Cache, S.LastLoadedKey, *F.HostLoaded))
    reportWarning(std::move(E));
}

} // namespace

int link(ArrayRef<const char *> Args, StringRef Self, LLDSession &Session) {
  // Split our --offload-* options from LLD's.
  Expected<LinkCommandLine> Parsed =
      parseLinkCommandLine(Args, LLD_OFFLOAD_RUNTIME_PATH);
  if (!Parsed)
    return reportError(Parsed.takeError());
  LinkCommandLine &CL = *Parsed;
  // Join make's jobserver before this process opens a file of its own (its
  // pipe is named by descriptor numbers, which a file of ours could take).
  if (CL.Offload.UseJobserver)
    Session.joinJobserver();
  // Record the time trace of the whole link, when asked.
  TimeTrace Trace(CL);
  // --version, --help, or -v without input files: LLD's text, with ours.
  if (CL.InfoOnly || (CL.PrintsVersion && !CL.LLD.namesInputFiles()))
    return printInfo(Session, CL);
  if (CL.PrintsVersion) {
    outs() << versionLine();
    CL.LLD = CL.LLD.withoutVersion();
  }
  // Nothing of ours to do: LLD alone.
  if (CL.Offload.Disabled ||
      (CL.Relocatable && CL.Offload.Relocatable == RelocatableMode::Fat))
    return linkAsLLD(Session, CL);
  // Fail now if the output cannot be written, with LLD's words.
  if (!CL.Offload.DryRun)
    if (std::error_code EC = lld::tryCreateFile(CL.Output))
      return reportError(createStringError(EC, "cannot open output file %s: %s",
                                           CL.Output.c_str(),
                                           EC.message().c_str()));
  // A work directory, removed by a helper if this process is killed.
  Expected<std::unique_ptr<WorkDir>> Dir =
      WorkDir::create(CL.Output, CL.Offload.SaveTemps);
  if (!Dir)
    return reportError(Dir.takeError());
  Expected<std::unique_ptr<CleanupGuard>> Guard = CleanupGuard::start(
      CL.Output, CL.Offload.SaveTemps ? StringRef() : StringRef((*Dir)->dir()));
  if (!Guard)
    return reportError(Guard.takeError());
  LinkState S(Session, CL, **Dir, Self);
  // Find the inputs and read their section tables, archive members' too.
  findInputs(S);
  // The distributor device links are sent to, when the link names one.
  S.Distributor = findDeviceLinkDistributor(CL, LLD_OFFLOAD_REMOTE_COMPILER);
  // The device-link cache, when one is asked for.
  if (Expected<std::unique_ptr<DeviceLinkCache>> Cache =
          DeviceLinkCache::open(CL.Offload, reportWarning))
    S.Cache = std::move(*Cache);
  else
    reportWarning(Cache.takeError());
  // Plan from what is known.
  if (int Status = planFromWhatIsKnown(S))
    return Status;
  for (unsigned Round = 1;; ++Round) {
    // Link the device code, register it, link the host.
    Findings F = linkRound(S);
    // Decide what follows, from what the round found.
    Expected<Verdict> Next = decide(S, F, Round);
    if (!Next)
      return reportError(Next.takeError());
    if (*Next == Verdict::Done) {
      // Remember what the host link loaded, for the next same link.
      rememberWhatLoaded(S, F);
      // Wait for the uploads; say what the cache did.
      if (S.Cache)
        S.Cache->finish(S.Opts.Verbose);
      return F.Status;
    }
    // The plan from the last link did not hold: ask LLD.
    if (*Next == Verdict::AskLLD)
      if (int Status = planFromLLD(S, "the last link's plan did not hold"))
        return Status;
  }
}

} // namespace offload

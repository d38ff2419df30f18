//===- lld-plugin/DeviceLinkDistributor.cpp - Device links on a farm ------===//

#include "lld-plugin/DeviceLinkDistributor.h"

#include "lld-plugin/HostLink.h"

#include "format/BundleEntryID.h"
#include "format/CubinResources.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

extern char **environ;

namespace offload {

std::optional<DeviceLinkDistributor>
findDeviceLinkDistributor(const LinkCommandLine &CL,
                          StringRef DefaultCompiler) {
  const OffloadOptions &O = CL.Offload;
  DTLTOSettings LLD = CL.LLD.dtlto();
  DeviceLinkDistributor D;
  if (O.Distributor) {
    if (*O.Distributor == "none" || O.Distributor->empty())
      return std::nullopt;
    D.Program = *O.Distributor;
    D.Args = O.DistributorArgs;
  } else {
    if (LLD.Distributor.empty())
      return std::nullopt;
    D.Program = LLD.Distributor;
    D.Args = LLD.DistributorArgs;
  }
  D.RemoteCompiler =
      LLD.RemoteCompiler.empty() ? DefaultCompiler.str() : LLD.RemoteCompiler;
  D.PrependArgs = LLD.RemoteCompilerPrependArgs;
  D.CompilerArgs = LLD.RemoteCompilerArgs;
  D.TimeoutSeconds = O.DistributorTimeout;
  D.LinkerOutput = CL.Output;
  return D;
}

using Stage = NVPTXLinkRequest::Stage;

/// How far the next job of an NVPTX link with LTO takes it: its LTO (to
/// the PTX), then ptxas (to the relocatable cubin); none for other links,
/// and for those whose inputs are not all bitcode and cubins (nvcc's
/// objects and fat binaries stay here: clang's NVPTX link reads no symbols
/// of theirs, ours does).
static std::optional<Stage> nvptxJob(const PreparedDeviceLink &Link) {
  if (Link.runner() != DeviceLinkRunner::NVPTX ||
      Link.NVPTX->Given == Stage::Cubin ||
      !llvm::all_of(Link.NVPTX->Inputs, [](StringRef Input) {
        return Input.ends_with(".bc") || Input.ends_with(".cubin");
      }))
    return std::nullopt;
  return Link.NVPTX->Given == Stage::None ? Stage::PTX : Stage::Cubin;
}

bool isDistributed(const PreparedDeviceLink &Link) {
  if (Link.Cached || Link.Distributed)
    return false;
  return (Link.runner() == DeviceLinkRunner::LLD &&
          Link.Job->TargetTriple.isAMDGCN()) ||
         nvptxJob(Link);
}

/// The file a job of \p Link writes: the image, or for an NVPTX link the
/// PTX or the relocatable cubin (as far as the job takes it, \p To).
static std::string jobOutput(const PreparedDeviceLink &Link,
                             std::optional<Stage> To) {
  if (!To)
    return Link.Output;
  return *To == Stage::PTX ? Link.NVPTX->ptxFile() : Link.NVPTX->ltoCubinFile();
}

/// \p Path as the jobs name it: relative to the work directory \p Dir when
/// in it, else absolute.
static std::string jobPath(StringRef Path, const WorkDir &Dir) {
  StringRef Rest = Path;
  if (Rest.consume_front(Dir.dir()) && Rest.consume_front("/"))
    return Rest.str();
  SmallString<256> Absolute(Path);
  sys::fs::make_absolute(Absolute);
  return Absolute.str().str();
}

/// A job's JSON: its arguments, the files it reads and the one it writes.
static json::Object job(json::Array Args, json::Array Inputs,
                        const std::string &Output) {
  Args.push_back("-o");
  Args.push_back(Output);
  return json::Object{{"args", std::move(Args)},
                      {"inputs", std::move(Inputs)},
                      {"outputs", json::Array{Output}}};
}

/// The job of an NVPTX link with LTO: clang's NVPTX link
/// (clang-nvlink-wrapper) stopped after LTO, which writes the PTX ours
/// writes from the same inputs in the same order. No CUDA toolkit is needed
/// there: --cuda-feature= (none) leaves the PTX version to the arch, as
/// ours does, where clang would pick one for the toolkit it finds.
static json::Object nvptxLTOJob(const PreparedDeviceLink &Link,
                                const WorkDir &Dir) {
  json::Array Args{"--target=" + Link.Job->TargetTriple.str(),
                   "-march=" + Link.Job->Arch, "--cuda-feature=", "-Xlinker",
                   "--lto-emit-asm"};
  json::Array Inputs;
  std::vector<std::string> Files = Link.NVPTX->Inputs;
  llvm::append_range(Files, Link.NVPTX->Libraries);
  for (const std::string &File : Files) {
    std::string Spelled = jobPath(File, Dir);
    Args.push_back("-Xlinker");
    Args.push_back(Spelled);
    Inputs.push_back(Spelled);
  }
  return job(std::move(Args), std::move(Inputs),
             jobPath(Link.NVPTX->ptxFile(), Dir));
}

/// The job of an NVPTX link whose PTX came back: ptxas run by clang's
/// driver (-c of PTX assembles it), with the options ptxasArgs() gives it
/// here, which make the same cubin. Where it runs, clang finds a CUDA
/// toolkit of its own: the same release as --offload-cuda-path's.
static json::Object nvptxPTXASJob(const PreparedDeviceLink &Link,
                                  const WorkDir &Dir) {
  std::string PTX = jobPath(Link.NVPTX->ptxFile(), Dir);
  json::Array Args{"--target=" + Link.Job->TargetTriple.str(),
                   "-march=" + Link.Job->Arch, "-O3", "-c", PTX};
  return job(std::move(Args), json::Array{PTX},
             jobPath(Link.NVPTX->ltoCubinFile(), Dir));
}

/// The job of \p Link: an AMDGPU link's LLD arguments given to the remote
/// compiler's linker one by one (-Xlinker: no comma splitting, no input
/// read as a source), its inputs (the images, and the files LLD would
/// read), its output; an NVPTX link's step to \p To (nvptxLTOJob(),
/// nvptxPTXASJob()).
static json::Object jobOf(const PreparedDeviceLink &Link,
                          std::optional<Stage> To, const WorkDir &Dir) {
  if (To)
    return *To == Stage::PTX ? nvptxLTOJob(Link, Dir)
                             : nvptxPTXASJob(Link, Dir);
  json::Array Args, Inputs;
  Args.push_back("--target=" + Link.Job->TargetTriple.str());
  for (const DeviceLinkArg &A : Link.Planned) {
    if (A.TheRole == DeviceLinkArg::Role::Output)
      continue;
    for (const std::string &Word : spell({A})) {
      bool IsInput = A.TheRole == DeviceLinkArg::Role::Input;
      std::string Spelled = IsInput ? jobPath(Word, Dir) : Word;
      Args.push_back("-Xlinker");
      Args.push_back(Spelled);
      if (IsInput)
        Inputs.push_back(Spelled);
    }
  }
  return job(std::move(Args), std::move(Inputs), jobPath(Link.Output, Dir));
}

/// A job to send: a link, and for an NVPTX link how far the job takes it.
using Job = std::pair<const PreparedDeviceLink *, std::optional<Stage>>;

/// The JSON of \p Jobs.
static std::string jobsJSON(const DeviceLinkDistributor &D,
                            ArrayRef<Job> Jobs, const WorkDir &Dir) {
  json::Array Common{D.RemoteCompiler};
  for (const std::string &A : D.PrependArgs)
    Common.push_back(A);
  for (const std::string &A : D.CompilerArgs)
    Common.push_back(A);
  json::Array Array;
  for (const auto &[Link, To] : Jobs)
    Array.push_back(jobOf(*Link, To, Dir));
  // In LLD's order of keys, on one line as LLD writes it.
  std::string Text;
  raw_string_ostream OS(Text);
  json::OStream J(OS);
  J.object([&] {
    J.attributeObject("common", [&] {
      J.attribute("linker_output", D.LinkerOutput);
      J.attribute("args", std::move(Common));
      J.attribute("inputs", json::Array());
    });
    J.attribute("jobs", std::move(Array));
  });
  return Text;
}

std::vector<std::string> distributorJSON(const DeviceLinkDistributor &D,
                                         ArrayRef<PreparedDeviceLink> Links,
                                         const WorkDir &Dir) {
  // The second round: the ptxas of the NVPTX links whose LTO the first
  // sends.
  std::vector<Job> First, Second;
  for (const PreparedDeviceLink &Link : Links) {
    if (!isDistributed(Link))
      continue;
    std::optional<Stage> To = nvptxJob(Link);
    First.push_back({&Link, To});
    if (To == Stage::PTX)
      Second.push_back({&Link, Stage::Cubin});
  }
  std::vector<std::string> Rounds;
  for (ArrayRef<Job> Round : {ArrayRef<Job>(First), ArrayRef<Job>(Second)})
    if (!Round.empty())
      Rounds.push_back(jobsJSON(D, Round, Dir));
  return Rounds;
}

/// Why the PTX of \p Link's job is not what LTO here would have written:
/// missing, cut short, or for another arch or address size.
static std::optional<std::string> checkPTX(const PreparedDeviceLink &Link,
                                           StringRef PTX) {
  // LLVM's PTX header (".target sm_90" or ".target sm_90, debug"), then
  // the module; its last line closes a function or declares a global.
  StringRef Directive = "\n.target ";
  size_t Target = PTX.find(Directive);
  StringRef Arch =
      Target == StringRef::npos
          ? ""
          : PTX.drop_front(Target + Directive.size()).take_until([](char C) {
              return C == '\n' || C == ',';
            });
  if (Arch != Link.Job->Arch || !PTX.contains("\n.address_size 64\n"))
    return "its output is not PTX for " + Link.Job->Arch;
  StringRef Last = PTX.rtrim().rsplit('\n').second.trim();
  if (!PTX.ends_with("\n") || !(Last == "}" || Last.ends_with(";")))
    return std::string("its output is cut short");
  return std::nullopt;
}

/// Why \p Link's output is not an image the local link would have made:
/// missing, empty, not an AMDGPU shared object (an NVPTX relocatable
/// cubin), or for another processor; for an NVPTX link's LTO, checkPTX().
static std::optional<std::string> checkOutput(const PreparedDeviceLink &Link) {
  std::optional<Stage> To = nvptxJob(Link);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      jobOutput(Link, To), /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return "its output is missing";
  if (To == Stage::PTX)
    return checkPTX(Link, (*Buffer)->getBuffer());
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile((*Buffer)->getMemBufferRef());
  if (!Obj) {
    consumeError(Obj.takeError());
    return "its output is not an object file";
  }
  auto *ELF = dyn_cast<object::ELFObjectFileBase>(Obj->get());
  std::optional<StringRef> CPU = ELF ? ELF->tryGetCPUName() : std::nullopt;
  if (To == Stage::Cubin) {
    if (!ELF || ELF->getEMachine() != ELF::EM_CUDA ||
        ELF->getEType() != ELF::ET_REL)
      return std::string("its output is not a relocatable cubin");
    // Ours, not tryGetCPUName(): LLVM 22 reads CUDA 13's sm_90 as sm_90a.
    Expected<std::string> Arch = readCubinArch((*Buffer)->getMemBufferRef());
    if (!Arch)
      return "its output is not a cubin we can read: " +
             toString(Arch.takeError());
    if (*Arch != Link.Job->Arch)
      return "its output is a cubin for " + *Arch + ", not " + Link.Job->Arch;
    return std::nullopt;
  }
  if (!ELF || ELF->getEMachine() != ELF::EM_AMDGPU ||
      ELF->getEType() != ELF::ET_DYN)
    return "its output is not an AMDGPU code object";
  Expected<TargetID> ID = TargetID::parse(Link.Job->Arch);
  if (!ID || !CPU || *CPU != ID->Processor) {
    consumeError(ID.takeError());
    return "its output is a code object for another processor";
  }
  return std::nullopt;
}

namespace {
/// The distributor's process: in a process group of its own, so that a
/// timeout ends its jobs with it; started in the work directory, its output
/// in a log there.
struct DistributorProcess {
  pid_t Pid = -1;
  std::string Error;

  DistributorProcess(ArrayRef<std::string> Argv, const std::string &Dir,
                     const std::string &Log) {
    std::vector<char *> CArgv;
    for (const std::string &A : Argv)
      CArgv.push_back(const_cast<char *>(A.c_str()));
    CArgv.push_back(nullptr);
    posix_spawn_file_actions_t Actions;
    posix_spawnattr_t Attr;
    posix_spawn_file_actions_init(&Actions);
    posix_spawnattr_init(&Attr);
    posix_spawn_file_actions_addopen(&Actions, STDIN_FILENO, "/dev/null",
                                     O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&Actions, STDOUT_FILENO, Log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&Actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addchdir_np(&Actions, Dir.c_str());
    posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&Attr, 0);
    // A program named without a directory is looked for in PATH.
    int RC = StringRef(Argv[0]).contains('/')
                 ? posix_spawn(&Pid, CArgv[0], &Actions, &Attr, CArgv.data(),
                               environ)
                 : posix_spawnp(&Pid, CArgv[0], &Actions, &Attr, CArgv.data(),
                                environ);
    posix_spawn_file_actions_destroy(&Actions);
    posix_spawnattr_destroy(&Attr);
    if (RC != 0) {
      Pid = -1;
      Error = "cannot be started: " + std::string(strerror(RC));
    }
  }

  /// Waits at most \p Seconds; what went wrong, if anything.
  std::optional<std::string> wait(unsigned Seconds) {
    auto Deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(Seconds);
    int Status = 0;
    while (true) {
      pid_t Done = waitpid(Pid, &Status, WNOHANG);
      if (Done == Pid)
        break;
      if (Done < 0 && errno != EINTR)
        return "cannot be waited for: " + std::string(strerror(errno));
      if (std::chrono::steady_clock::now() >= Deadline) {
        kill(-Pid, SIGKILL);
        waitpid(Pid, &Status, 0);
        return "did not finish in " + std::to_string(Seconds) +
               " s (--offload-distributor-timeout=) and was stopped";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // Its jobs go with it, should it leave any behind.
    kill(-Pid, SIGKILL);
    if (WIFSIGNALED(Status))
      return "was killed by signal " + std::to_string(WTERMSIG(Status));
    if (WEXITSTATUS(Status) != 0)
      return "exited with status " + std::to_string(WEXITSTATUS(Status));
    return std::nullopt;
  }
};
} // namespace

/// The last lines of what the distributor said, for the warning.
static std::string lastLines(StringRef Log, size_t Count) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Log);
  if (!Buffer)
    return "";
  StringRef Text = (*Buffer)->getBuffer().rtrim();
  if (Text.empty())
    return "";
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n');
  if (Lines.size() > Count)
    Lines.erase(Lines.begin(), Lines.end() - Count);
  std::string Said;
  for (StringRef L : Lines)
    Said += "\n  " + L.str();
  return Said;
}

/// Sends the jobs of \p Sent, as the file \p JSONName of \p Dir, and waits;
/// marks how far each got, warns of a fault. Returns the links whose jobs
/// failed: those run here.
static std::vector<PreparedDeviceLink *>
sendRound(const DeviceLinkDistributor &D, ArrayRef<PreparedDeviceLink *> Sent,
          StringRef JSONName, const WorkDir &Dir, bool Verbose) {
  std::vector<std::string> Names;
  for (const PreparedDeviceLink *Link : Sent) {
    std::optional<Stage> To = nvptxJob(*Link);
    Names.push_back(Link->Job->name() + (!To                 ? ""
                                         : *To == Stage::PTX ? " (LTO)"
                                                             : " (ptxas)"));
  }
  auto Start = std::chrono::steady_clock::now();
  std::string Log = Dir.path("distributor.log");
  std::optional<std::string> Fault;
  std::vector<Job> Jobs;
  for (const PreparedDeviceLink *Link : Sent)
    Jobs.push_back({Link, nvptxJob(*Link)});
  Expected<std::string> Written = Dir.write(JSONName, jobsJSON(D, Jobs, Dir));
  if (!Written) {
    Fault = "cannot be given its jobs: " + toString(Written.takeError());
  } else {
    // A path is the link's, not the work directory's, where the distributor
    // starts: made absolute first.
    SmallString<256> Program(D.Program);
    if (StringRef(D.Program).contains('/'))
      sys::fs::make_absolute(Program);
    std::vector<std::string> Argv = {Program.str().str()};
    llvm::append_range(Argv, D.Args);
    Argv.push_back(JSONName.str());
    DistributorProcess P(Argv, Dir.dir(), Log);
    Fault = P.Pid < 0 ? std::optional<std::string>(P.Error)
                      : P.wait(D.TimeoutSeconds);
  }
  double Waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  // What came back, and is right, is done; the rest runs here: all of it
  // after a distributor that failed, whose outputs may be half written.
  std::vector<PreparedDeviceLink *> Failed;
  std::vector<std::string> Missed;
  for (PreparedDeviceLink *Link : Sent) {
    std::optional<std::string> Wrong = checkOutput(*Link);
    if (!Fault && !Wrong) {
      // An NVPTX link goes on from where the job took it.
      if (std::optional<Stage> To = nvptxJob(*Link))
        Link->NVPTX->Given = *To;
      else
        Link->Distributed = true;
      continue;
    }
    Missed.push_back(Link->Job->name() +
                     (Wrong && !Fault ? " (" + *Wrong + ")" : ""));
    sys::fs::remove(jobOutput(*Link, nvptxJob(*Link)));
    // An NVPTX link whose ptxas failed out there runs all of it here: the
    // PTX it got may be what made ptxas fail.
    if (Link->NVPTX)
      Link->NVPTX->Given = Stage::None;
    Failed.push_back(Link);
  }
  if (Verbose)
    errs() << ToolName << ": sent " << Sent.size()
           << " device link(s) to distributor " << D.Program << ": "
           << join(Names, " ") << "; waited " << format("%.2f", Waited)
           << " s\n";
  if (!Fault && Missed.empty())
    return Failed;
  raw_ostream &OS = WithColor::warning(errs(), ToolName);
  OS << "distributor " << D.Program << " "
     << (Fault ? *Fault : "did not do every job");
  if (!Missed.empty())
    OS << "; linking here: " << join(Missed, ", ");
  std::string Said = lastLines(Log, 5);
  if (!Said.empty())
    OS << "; it said:" << Said;
  OS << "\n";
  return Failed;
}

void distributeDeviceLinks(const DeviceLinkDistributor &D,
                           MutableArrayRef<PreparedDeviceLink> Links,
                           const WorkDir &Dir, bool Verbose) {
  TimeTraceScope Scope("Offload: distributor", sys::path::filename(D.Program));
  // Rounds while jobs are left: an NVPTX link's ptxas goes out once its
  // LTO has come back. A link whose job failed is not sent again.
  SmallPtrSet<const PreparedDeviceLink *, 8> Failed;
  for (unsigned Round = 1;; ++Round) {
    std::vector<PreparedDeviceLink *> Sent;
    for (PreparedDeviceLink &Link : Links)
      if (isDistributed(Link) && !Failed.contains(&Link))
        Sent.push_back(&Link);
    if (Sent.empty())
      return;
    std::string JSONName =
        Round == 1
            ? "device-links.dist-file.json"
            : "device-links." + std::to_string(Round) + ".dist-file.json";
    for (PreparedDeviceLink *Link : sendRound(D, Sent, JSONName, Dir, Verbose))
      Failed.insert(Link);
  }
}

} // namespace offload

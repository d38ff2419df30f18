//===- lld-plugin/DeviceLinkDistributor.cpp - Device links on a farm ------===//

#include "lld-plugin/DeviceLinkDistributor.h"

#include "lld-plugin/HostLink.h"

#include "format/BundleEntryID.h"

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

bool isDistributed(const PreparedDeviceLink &Link) {
  return !Link.Cached && Link.runner() == DeviceLinkRunner::LLD &&
         Link.Job->TargetTriple.isAMDGCN();
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

/// The job of \p Link: its LLD arguments given to the remote compiler's
/// linker one by one (-Xlinker: no comma splitting, no input read as a
/// source), its inputs (the images, and the files LLD would read), its
/// output.
static json::Object jobOf(const PreparedDeviceLink &Link, const WorkDir &Dir) {
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
  std::string Output = jobPath(Link.Output, Dir);
  Args.push_back("-o");
  Args.push_back(Output);
  return json::Object{{"args", std::move(Args)},
                      {"inputs", std::move(Inputs)},
                      {"outputs", json::Array{Output}}};
}

std::string distributorJSON(const DeviceLinkDistributor &D,
                            ArrayRef<PreparedDeviceLink> Links,
                            const WorkDir &Dir) {
  json::Array Common{D.RemoteCompiler};
  for (const std::string &A : D.PrependArgs)
    Common.push_back(A);
  for (const std::string &A : D.CompilerArgs)
    Common.push_back(A);
  json::Array Jobs;
  for (const PreparedDeviceLink &Link : Links)
    if (isDistributed(Link))
      Jobs.push_back(jobOf(Link, Dir));
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
    J.attribute("jobs", std::move(Jobs));
  });
  return Text;
}

/// Why \p Link's output is not an image the local link would have made:
/// missing, empty, not an AMDGPU shared object, or for another processor.
static std::optional<std::string> checkOutput(const PreparedDeviceLink &Link) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Link.Output, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return "its output is missing";
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile((*Buffer)->getMemBufferRef());
  if (!Obj) {
    consumeError(Obj.takeError());
    return "its output is not an object file";
  }
  auto *ELF = dyn_cast<object::ELFObjectFileBase>(Obj->get());
  if (!ELF || ELF->getEMachine() != ELF::EM_AMDGPU ||
      ELF->getEType() != ELF::ET_DYN)
    return "its output is not an AMDGPU code object";
  Expected<TargetID> ID = TargetID::parse(Link.Job->Arch);
  std::optional<StringRef> CPU = ELF->tryGetCPUName();
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

void distributeDeviceLinks(const DeviceLinkDistributor &D,
                           MutableArrayRef<PreparedDeviceLink> Links,
                           const WorkDir &Dir, bool Verbose) {
  std::vector<PreparedDeviceLink *> Sent;
  for (PreparedDeviceLink &Link : Links)
    if (isDistributed(Link))
      Sent.push_back(&Link);
  if (Sent.empty())
    return;
  TimeTraceScope Scope("Offload: distributor", sys::path::filename(D.Program));
  auto Start = std::chrono::steady_clock::now();
  const char *JSONName = "device-links.dist-file.json";
  std::string Log = Dir.path("distributor.log");
  std::optional<std::string> Fault;
  Expected<std::string> Written =
      Dir.write(JSONName, distributorJSON(D, Links, Dir));
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
    Argv.push_back(JSONName);
    DistributorProcess P(Argv, Dir.dir(), Log);
    Fault = P.Pid < 0 ? std::optional<std::string>(P.Error)
                      : P.wait(D.TimeoutSeconds);
  }
  double Waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  // What came back, and is right, is done; the rest runs here: all of it
  // after a distributor that failed, whose outputs may be half written.
  std::vector<std::string> Missed;
  for (PreparedDeviceLink *Link : Sent) {
    std::optional<std::string> Wrong = checkOutput(*Link);
    if (!Fault && !Wrong) {
      Link->Distributed = true;
      continue;
    }
    Missed.push_back(Link->Job->name() +
                     (Wrong && !Fault ? " (" + *Wrong + ")" : ""));
    sys::fs::remove(Link->Output);
  }
  if (Verbose) {
    errs() << ToolName << ": sent " << Sent.size()
           << " device link(s) to distributor " << D.Program << ":";
    for (PreparedDeviceLink *Link : Sent)
      errs() << " " << Link->Job->name();
    errs() << "; waited " << format("%.2f", Waited) << " s\n";
  }
  if (!Fault && Missed.empty())
    return;
  raw_ostream &OS = WithColor::warning(errs(), ToolName);
  OS << "distributor " << D.Program << " "
     << (Fault ? *Fault : "did not do every job");
  if (!Missed.empty())
    OS << "; linking here: " << join(Missed, ", ");
  std::string Said = lastLines(Log, 5);
  if (!Said.empty())
    OS << "; it said:" << Said;
  OS << "\n";
}

} // namespace offload

//===- lld-plugin/RunLLD.cpp - LLD's ELF linker, in this process ----------===//

#include "lld-plugin/RunLLD.h"

#include "lld-plugin/LinkOptions.h"

#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace offload {

void LLDSession::freeKeptState() {
  if (!StateKept)
    return;
  StateKept = false;
  llvm::CrashRecoveryContext CRC;
  if (!CRC.RunSafely([] { lld::CommonLinkerContext::destroy(); }))
    Usable = false;
}

int LLDSession::run(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out,
                    llvm::raw_ostream &Err, AfterLink After) {
  freeKeptState();
  llvm::SmallVector<const char *, 64> Argv;
  Argv.push_back("ld.lld");
  for (const std::string &Arg : Args)
    Argv.push_back(Arg.c_str());
  // As lldMain() runs LLD's ELF driver, a fatal error of which comes back
  // here, but with the freeing of its state left to freeKeptState().
  int RC = 1;
  llvm::CrashRecoveryContext CRC;
  if (!CRC.RunSafely([&] {
        RC = lld::elf::link(Argv, Out, Err, /*exitEarly=*/false,
                            /*disableOutput=*/false)
                 ? 0
                 : 1;
      })) {
    Usable = false;
    return CRC.RetCode;
  }
  StateKept = true;
  // A link that failed may leave its temporary output, which freeing its
  // state removes.
  if (After == AfterLink::Free || RC != 0)
    freeKeptState();
  return RC;
}

int LLDSession::runCapturing(llvm::ArrayRef<std::string> Args,
                             std::string &Out, std::string &Err) {
  llvm::raw_string_ostream OutOS(Out), ErrOS(Err);
  // LLD ends the process on a fatal error (a malformed input), its message
  // still in the string; crash recovery brings control back here instead.
  // LLD cannot run again after that (canRunAgain() says so).
  // Crash recovery takes SIGBUS too; a full disk under a memory-mapped
  // output ends the whole link with an error about the file instead (see
  // support/MappedFileFaults.h).
  struct sigaction BusAction;
  sigaction(SIGBUS, nullptr, &BusAction);
  llvm::CrashRecoveryContext::Enable();
  sigaction(SIGBUS, &BusAction, nullptr);
  llvm::ThreadPoolStrategy Strategy = llvm::parallel::strategy;
  int RC = run(Args, OutOS, ErrOS);
  llvm::parallel::strategy = Strategy;
  llvm::CrashRecoveryContext::Disable();
  // Crash recovery ends a crash with 128 + the signal; LLD's state is lost
  // with it.
  if (!Usable && RC > 128)
    ErrOS << "LLD crashed (" << strsignal(RC - 128)
          << "); ld.lld-offload cannot go on\n";
  return RC;
}

void LLDSession::joinJobserver() {
  Jobserver = llvm::JobserverClient::getInstance();
}

ArchiveStats::ArchiveStats(llvm::StringRef Fallback) {
  FD = ::memfd_create("archive-stats", MFD_CLOEXEC);
  std::string Name = "/proc/self/fd/" + std::to_string(FD);
  if (FD >= 0 && llvm::sys::fs::exists(Name)) {
    Path = Name;
    return;
  }
  if (FD >= 0)
    ::close(FD);
  FD = -1;
  Path = Fallback.str();
}

ArchiveStats::~ArchiveStats() {
  if (FD >= 0)
    ::close(FD);
}

std::string ArchiveStats::read() const {
  if (FD < 0) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> File =
        llvm::MemoryBuffer::getFile(Path);
    return File ? (*File)->getBuffer().str() : std::string();
  }
  std::string Data;
  char Chunk[16384];
  for (off_t At = 0;;) {
    ssize_t N = ::pread(FD, Chunk, sizeof(Chunk), At);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return Data;
    Data.append(Chunk, N);
    At += N;
  }
}

std::vector<std::string> traceArguments(const ArchiveStats &Stats) {
  return {"--trace", "--print-archive-stats=" + Stats.path()};
}

llvm::Expected<LoadedInputs>
traceLoadedInputs(LLDSession &Session, const LLDCommandLine &LLD,
                  llvm::StringRef Dir) {
  llvm::SmallString<128> StatsFile = Dir;
  llvm::sys::path::append(StatsFile, "archive-stats.txt");
  ArchiveStats Stats(StatsFile);
  std::vector<std::string> Args = LLD.probeArguments();
  llvm::append_range(Args, traceArguments(Stats));
  // Stop once symbols are resolved: what is loaded is known then. With
  // bitcode inputs that means ThinLTO index files, whose paths are moved
  // under the work directory.
  Args.push_back("--thinlto-index-only");
  llvm::SmallString<128> IndexDir = Dir;
  llvm::sys::path::append(IndexDir, "thinlto", "");
  Args.push_back(("--thinlto-prefix-replace=;" + IndexDir).str());
  std::string Out, Err;
  if (Session.runCapturing(Args, Out, Err) != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::StringRef(Err).rtrim());
  return readLoadedInputs(Out, Stats.read());
}

LoadedInputs readLoadedInputs(llvm::StringRef Trace, llvm::StringRef Stats,
                              llvm::StringRef Skip) {
  LoadedInputs Loaded;
  Loaded.ArchiveStats = Stats.str();
  for (llvm::StringRef Line : llvm::split(Trace, '\n'))
    if (!Line.empty() && (Skip.empty() || !Line.starts_with(Skip)))
      Loaded.Files.push_back(Line.str());
  // members <tab> extracted <tab> archive, after a header line.
  for (llvm::StringRef Line : llvm::split(Stats, '\n')) {
    llvm::SmallVector<llvm::StringRef, 3> Fields;
    Line.split(Fields, '\t', 2);
    if (Fields.size() == 3 && Fields[0] != "members")
      Loaded.Archives.push_back(Fields[2].str());
  }
  return Loaded;
}

TraceName splitTraceName(llvm::StringRef Line) {
  size_t Open = Line.find('(');
  if (!Line.ends_with(")") || Open == llvm::StringRef::npos)
    return {Line, ""};
  return {Line.take_front(Open), Line.drop_front(Open + 1).drop_back()};
}


} // namespace offload

//===- lld-plugin/RunLLD.h - LLD's ELF linker, in this process --*- C++ -*-===//
//
// Every link ld.lld-offload makes, host or device, goes through LLD's ELF
// driver called as a library. LLD is not re-entrant across threads: calls
// here must not overlap (parallel device links run in worker processes).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_RUNLLD_H
#define LLD_OFFLOAD_LLDPLUGIN_RUNLLD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Jobserver.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace offload {

class LLDCommandLine;

/// What becomes of LLD's state after a link (its symbols, sections, the
/// inputs it mapped): freed, or, after a link that succeeded, kept until
/// LLD runs again, which frees it first. The last link of a process keeps
/// it for the exit to drop, as ld.lld does: freeing a large program's took
/// 10-20 ms.
enum class AfterLink { Free, Keep };

/// The one owner of LLD's process state. LLD's ELF driver, called as a
/// library, keeps its state (symbols, sections, mapped inputs) between runs
/// until it is freed, cannot run again once it crashed, and sets LLVM's
/// process-wide thread strategy (--threads); make's jobserver, once joined,
/// is the process's too. main() makes one and passes it down: every LLD run
/// of the process goes through it.
class LLDSession {
public:
  LLDSession() = default;
  LLDSession(const LLDSession &) = delete;
  LLDSession &operator=(const LLDSession &) = delete;

  /// Links with LLD's ELF driver: \p Args as ld.lld's argv without
  /// argv[0]. LLD's messages go to \p Out and \p Err, which must outlive a
  /// kept state. Returns LLD's exit code.
  int run(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out,
          llvm::raw_ostream &Err, AfterLink After = AfterLink::Free);
  /// Like run(), LLD's messages kept in \p Out and \p Err, fatal errors
  /// included, and a crash in the calling thread caught and said so in
  /// \p Err (after either, canRunAgain() is false); LLVM's thread strategy
  /// is left as it was (a device link's --threads=1 does not hold for the
  /// host link).
  int runCapturing(llvm::ArrayRef<std::string> Args, std::string &Out,
                   std::string &Err);
  /// True while LLD can still be called in this process (it cannot after
  /// it crashed).
  bool canRunAgain() const { return Usable; }

  /// Joins make's jobserver (MAKEFLAGS), before this process opens a file
  /// of its own: the jobserver's pipe is named by descriptor numbers, which
  /// a file of ours would take where make closed the pipe.
  void joinJobserver();
  /// The jobserver joined, or null.
  llvm::JobserverClient *jobserver() const { return Jobserver; }

private:
  void freeKeptState();
  bool Usable = true;
  /// A link's state that was kept (AfterLink::Keep), to be freed before
  /// LLD runs again.
  bool StateKept = false;
  llvm::JobserverClient *Jobserver = nullptr;
};

/// What a host link loads, in load order.
struct LoadedInputs {
  /// Files and "archive(member)"s, as LLD's --trace names them.
  std::vector<std::string> Files;
  /// Every archive the link searched, whether or not it took a member.
  std::vector<std::string> Archives;
  /// LLD's archive statistics, which list them.
  std::string ArchiveStats;
};

/// Where LLD writes its archive statistics (--print-archive-stats, which
/// LLD writes to a file, never to the stream given to it): a file in memory
/// (memfd), so that a full disk cannot make LLD abort on it, or a file in
/// the work directory where memory files cannot be named.
class ArchiveStats {
public:
  /// \p Fallback: the file to use where /proc/self/fd is not there.
  explicit ArchiveStats(llvm::StringRef Fallback);
  ~ArchiveStats();
  ArchiveStats(const ArchiveStats &) = delete;
  ArchiveStats &operator=(const ArchiveStats &) = delete;
  /// The path to give LLD.
  const std::string &path() const { return Path; }
  /// What LLD wrote last; empty if nothing.
  std::string read() const;

private:
  int FD = -1;
  std::string Path;
};

/// A --trace line: "lib.a(m.o)" names a member of an archive, anything
/// else a file. (A path may hold parentheses too: only a line that ends in
/// ')' is taken for a member.)
struct TraceName {
  llvm::StringRef Path;
  /// Empty for a file.
  llvm::StringRef Member;
};
TraceName splitTraceName(llvm::StringRef Line);

/// Runs \p LLD in \p Session as a probe: a link that stops once symbols are resolved
/// and writes nothing (LLDCommandLine::probeArguments()), and reports the files, archive
/// members and archives it loads. ThinLTO index files, which the probe
/// makes of bitcode inputs, go under \p Dir. Fails with LLD's messages.
llvm::Expected<LoadedInputs>
traceLoadedInputs(LLDSession &Session, const LLDCommandLine &LLD,
                  llvm::StringRef Dir);

/// The options that make LLD report what a link loads: --trace to its
/// standard output, the archives it searched to \p Stats.
std::vector<std::string> traceArguments(const ArchiveStats &Stats);

/// What a link run with traceArguments() loaded: the --trace lines of its
/// standard output \p Trace, but those under \p Skip (a directory of
/// ld.lld-offload's own inputs, when not empty), and the archives listed in
/// the statistics \p Stats.
LoadedInputs readLoadedInputs(llvm::StringRef Trace, llvm::StringRef Stats,
                              llvm::StringRef Skip = "");

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_RUNLLD_H

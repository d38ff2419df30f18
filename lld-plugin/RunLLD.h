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
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace offload {

/// Links with LLD's ELF driver: \p Args as ld.lld's argv without argv[0].
/// LLD's messages go to \p Out and \p Err. Returns LLD's exit code.
int runLLD(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out,
           llvm::raw_ostream &Err);

/// Like runLLD(), LLD's messages kept in \p Out and \p Err, fatal errors
/// included (after one, canRunLLDAgain() is false).
int runLLDCapturing(llvm::ArrayRef<std::string> Args, std::string &Out,
                    std::string &Err);

/// What a host link loads, in load order.
struct LoadedInputs {
  /// Files and "archive(member)"s, as LLD's --trace names them.
  std::vector<std::string> Files;
  /// Every archive the link searched, whether or not it took a member.
  std::vector<std::string> Archives;
};

/// Runs \p LLDArgs as a probe: a link that writes nothing (see
/// probeArguments()) and reports the files, archive members and archives it
/// loads. \p StatsFile is where LLD may write its archive statistics (LLD
/// writes them to a file, never to the stream given to it). Fails with LLD's
/// messages.
llvm::Expected<LoadedInputs>
traceLoadedInputs(llvm::ArrayRef<std::string> LLDArgs,
                  llvm::StringRef StatsFile);

/// True while LLD can still be called in this process (it cannot after it
/// crashed).
bool canRunLLDAgain();

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_RUNLLD_H

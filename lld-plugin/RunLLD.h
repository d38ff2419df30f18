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

/// Runs \p LLDArgs as a probe: a link that writes nothing (see
/// probeArguments()) and traces the files and archive members it loads.
/// Returns them in load order, or LLD's messages as the error.
llvm::Expected<std::vector<std::string>>
traceLoadedInputs(llvm::ArrayRef<std::string> LLDArgs);

/// True while LLD can still be called in this process (it cannot after it
/// crashed).
bool canRunLLDAgain();

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_RUNLLD_H

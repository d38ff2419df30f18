//===- support/CrashReport.h - A crash as an error --------------*- C++ -*-===//
//
// LLD runs in our process, and a malformed input can crash it in any of the
// threads it runs. ld.lld dies of the signal with a crash report; here the
// crash becomes an error that says what was being done (the phase the
// linker set last: which link, which inputs), followed by the stack, and
// the process removes the temporary files LLVM registered and exits with
// code 1.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_CRASHREPORT_H
#define LLD_OFFLOAD_SUPPORT_CRASHREPORT_H

#include "llvm/ADT/StringRef.h"

namespace offload {

/// Reports SIGSEGV, SIGILL, SIGFPE and SIGABRT as "<ToolName>: error: LLD
/// crashed (<signal>) <phase>" and exits with code 1. \p ToolName must
/// outlive the process. Install after llvm::InitLLVM.
void reportCrashes(const char *ToolName);

/// What is being done, for a crash report: "in the host link", say. Copied
/// (up to 1 KiB); set from one thread, before the work starts.
void setCrashPhase(llvm::StringRef Phase);

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_CRASHREPORT_H

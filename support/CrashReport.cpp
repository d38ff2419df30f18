//===- support/CrashReport.cpp - A crash as an error ----------------------===//

#include "support/CrashReport.h"

#include "support/SignalSafe.h"

#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstring>
#include <signal.h>
#include <unistd.h>

namespace offload {

// What the crash handler says: statics, because a signal handler can reach
// nothing else, and plain memory, because it may not allocate.
static const char *CrashToolName = "";
static char CrashPhase[1024] = "";

static const char *signalName(int Signal) {
  switch (Signal) {
  case SIGSEGV:
    return "SIGSEGV, a bad memory access";
  case SIGILL:
    return "SIGILL, an illegal instruction";
  case SIGFPE:
    return "SIGFPE, an arithmetic error";
  case SIGABRT:
    return "SIGABRT, an abort";
  default:
    return "a signal";
  }
}

static void onCrash(int Signal) {
  // A crash in one of LLD's threads may be followed by others: one report.
  static std::atomic<bool> Reporting(false);
  if (Reporting.exchange(true))
    for (;;)
      ::pause();
  writeToStderr(CrashToolName);
  writeToStderr(": error: LLD crashed (");
  writeToStderr(signalName(Signal));
  writeToStderr(")");
  if (CrashPhase[0]) {
    writeToStderr(" ");
    writeToStderr(CrashPhase);
  }
  writeToStderr("; no output was written. Where it crashed:\n");
  // As LLVM's own crash handler does, though it is not async-signal-safe:
  // the process is going down anyway.
  llvm::sys::PrintStackTrace(llvm::errs());
  // Removes the temporary files LLVM registered, LLD's output among them.
  llvm::sys::RunInterruptHandlers();
  ::_exit(1);
}

void reportCrashes(const char *ToolName) {
  CrashToolName = ToolName;
  struct sigaction Action = {};
  Action.sa_handler = onCrash;
  sigemptyset(&Action.sa_mask);
  // SA_NODEFER: a crash inside the report still reaches the default action.
  Action.sa_flags = SA_NODEFER | SA_RESETHAND;
  for (int Signal : {SIGSEGV, SIGILL, SIGFPE, SIGABRT})
    ::sigaction(Signal, &Action, nullptr);
}

void setCrashPhase(llvm::StringRef Phase) {
  size_t N = std::min(Phase.size(), sizeof(CrashPhase) - 1);
  memcpy(CrashPhase, Phase.data(), N);
  CrashPhase[N] = '\0';
}

} // namespace offload

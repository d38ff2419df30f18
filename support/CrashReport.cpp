//===- support/CrashReport.cpp - A crash as an error ----------------------===//

#include "support/CrashReport.h"

#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstring>
#include <signal.h>
#include <unistd.h>

namespace offload {

static const char *CrashToolName = "";
static char CrashPhase[1024] = "";

static void writeString(const char *S) {
  size_t Len = strlen(S);
  while (Len) {
    ssize_t N = ::write(STDERR_FILENO, S, Len);
    if (N <= 0)
      return;
    S += N;
    Len -= N;
  }
}

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
  writeString(CrashToolName);
  writeString(": error: LLD crashed (");
  writeString(signalName(Signal));
  writeString(")");
  if (CrashPhase[0]) {
    writeString(" ");
    writeString(CrashPhase);
  }
  writeString("; no output was written. Where it crashed:\n");
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

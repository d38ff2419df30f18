//===- support/MappedFileFaults.cpp - SIGBUS as an error about a file -----===//
//
// Everything the handler does is async-signal-safe: it reads
// /proc/self/maps with read(2) into buffers on its stack, writes with
// write(2), and leaves with _exit(2).
//
//===----------------------------------------------------------------------===//

#include "support/MappedFileFaults.h"

#include "support/SignalSafe.h"

#include "llvm/Support/Signals.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace offload {

// The name the SIGBUS handler's message starts with: a static, because a
// signal handler can reach nothing else.
static const char *FaultToolName = "";

/// Parses the hexadecimal number at \p P up to \p End or a character that is
/// not a hex digit, leaving \p P there.
static uintptr_t parseHex(const char *&P, const char *End) {
  uintptr_t V = 0;
  for (; P != End; ++P) {
    char C = *P;
    int D = C >= '0' && C <= '9'   ? C - '0'
            : C >= 'a' && C <= 'f' ? C - 'a' + 10
                                   : -1;
    if (D < 0)
      break;
    V = V * 16 + D;
  }
  return V;
}

namespace {
/// A line of /proc/self/maps: "start-end perms offset dev inode   path".
struct Mapping {
  char Path[4096];
  bool Writable;
};
} // namespace

/// Whether the line [\p Line, \p End) maps \p Addr; if so, fills \p M.
static bool lineMaps(const char *Line, const char *End, uintptr_t Addr,
                     Mapping &M) {
  const char *P = Line;
  uintptr_t Start = parseHex(P, End);
  if (P == End || *P++ != '-')
    return false;
  uintptr_t Stop = parseHex(P, End);
  if (Addr < Start || Addr >= Stop || P == End || *P++ != ' ')
    return false;
  M.Writable = End - P > 1 && P[1] == 'w';
  // Perms, offset, device, inode; then the path after the spaces that pad
  // it.
  for (int Field = 0; Field != 4; ++Field) {
    while (P != End && *P != ' ')
      ++P;
    while (P != End && *P == ' ')
      ++P;
  }
  size_t Len = End - P;
  if (Len == 0 || Len >= sizeof(M.Path))
    return false;
  memcpy(M.Path, P, Len);
  M.Path[Len] = '\0';
  return true;
}

/// The file mapped at \p Addr, from /proc/self/maps.
static bool findMapping(uintptr_t Addr, Mapping &M) {
  int FD = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (FD < 0)
    return false;
  char Buf[8192];
  size_t Have = 0;
  bool Found = false;
  // Inside a line longer than the buffer, which is skipped to its end.
  bool Skipping = false;
  for (;;) {
    ssize_t N = ::read(FD, Buf + Have, sizeof(Buf) - Have);
    if (N <= 0)
      break;
    Have += N;
    char *LineStart = Buf;
    char *Newline;
    while (!Found && (Newline = static_cast<char *>(
                          memchr(LineStart, '\n', Buf + Have - LineStart)))) {
      if (!Skipping)
        Found = lineMaps(LineStart, Newline, Addr, M);
      Skipping = false;
      LineStart = Newline + 1;
    }
    if (Found)
      break;
    // Keep the unfinished line, unless it fills the buffer.
    Have = Buf + Have - LineStart;
    if (Have == sizeof(Buf)) {
      Have = 0;
      Skipping = true;
    }
    memmove(Buf, LineStart, Have);
  }
  ::close(FD);
  return Found;
}

static void onBusError(int, siginfo_t *Info, void *) {
  // LLD writes its output from several threads: one report is enough.
  static std::atomic<bool> Reporting(false);
  if (Reporting.exchange(true))
    for (;;)
      ::pause();

  Mapping M;
  bool Found = findMapping(reinterpret_cast<uintptr_t>(Info->si_addr), M);
  writeToStderr(FaultToolName);
  writeToStderr(": error: ");
  if (Found && M.Writable) {
    writeToStderr("cannot write '");
    writeToStderr(M.Path);
    writeToStderr("': its file system is full, or writing to it failed "
                  "(SIGBUS on a memory-mapped write)\n");
  } else if (Found) {
    writeToStderr("cannot read '");
    writeToStderr(M.Path);
    writeToStderr("': it was truncated while in use, or reading it failed "
                  "(SIGBUS on a memory-mapped read)\n");
  } else {
    writeToStderr("a memory-mapped file could not be read or written: a full "
                  "file system, or a file truncated while in use (SIGBUS)\n");
  }
  // Removes the temporary files LLVM registered, LLD's output among them.
  llvm::sys::RunInterruptHandlers();
  ::_exit(1);
}

void reportMappedFileFaults(const char *ToolName) {
  FaultToolName = ToolName;
  struct sigaction Action = {};
  Action.sa_sigaction = onBusError;
  Action.sa_flags = SA_SIGINFO;
  sigemptyset(&Action.sa_mask);
  ::sigaction(SIGBUS, &Action, nullptr);
}

} // namespace offload

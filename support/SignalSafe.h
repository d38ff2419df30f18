//===- support/SignalSafe.h - Writing from a signal handler -----*- C++ -*-===//
//
// What the signal handlers of support/ (MappedFileFaults, CrashReport) may
// call: write(2) on standard error, no allocation, no locks.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_SIGNALSAFE_H
#define LLD_OFFLOAD_SUPPORT_SIGNALSAFE_H

#include <cstring>
#include <unistd.h>

namespace offload {

/// Writes the NUL-terminated \p S to standard error, as far as it goes.
inline void writeToStderr(const char *S) {
  size_t Len = strlen(S);
  while (Len) {
    ssize_t N = ::write(STDERR_FILENO, S, Len);
    if (N <= 0)
      return;
    S += N;
    Len -= N;
  }
}

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_SIGNALSAFE_H

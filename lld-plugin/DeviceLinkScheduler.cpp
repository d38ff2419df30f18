//===- lld-plugin/DeviceLinkScheduler.cpp - Parallel device links ---------===//

#include "lld-plugin/DeviceLinkScheduler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <cerrno>
#include <sys/wait.h>
#include <vector>

using namespace llvm;

namespace offload {

namespace {
struct Worker {
  size_t Task;
  sys::ProcessInfo Process;
  JobSlot Slot;
};
} // namespace

/// Blocks until one of \p Workers has exited and reaps it; returns its index
/// and sets \p ExitCode and \p Why.
static size_t waitForWorker(ArrayRef<Worker> Workers, int &ExitCode,
                            std::string &Why) {
  for (;;) {
    // Ours that have ended: reap one.
    for (size_t I = 0; I != Workers.size(); ++I) {
      Why.clear();
      sys::ProcessInfo Done =
          sys::Wait(Workers[I].Process, /*SecondsToWait=*/0, &Why);
      if (Done.Pid != 0) {
        ExitCode = Done.ReturnCode;
        return I;
      }
    }
    // Block until a child has exited, reaping none.
    siginfo_t Info;
    Info.si_pid = 0;
    if (::waitid(P_ALL, 0, &Info, WEXITED | WNOWAIT) != 0 && errno == EINTR)
      continue;
    if (llvm::any_of(Workers, [&](const Worker &W) {
          return Info.si_pid != 0 && W.Process.Pid == Info.si_pid;
        }))
      continue;
    // Another child has ended (or waitid failed): it stays for its owner,
    // and would answer waitid again. Wait for the oldest worker alone.
    Why.clear();
    sys::ProcessInfo Done =
        sys::Wait(Workers[0].Process, /*SecondsToWait=*/std::nullopt, &Why);
    ExitCode = Done.ReturnCode;
    return 0;
  }
}

void scheduleWorkers(
    size_t Count, unsigned MaxJobs, JobserverClient *Jobserver,
    function_ref<std::optional<sys::ProcessInfo>(size_t)> Start,
    function_ref<bool(size_t, int, StringRef)> Finished) {
  std::vector<Worker> Running;
  size_t Next = 0;
  for (;;) {
    // Start what the slots allow.
    while (Next < Count && Running.size() < MaxJobs) {
      JobSlot Slot;
      if (Jobserver) {
        // The implicit slot is ours whenever no worker holds it: with no
        // worker running this cannot fail.
        Slot = Jobserver->tryAcquire();
        if (!Slot.isValid())
          break;
      }
      std::optional<sys::ProcessInfo> PI = Start(Next);
      if (!PI) {
        if (Jobserver)
          Jobserver->release(std::move(Slot));
        Next = Count;
        break;
      }
      Running.push_back({Next++, *PI, std::move(Slot)});
    }
    if (Running.empty())
      return;
    int ExitCode = 0;
    std::string Why;
    size_t I = waitForWorker(Running, ExitCode, Why);
    Worker Done = std::move(Running[I]);
    Running.erase(Running.begin() + I);
    if (Jobserver && Done.Slot.isValid())
      Jobserver->release(std::move(Done.Slot));
    if (!Finished(Done.Task, ExitCode, Why))
      Next = Count;
  }
}

} // namespace offload

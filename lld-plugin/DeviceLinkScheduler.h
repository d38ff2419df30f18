//===- lld-plugin/DeviceLinkScheduler.h - Parallel device links -*- C++ -*-===//
//
// The scheduler of parallel device links: it starts workers (processes) while
// there is a slot for one (--offload-jobs=N, or a token of GNU make's
// jobserver, asked for without blocking: the first is the implicit slot, so
// one worker can always start when none runs), and when none can start it
// blocks until a worker exits: in waitid(WNOWAIT), which reaps nothing, then
// reaps that worker alone. It never reaps another child of this process (the
// clean-up helper); when such a child has ended, waitid would answer it again
// and again, so the scheduler waits for its oldest worker alone instead of
// looping. What a worker runs and what its end means is the caller's.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICELINKSCHEDULER_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICELINKSCHEDULER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Jobserver.h"
#include "llvm/Support/Program.h"

#include <optional>

namespace offload {

/// Runs tasks 0 .. \p Count - 1 as worker processes, at most \p MaxJobs at a
/// time, and each only with a slot of \p Jobserver when there is one.
/// \p Start starts task I's worker, or returns std::nullopt when it could not:
/// then nothing new starts. \p Finished is told how a task's worker ended
/// (its exit code, and why when it did not simply exit) and returns false
/// when nothing new should start. Returns once every started worker is
/// reaped.
void scheduleWorkers(
    size_t Count, unsigned MaxJobs, llvm::JobserverClient *Jobserver,
    llvm::function_ref<std::optional<llvm::sys::ProcessInfo>(size_t)> Start,
    llvm::function_ref<bool(size_t, int, llvm::StringRef)> Finished);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICELINKSCHEDULER_H

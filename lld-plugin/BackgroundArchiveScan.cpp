//===- lld-plugin/BackgroundArchiveScan.cpp - Archives read aside ---------===//

#include "lld-plugin/BackgroundArchiveScan.h"

#include "llvm/Support/Threading.h"
#include "llvm/Support/TimeProfiler.h"

#include <algorithm>
#include <chrono>

using namespace llvm;

namespace offload {

BackgroundArchiveScan::Result
BackgroundArchiveScan::read(std::vector<std::string> Paths, bool Traced,
                            unsigned Threads) {
  // The thread records into the time trace as LLVM's profiler lets one: a
  // profiler of its own, handed over when the thread is done.
  if (Traced)
    timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, "ld.lld-offload");
  Result R;
  auto Start = std::chrono::steady_clock::now();
  {
    TimeTraceScope Scope("Offload: read the archive members' section tables");
    R.Scans = LinkInputs::readArchives(Paths, Threads);
  }
  R.Milliseconds = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
  if (Traced)
    timeTraceProfilerFinishThread();
  return R;
}

BackgroundArchiveScan::BackgroundArchiveScan(const LinkInputs &Named) {
  // Every core but the one LLD opens its inputs on.
  unsigned Threads =
      std::max(1u, hardware_concurrency().compute_thread_count() - 1);
  Scans = std::async(std::launch::async, read, Named.archivesToRead(),
                     timeTraceProfilerEnabled(), Threads)
              .share();
}

bool BackgroundArchiveScan::done() const {
  return Scans.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

bool BackgroundArchiveScan::holdNoDeviceCode() const {
  return Scans.get().Scans.holdNoDeviceCode();
}

double BackgroundArchiveScan::addTo(LinkInputs &Named) {
  const Result &R = Scans.get();
  if (!Added)
    Named.addArchives(R.Scans);
  Added = true;
  return R.Milliseconds;
}

} // namespace offload

//===- lld-plugin/BackgroundArchiveScan.h - Archives read aside -*- C++ -*-===//
//
// Reading the section tables of a large program's archive members takes
// longer than linking its device code: 3,000 members and 650,000 sections
// for LLVM's static libraries, 15 ms of a 550 ms link on two cores. The
// link does not need the answer until the host link starts: the members are
// read on a thread of their own beside the device links and the
// registration, the archives taken to hold no device code meanwhile, and
// the link plans again if one does (Link.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_BACKGROUNDARCHIVESCAN_H
#define LLD_OFFLOAD_LLDPLUGIN_BACKGROUNDARCHIVESCAN_H

#include "lld-plugin/LinkInputs.h"

#include <future>
#include <string>
#include <vector>

namespace offload {

class BackgroundArchiveScan {
public:
  /// Starts reading the archives \p Named has pending, into the time trace
  /// too when the calling thread records one.
  explicit BackgroundArchiveScan(const LinkInputs &Named);
  /// True once the archives are read; does not wait.
  bool done() const;
  /// Waits until they are. Safe on any thread.
  void wait() const { Scans.wait(); }
  /// Waits for the archives; true if none holds device code, as assumed.
  /// Safe on any thread.
  bool holdNoDeviceCode() const;
  /// Waits, and gives \p Named what was read (once); returns how long the
  /// reading took, in milliseconds.
  double addTo(LinkInputs &Named);

private:
  struct Result {
    LinkInputs::ArchiveScans Scans;
    double Milliseconds = 0;
  };
  /// The thread's work.
  static Result read(std::vector<std::string> Paths, bool Traced,
                     unsigned Threads);
  std::shared_future<Result> Scans;
  bool Added = false;
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_BACKGROUNDARCHIVESCAN_H

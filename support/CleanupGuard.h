//===- support/CleanupGuard.h - Cleaning up after a killed link -*- C++ -*-===//
//
// A process that is killed (SIGKILL, the out-of-memory killer, a crash, or an
// exit() deep inside LLD) runs none of its cleanup, so its temporary files
// stay behind: ld.lld-offload's work directory of device images, and the
// "<output>.tmpXXXXXXX" file LLD writes the output to. A CleanupGuard starts
// a small helper process (a few lines of /bin/sh) that outlives the link:
// it removes those files unless the link says it is done. The helper is in a
// session of its own and has SIGINT, SIGTERM, SIGHUP and the like blocked,
// so that a terminal or a build system stopping the job leaves it to clean
// up; it keeps standard output and error open until it has, so that whoever
// reads them to their end sees what remains only after that. It is spawned,
// not forked: a forked copy would make the kernel copy every page the link
// writes afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_CLEANUPGUARD_H
#define LLD_OFFLOAD_SUPPORT_CLEANUPGUARD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace offload {

/// The helper. While this object lives, an end of this process by anything
/// but the object's destruction removes \p WorkDir and the temporaries of
/// \p Output.
class CleanupGuard {
public:
  /// Starts the helper for a link that writes \p Output (LLVM's
  /// FileOutputBuffer temporaries "<Output>.tmp" and seven hexadecimal
  /// digits are removed) and keeps intermediates in \p WorkDir (removed with
  /// all it holds; empty for none).
  static llvm::Expected<std::unique_ptr<CleanupGuard>>
  start(llvm::StringRef Output, llvm::StringRef WorkDir);
  /// Says this process is done (it cleaned up itself) and lets the helper
  /// go.
  ~CleanupGuard();

private:
  explicit CleanupGuard(int Socket) : Socket(Socket) {}
  int Socket;
};

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_CLEANUPGUARD_H

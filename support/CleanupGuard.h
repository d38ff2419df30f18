//===- support/CleanupGuard.h - Cleaning up after a killed process -*- C++ -*-//
//
// A process that is killed (SIGKILL, an out-of-memory kill, a crash, or an
// exit() deep inside LLD) runs none of its cleanup, so its temporary files
// stay behind: ld.lld-offload's work directory of device images, and the
// "<output>.tmpXXXXXXX" file LLD writes the output to. A CleanupGuard is a
// small helper process, forked at start-up, that outlives this one: it is
// told what to remove, and removes it if this process ends without saying
// it is done. It ignores the signals a terminal or a build system sends
// (SIGINT, SIGTERM, SIGHUP) and leaves the process group, so that it lives
// until it has cleaned up; it keeps standard output and error open, so that
// whoever reads them to their end sees the end only after it has.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_CLEANUPGUARD_H
#define LLD_OFFLOAD_SUPPORT_CLEANUPGUARD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace offload {

/// The helper process. While this object lives, an end of this process by
/// anything but the object's destruction removes what it was told to.
class CleanupGuard {
public:
  /// Forks the helper. Call it before any thread starts: the helper is a
  /// copy of this process and uses its allocator.
  static llvm::Expected<std::unique_ptr<CleanupGuard>> start();
  /// Says this process is done (it cleaned up itself) and lets the helper go.
  ~CleanupGuard();

  /// Remove the directory \p Dir and all it holds.
  void removeDirectory(llvm::StringRef Dir);
  /// Remove the temporary files LLVM's FileOutputBuffer makes for \p Output
  /// (LLD's output): "<Output>.tmp" and seven hexadecimal digits.
  void removeOutputTemporaries(llvm::StringRef Output);

private:
  explicit CleanupGuard(int Socket) : Socket(Socket) {}
  void send(char Op, llvm::StringRef Path);
  int Socket;
};

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_CLEANUPGUARD_H

//===- support/AtomicOutput.h - Outputs that appear whole or not at all ---===//
//
// Every file our tools write goes through here: it is written under a
// temporary name in the destination's directory and renamed over the
// destination only once the writer succeeded, so a failure (or a signal)
// never leaves a partial or corrupt output behind.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_ATOMICOUTPUT_H
#define LLD_OFFLOAD_SUPPORT_ATOMICOUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace offload {

/// The stream writeFileAtomically() hands out: a file stream that also tells
/// its descriptor, so that file ranges can be appended by the kernel (see
/// support/FileCopy.h).
class OutputFileStream : public llvm::raw_fd_ostream {
public:
  explicit OutputFileStream(int FD)
      : llvm::raw_fd_ostream(FD, /*shouldClose=*/false), FD(FD) {}
  int fd() const { return FD; }

private:
  int FD;
};

/// Calls \p Write with a stream to a temporary file next to \p Path and, if
/// it and the final flush succeed, renames the file to \p Path. On any error
/// the temporary file is removed and \p Path is left as it was. A \p Path of
/// "-" writes to standard output instead.
llvm::Error
writeFileAtomically(llvm::StringRef Path,
                    llvm::function_ref<llvm::Error(OutputFileStream &)> Write);

/// writeFileAtomically() for bytes already in memory.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Data);

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_ATOMICOUTPUT_H

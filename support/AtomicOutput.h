//===- support/AtomicOutput.h - Outputs that appear whole or not at all ---===//
//
// Every file our tools write goes through here: it is written as an
// anonymous file (O_TMPFILE) in the destination's directory and given its
// name only once the writer succeeded, so a failure, a signal or a SIGKILL
// never leaves a partial output or a temporary file behind. Where the file
// system has no anonymous files, a named temporary file is used instead,
// removed on failure and on the signals a process can catch.
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

/// Calls \p Write with a stream to a new file in \p Path's directory and, if
/// it and the final flush succeed, puts the file in place as \p Path. On any
/// error nothing new is left and \p Path is as it was. A \p Path of "-"
/// writes to standard output instead.
llvm::Error
writeFileAtomically(llvm::StringRef Path,
                    llvm::function_ref<llvm::Error(OutputFileStream &)> Write);

/// writeFileAtomically() for bytes already in memory.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Data);

/// Writes \p Data to \p Path in place, with no temporary file: for files in
/// a private directory that nothing reads before this returns. A failed
/// write (a full disk) is an error naming \p Path, never an abort.
llvm::Error writeFileDirectly(llvm::StringRef Path, llvm::StringRef Data);

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_ATOMICOUTPUT_H

//===- support/FileCopy.h - Reading and copying file ranges -----*- C++ -*-===//
//
// Large payloads (device images of hundreds of MiB) are copied from file to
// file by the kernel where it can (copy_file_range), so that they never pass
// through this process's memory; elsewhere in 1 MiB pieces. Small ranges (an
// archive member's header, an object's section table) are read with pread,
// not mapped: a large link reads thousands, and mapping each costs page
// faults here and TLB shootdowns in the threads of an LLD link beside.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_FILECOPY_H
#define LLD_OFFLOAD_SUPPORT_FILECOPY_H

#include "support/AtomicOutput.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace offload {

/// Reads \p To.size() bytes of the file open as \p FD, from \p Offset, into
/// \p To: the one way this project reads a range of a file. pread, so the
/// file's offset stays where it is and threads may share \p FD. Fails with
/// "unexpected end of file" or the read's error.
llvm::Error readFileRange(int FD, uint64_t Offset,
                          llvm::MutableArrayRef<char> To);

/// Appends \p Size bytes of the file open as \p InFD, from \p Offset, to the
/// file behind \p OS (flushed first). \p InName names the input in errors.
llvm::Error appendFileRange(OutputFileStream &OS, int InFD,
                            uint64_t Offset, uint64_t Size,
                            llvm::StringRef InName);

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_FILECOPY_H

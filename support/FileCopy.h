//===- support/FileCopy.h - Copying file ranges without reading them -*- C++ -*-//
//
// Large payloads (device images of hundreds of MiB) are copied from file to
// file by the kernel where it can (copy_file_range), so that they never pass
// through this process's memory; elsewhere in 1 MiB pieces.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_FILECOPY_H
#define LLD_OFFLOAD_SUPPORT_FILECOPY_H

#include "support/AtomicOutput.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace offload {

/// Appends \p Size bytes of the file open as \p InFD, from \p Offset, to the
/// file behind \p OS (flushed first). \p InName names the input in errors.
llvm::Error appendFileRange(OutputFileStream &OS, int InFD,
                            uint64_t Offset, uint64_t Size,
                            llvm::StringRef InName);

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_FILECOPY_H

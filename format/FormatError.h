//===- format/FormatError.h - "<file>: offset 0x<n>: <problem>" -*- C++ -*-===//
//
// How every reader of an on-disk format says what is wrong with its input:
// the file (or the place in a container), the offset in it, in hex, and the
// problem.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_FORMATERROR_H
#define LLD_OFFLOAD_FORMAT_FORMATERROR_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace offload {

/// "<Where>: offset 0x<Offset>: <Msg>", the offset in upper-case hex.
inline llvm::Error formatError(const llvm::Twine &Where, uint64_t Offset,
                               const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Where + ": offset 0x" +
                                     llvm::utohexstr(Offset) + ": " + Msg);
}

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_FORMATERROR_H

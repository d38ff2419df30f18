//===- format/CheckedArchive.h - Archives, bounds-checked -----*- C++ -*-===//
//
// LLVM 22's archive reader trusts a member's size field: a member may extend
// past the end of the buffer (its contents, and an ELF reader on them, then
// read whatever memory follows), and a header cut short by the end of the
// buffer is read whole while the error about it is being written. Found by
// fuzz-find-binaries (docs/fuzzing.md, finding 3). Every archive we open goes
// through createCheckedArchive(), which walks the member headers first.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_CHECKEDARCHIVE_H
#define LLD_OFFLOAD_FORMAT_CHECKEDARCHIVE_H

#include "llvm/Object/Archive.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

namespace offload {

/// Checks that every member header of the GNU/BSD archive (regular or thin)
/// in \p Buffer lies within it, that each size field is a number, and that
/// each member's data (for thin archives: only the symbol and name tables')
/// ends before the buffer does. Other buffers pass unchecked. Errors give the
/// offset of the header and the problem.
llvm::Error checkArchiveBounds(llvm::MemoryBufferRef Buffer);

/// checkArchiveBounds(), then llvm::object::Archive::create().
llvm::Expected<std::unique_ptr<llvm::object::Archive>>
createCheckedArchive(llvm::MemoryBufferRef Buffer);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_CHECKEDARCHIVE_H

//===- format/CheckedArchive.h - Archives, bounds-checked -----*- C++ -*-===//
//
// LLVM 22's archive reader trusts a member's size field: a member may extend
// past the end of the buffer (its contents, and an ELF reader on them, then
// read whatever memory follows), and a header cut short by the end of the
// buffer is read whole while the error about it is being written. Found by
// fuzz-find-binaries (docs/fuzzing.md, finding 3). Inside a thin archive the
// same holds for the members LLVM takes for the symbol and name tables, whose
// names it reads only up to the first space (finding 10). A thin archive's
// other members are files, which LLVM reads whatever they are: a FIFO waits
// forever, /dev/zero fills the memory. Every archive we open goes through
// createCheckedArchive(), which walks the member headers first and refuses
// thin members that name anything but regular files.
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
/// each member's data (for thin archives: only the symbol and name tables',
/// told apart as LLVM 22 does) ends before the buffer does, as does a thin
/// member's BSD long name. Other buffers pass unchecked. Errors give the
/// offset of the header and the problem.
llvm::Error checkArchiveBounds(llvm::MemoryBufferRef Buffer);

/// Whether \p Member is a file of its own that its thin archive names by
/// path: every member of a thin archive but the symbol and name tables.
llvm::Expected<bool> isThinMember(const llvm::object::Archive::Child &Member);

/// For a thin archive, checks that each member's path that exists names a
/// regular file (following symbolic links); missing files are left to the
/// reader of the member. The error names the member, the offset of its
/// header and the path. Other archives pass.
llvm::Error checkThinMembers(const llvm::object::Archive &Archive);

/// checkArchiveBounds(), llvm::object::Archive::create(), then
/// checkThinMembers().
llvm::Expected<std::unique_ptr<llvm::object::Archive>>
createCheckedArchive(llvm::MemoryBufferRef Buffer);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_CHECKEDARCHIVE_H

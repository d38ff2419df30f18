//===- format/ArchiveMembers.h - Walking an archive's members ---*- C++ -*-===//
//
// The one way to walk the members of an archive opened with
// createCheckedArchive(), and the one rule for telling them apart:
//
// A member is named as LLD's --trace and messages and clang name it,
// "archive(member)", member being the name the archive gives it (a thin
// archive's: the path it stores). An archive may hold several members of one
// name (`ar q`, or objects of one name from different directories), and
// nothing LLD prints tells them apart: members of one name are told apart by
// their order. A member's occurrence is how many members of its name come
// before it in the archive, and the Nth line of a trace that names
// "archive(member)" (counted by MemberOccurrences) is its occurrence N. Where
// a link loads only some members of one name, the trace cannot say which:
// the first ones are taken.
//
// Besides createCheckedArchive()'s checks, before LLVM reads an archive, a
// link's one other reader of member headers is scanArchiveMembers()
// (lld-plugin/LinkInputs.h), which reads a large link's archives with pread
// to say that no member holds device code, and leaves every archive where
// one may to this walk.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_ARCHIVEMEMBERS_H
#define LLD_OFFLOAD_FORMAT_ARCHIVEMEMBERS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Object/Archive.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <optional>
#include <string>
#include <vector>

namespace offload {

/// One member of an archive, as forEachArchiveMember() finds it. Valid as
/// long as the archive and the archive name given to the walk.
class ArchiveMember {
public:
  ArchiveMember(const llvm::object::Archive::Child &Child, llvm::StringRef Name,
                size_t Index, unsigned Occurrence, llvm::StringRef ArchiveName)
      : Child(Child), Name(Name), Index(Index), Occurrence(Occurrence),
        ArchiveName(ArchiveName) {}

  /// The name the archive gives it.
  llvm::StringRef name() const { return Name; }
  /// How many members come before it in the archive.
  size_t index() const { return Index; }
  /// How many members of this name come before it in the archive.
  unsigned occurrence() const { return Occurrence; }
  /// "archive(member)".
  std::string describe() const;
  /// Its contents, named name(): in the archive, or for a thin archive the
  /// member's file, read now. Errors start with describe().
  llvm::Expected<llvm::MemoryBufferRef> data() const;
  /// Where its contents start in the archive's buffer; none for a thin
  /// archive's member, a file of its own.
  std::optional<uint64_t> dataOffset() const;
  /// LLVM's view of it, for what only that tells (a thin member's path).
  const llvm::object::Archive::Child &child() const { return Child; }

private:
  llvm::object::Archive::Child Child;
  llvm::StringRef Name;
  size_t Index;
  unsigned Occurrence;
  llvm::StringRef ArchiveName;
};

/// Calls \p Visit with each member of \p Lib, in archive order (the symbol
/// and name tables are not members); stops at the first error. The walk's
/// own errors (a member header or name that cannot be read) start with
/// \p ArchiveName; \p Visit's pass as they are.
llvm::Error forEachArchiveMember(
    const llvm::object::Archive &Lib, llvm::StringRef ArchiveName,
    llvm::function_ref<llvm::Error(const ArchiveMember &)> Visit);

/// The members of an archive, walked once, for the lookups of the members a
/// trace names.
class ArchiveMemberIndex {
public:
  static llvm::Expected<ArchiveMemberIndex>
  read(const llvm::object::Archive &Lib, llvm::StringRef ArchiveName);

  /// Every member, in archive order.
  llvm::ArrayRef<ArchiveMember> members() const { return Members; }
  /// The member \p Name of that occurrence; null if there is none.
  const ArchiveMember *find(llvm::StringRef Name, unsigned Occurrence) const;

private:
  std::vector<ArchiveMember> Members;
  /// Indices into Members of the members of each name, in order.
  llvm::StringMap<llvm::SmallVector<size_t, 1>> ByName;
};

/// Counts members of one name as the rule above counts them: the first one
/// met is occurrence 0. Keyed by whatever names the member: its name within
/// one archive, or the "archive(member)" of a trace line.
class MemberOccurrences {
public:
  /// The occurrence of the member \p Key met now.
  unsigned next(llvm::StringRef Key) { return Counts[Key]++; }
  /// How many members \p Key names were met so far.
  unsigned count(llvm::StringRef Key) const { return Counts.lookup(Key); }

private:
  llvm::StringMap<unsigned> Counts;
};

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_ARCHIVEMEMBERS_H

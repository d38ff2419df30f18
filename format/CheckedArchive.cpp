//===- format/CheckedArchive.cpp - Archives opened after a bounds check ---===//

#include "format/CheckedArchive.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace offload {

// The 60-byte member header: name[16] date[12] uid[6] gid[6] mode[8]
// size[10] terminator[2].
static constexpr uint64_t HeaderSize = 60;
static constexpr uint64_t NameFieldLength = 16;
static constexpr uint64_t SizeFieldOffset = 48;
static constexpr uint64_t SizeFieldLength = 10;

static Error boundsError(uint64_t Offset, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "truncated or malformed archive: member header at "
                           "offset " +
                               Twine(Offset) + ": " + Msg);
}

/// The member name as LLVM 22's reader takes it to tell the symbol and name
/// tables from a thin archive's members: a name that starts with '/' ends at
/// the first space, so "/ X" is the symbol table "/", not a member.
static StringRef tableName(StringRef NameField) {
  return NameField.take_until([](char C) { return C == ' '; });
}

/// Whether LLVM 22 keeps the data of a member with this name field inside a
/// thin archive: only the symbol and name tables'.
static bool isTableMember(StringRef NameField) {
  StringRef Name = tableName(NameField);
  return Name == "/" || Name == "//" || Name == "/SYM64/";
}

Error checkArchiveBounds(MemoryBufferRef Buffer) {
  StringRef Data = Buffer.getBuffer();
  bool Thin = Data.starts_with("!<thin>\n");
  if (!Thin && !Data.starts_with("!<arch>\n"))
    return Error::success();
  uint64_t At = 8;
  while (At < Data.size()) {
    uint64_t Left = Data.size() - At;
    if (Left < HeaderSize)
      return boundsError(At, "only " + Twine(Left) +
                                 " bytes left, a header needs " +
                                 Twine(HeaderSize));
    StringRef Header = Data.substr(At, HeaderSize);
    StringRef NameField = Header.take_front(NameFieldLength);
    StringRef SizeField =
        Header.substr(SizeFieldOffset, SizeFieldLength).rtrim(' ');
    uint64_t Size;
    if (SizeField.getAsInteger(10, Size))
      return boundsError(At, "size field '" + SizeField + "' is not a number");
    uint64_t DataAt = At + HeaderSize;
    // A thin archive holds only its symbol and name tables' data. Which
    // members those are must be decided as LLVM decides it: a table whose
    // name field carries more after a space ("/ X") has its data read all
    // the same (found by fuzz-find-binaries, finding 10).
    if (Thin && !isTableMember(NameField)) {
      // A BSD long name ("#1/<length>") follows the header, also in a thin
      // archive, where it lies over whatever comes next.
      StringRef Name = tableName(NameField);
      uint64_t NameLength;
      if (Name.consume_front("#1/") && !Name.getAsInteger(10, NameLength) &&
          NameLength > Data.size() - DataAt)
        return boundsError(At, "name of " + Twine(NameLength) +
                                   " bytes extends past the end of the "
                                   "archive (" +
                                   Twine(Data.size() - DataAt) +
                                   " bytes left)");
      At = DataAt;
      continue;
    }
    if (Size > Data.size() - DataAt)
      return boundsError(At,
                         "member of " + Twine(Size) +
                             " bytes extends past the end of the archive (" +
                             Twine(Data.size() - DataAt) + " bytes left)");
    // Members are 2-aligned; the padding byte may be missing at the end.
    At = DataAt + Size + ((DataAt + Size) & 1);
  }
  return Error::success();
}

Expected<bool> isThinMember(const object::Archive::Child &Member) {
  if (!Member.getParent()->isThin())
    return false;
  Expected<StringRef> RawName = Member.getRawName();
  if (!RawName)
    return RawName.takeError();
  return !isTableMember(*RawName);
}

static StringRef describeFileType(sys::fs::file_type Type) {
  switch (Type) {
  case sys::fs::file_type::directory_file:
    return "a directory";
  case sys::fs::file_type::block_file:
    return "a block device";
  case sys::fs::file_type::character_file:
    return "a character device";
  case sys::fs::file_type::fifo_file:
    return "a FIFO";
  case sys::fs::file_type::socket_file:
    return "a socket";
  default:
    return "of an unknown type";
  }
}

Error checkThinMembers(const object::Archive &Archive) {
  if (!Archive.isThin())
    return Error::success();
  // Errors in the member list are left to whoever walks the members next:
  // this walk only stops at them.
  Error Err = Error::success();
  for (const object::Archive::Child &Member :
       Archive.children(Err, /*SkipInternal=*/false)) {
    Expected<bool> Thin = isThinMember(Member);
    if (!Thin || !*Thin) {
      if (!Thin)
        consumeError(Thin.takeError());
      continue;
    }
    Expected<std::string> Path = Member.getFullName();
    if (!Path) {
      consumeError(Path.takeError());
      continue;
    }
    // stat(), not open(): opening a FIFO waits for a writer.
    sys::fs::file_status Status;
    if (sys::fs::status(*Path, Status))
      continue; // a missing file is reported when the member is read
    if (Status.type() == sys::fs::file_type::regular_file)
      continue;
    consumeError(std::move(Err));
    // getFullName() has read the name already.
    StringRef Name = cantFail(Member.getName());
    return createStringError(
        inconvertibleErrorCode(),
        "thin archive member '" + Name + "' (header at offset " +
            Twine(Member.getChildOffset()) + "): '" + *Path + "' is " +
            describeFileType(Status.type()) + ", not a regular file");
  }
  consumeError(std::move(Err));
  return Error::success();
}

Expected<std::unique_ptr<object::Archive>>
createCheckedArchive(MemoryBufferRef Buffer) {
  if (Error E = checkArchiveBounds(Buffer))
    return std::move(E);
  Expected<std::unique_ptr<object::Archive>> Archive =
      object::Archive::create(Buffer);
  if (!Archive)
    return Archive.takeError();
  if (Error E = checkThinMembers(**Archive))
    return std::move(E);
  return Archive;
}

} // namespace offload

//===- format/CheckedArchive.cpp - Archives opened after a bounds check ---===//

#include "format/CheckedArchive.h"

#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace offload {

// The 60-byte member header: name[16] date[12] uid[6] gid[6] mode[8]
// size[10] terminator[2].
static constexpr uint64_t HeaderSize = 60;
static constexpr uint64_t SizeFieldOffset = 48;
static constexpr uint64_t SizeFieldLength = 10;

static Error boundsError(uint64_t Offset, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "truncated or malformed archive: member header at "
                           "offset " +
                               Twine(Offset) + ": " + Msg);
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
    StringRef Name = Header.take_front(16).rtrim(' ');
    StringRef SizeField =
        Header.substr(SizeFieldOffset, SizeFieldLength).rtrim(' ');
    uint64_t Size;
    if (SizeField.getAsInteger(10, Size))
      return boundsError(At, "size field '" + SizeField + "' is not a number");
    uint64_t DataAt = At + HeaderSize;
    // A thin archive holds only its symbol and name tables' data.
    bool HasData = !Thin || Name == "/" || Name == "//" || Name == "/SYM64/";
    if (!HasData) {
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

Expected<std::unique_ptr<object::Archive>>
createCheckedArchive(MemoryBufferRef Buffer) {
  if (Error E = checkArchiveBounds(Buffer))
    return std::move(E);
  return object::Archive::create(Buffer);
}

} // namespace offload

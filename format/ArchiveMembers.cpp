//===- format/ArchiveMembers.cpp - Walking an archive's members -----------===//

#include "format/ArchiveMembers.h"

using namespace llvm;
using namespace llvm::object;

namespace offload {

static Error memberError(const Twine &Where, Error E) {
  return createStringError(inconvertibleErrorCode(),
                           Where + ": " + toString(std::move(E)));
}

std::string ArchiveMember::describe() const {
  return (ArchiveName + "(" + Name + ")").str();
}

Expected<MemoryBufferRef> ArchiveMember::data() const {
  Expected<MemoryBufferRef> Data = Child.getMemoryBufferRef();
  if (!Data)
    return memberError(describe(), Data.takeError());
  return *Data;
}

std::optional<uint64_t> ArchiveMember::dataOffset() const {
  const Archive &Lib = *Child.getParent();
  if (Lib.isThin())
    return std::nullopt;
  Expected<StringRef> Data = Child.getBuffer();
  if (!Data) {
    consumeError(Data.takeError());
    return std::nullopt;
  }
  return Data->data() - Lib.getData().data();
}

Error forEachArchiveMember(const Archive &Lib, StringRef ArchiveName,
                           function_ref<Error(const ArchiveMember &)> Visit) {
  MemberOccurrences Seen;
  size_t Index = 0;
  // The iteration's error must be checked on every way out of the loop.
  Error Err = Error::success();
  for (const Archive::Child &Child : Lib.children(Err)) {
    Expected<StringRef> Name = Child.getName();
    if (!Name) {
      consumeError(std::move(Err));
      return memberError(ArchiveName, Name.takeError());
    }
    if (Error E = Visit(ArchiveMember(Child, *Name, Index++, Seen.next(*Name),
                                      ArchiveName))) {
      consumeError(std::move(Err));
      return E;
    }
  }
  if (Err)
    return memberError(ArchiveName, std::move(Err));
  return Error::success();
}

Expected<ArchiveMemberIndex> ArchiveMemberIndex::read(const Archive &Lib,
                                                      StringRef ArchiveName) {
  ArchiveMemberIndex Index;
  if (Error E = forEachArchiveMember(
          Lib, ArchiveName, [&](const ArchiveMember &Member) {
            Index.ByName[Member.name()].push_back(Index.Members.size());
            Index.Members.push_back(Member);
            return Error::success();
          }))
    return std::move(E);
  return std::move(Index);
}

const ArchiveMember *ArchiveMemberIndex::find(StringRef Name,
                                              unsigned Occurrence) const {
  auto It = ByName.find(Name);
  if (It == ByName.end() || Occurrence >= It->second.size())
    return nullptr;
  return &Members[It->second[Occurrence]];
}

} // namespace offload

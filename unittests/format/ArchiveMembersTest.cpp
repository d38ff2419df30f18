//===- unittests/format/ArchiveMembersTest.cpp ----------------------------===//

#include "format/ArchiveMembers.h"
#include "format/CheckedArchive.h"

#include "../ErrorMatchers.h"

#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

struct Walked {
  std::string Name;
  unsigned Occurrence;
  std::string Data;
  std::string Described;
};

/// Every member of \p Lib as the walk gives it.
std::vector<Walked> walk(const object::Archive &Lib, StringRef Name) {
  std::vector<Walked> Out;
  EXPECT_TRUE(succeeded(
      forEachArchiveMember(Lib, Name, [&](const ArchiveMember &M) -> Error {
        Expected<MemoryBufferRef> Data = M.data();
        if (!Data)
          return Data.takeError();
        Out.push_back({M.name().str(), M.occurrence(), Data->getBuffer().str(),
                       M.describe()});
        return Error::success();
      })));
  return Out;
}

std::string writeArchive(ArrayRef<std::pair<StringRef, StringRef>> Members) {
  std::vector<NewArchiveMember> New;
  for (const auto &[Name, Data] : Members)
    New.emplace_back(MemoryBufferRef(Data, Name));
  return takeOrFail(writeArchiveToBuffer(New, SymtabWritingMode::NormalSymtab,
                                         object::Archive::K_GNU,
                                         /*Deterministic=*/true,
                                         /*Thin=*/false))
      ->getBuffer()
      .str();
}

TEST(ArchiveMembersTest, MembersOfOneNameAreToldApartByOrder) {
  std::string Data = writeArchive({{"a_long_member_name.o", "1"},
                                   {"m.o", "first"},
                                   {"m.o", "second"},
                                   {"b.o", "3"}});
  std::unique_ptr<object::Archive> Lib =
      takeOrFail(createCheckedArchive(MemoryBufferRef(Data, "lib.a")));
  std::vector<Walked> Members = walk(*Lib, "lib.a");
  ASSERT_EQ(Members.size(), 4u);
  EXPECT_EQ(Members[0].Name, "a_long_member_name.o");
  EXPECT_EQ(Members[1].Name, "m.o");
  EXPECT_EQ(Members[1].Occurrence, 0u);
  EXPECT_EQ(Members[1].Data, "first");
  EXPECT_EQ(Members[2].Name, "m.o");
  EXPECT_EQ(Members[2].Occurrence, 1u);
  EXPECT_EQ(Members[2].Data, "second");
  EXPECT_EQ(Members[2].Described, "lib.a(m.o)");
  EXPECT_EQ(Members[3].Occurrence, 0u);

  ArchiveMemberIndex Index =
      takeOrFail(ArchiveMemberIndex::read(*Lib, "lib.a"));
  ASSERT_EQ(Index.members().size(), 4u);
  const ArchiveMember *Second = Index.find("m.o", 1);
  ASSERT_NE(Second, nullptr);
  EXPECT_EQ(takeOrFail(Second->data()).getBuffer(), "second");
  // Its contents lie in the archive, where the offset says.
  std::optional<uint64_t> Offset = Second->dataOffset();
  ASSERT_TRUE(Offset.has_value());
  EXPECT_EQ(StringRef(Data).substr(*Offset, 6), "second");
  EXPECT_EQ(Index.find("m.o", 2), nullptr);
  EXPECT_EQ(Index.find("x.o", 0), nullptr);

  // A trace's lines are counted the same way.
  MemberOccurrences Trace;
  EXPECT_EQ(Trace.next("lib.a(m.o)"), 0u);
  EXPECT_EQ(Trace.next("lib.a(m.o)"), 1u);
  EXPECT_EQ(Trace.count("lib.a(m.o)"), 2u);
  EXPECT_EQ(Trace.count("lib.a(b.o)"), 0u);
}

TEST(ArchiveMembersTest, TheVisitorsErrorStopsTheWalkAsItIs) {
  std::string Data = writeArchive({{"a.o", "1"}, {"b.o", "2"}});
  std::unique_ptr<object::Archive> Lib =
      takeOrFail(createCheckedArchive(MemoryBufferRef(Data, "lib.a")));
  unsigned Visited = 0;
  Error E = forEachArchiveMember(*Lib, "lib.a", [&](const ArchiveMember &) {
    ++Visited;
    return createStringError(inconvertibleErrorCode(), "stop here");
  });
  EXPECT_EQ(toString(std::move(E)), "stop here");
  EXPECT_EQ(Visited, 1u);
}

TEST(ArchiveMembersTest, ThinArchiveMembersAreTheirFiles) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("archive-members", Dir));
  auto Write = [&](StringRef Name, StringRef Data) {
    SmallString<128> Path(Dir);
    sys::path::append(Path, Name);
    std::error_code EC;
    raw_fd_ostream(Path, EC) << Data;
    EXPECT_FALSE(EC);
    return std::string(Path);
  };
  std::vector<NewArchiveMember> New;
  for (StringRef Name : {"t.o", "gone.o"})
    New.push_back(takeOrFail(NewArchiveMember::getFile(
        Write(Name, (Name + " data").str()), /*Deterministic=*/true)));
  SmallString<128> LibPath(Dir);
  sys::path::append(LibPath, "libthin.a");
  ASSERT_TRUE(succeeded(writeArchive(LibPath, New, SymtabWritingMode::NoSymtab,
                                     object::Archive::K_GNU,
                                     /*Deterministic=*/true, /*Thin=*/true)));
  std::unique_ptr<MemoryBuffer> File =
      takeOrFail(errorOrToExpected(MemoryBuffer::getFile(LibPath)));
  std::unique_ptr<object::Archive> Lib =
      takeOrFail(createCheckedArchive(*File));
  ArchiveMemberIndex Index = takeOrFail(ArchiveMemberIndex::read(*Lib, "thin"));
  ASSERT_EQ(Index.members().size(), 2u);
  const ArchiveMember &T = Index.members()[0];
  EXPECT_EQ(T.describe(), "thin(" + T.name().str() + ")");
  EXPECT_EQ(takeOrFail(T.data()).getBuffer(), "t.o data");
  EXPECT_FALSE(T.dataOffset().has_value());
  // A member's file gone: the error names the member.
  SmallString<128> Gone(Dir);
  sys::path::append(Gone, "gone.o");
  ASSERT_FALSE(sys::fs::remove(Gone));
  std::string Message = errorMessage(Index.members()[1].data());
  EXPECT_EQ(StringRef(Message).find("thin(" + Index.members()[1].name().str() +
                                    "): "),
            0u)
      << Message;
  sys::fs::remove_directories(Dir);
}

} // namespace

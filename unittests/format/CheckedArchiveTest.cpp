//===- unittests/format/CheckedArchiveTest.cpp ----------------------------===//

#include "format/CheckedArchive.h"

#include "llvm/Object/ArchiveWriter.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

/// An archive written by LLVM's writer, members with the given contents.
std::string writeArchive(ArrayRef<StringRef> Contents, bool Thin = false) {
  // The members refer to their names: keep them alive until written.
  std::vector<std::string> Names;
  for (size_t I = 0; I != Contents.size(); ++I)
    Names.push_back("m" + std::to_string(I) + ".o");
  std::vector<NewArchiveMember> Members;
  for (auto [I, Data] : enumerate(Contents))
    Members.emplace_back(MemoryBufferRef(Data, Names[I]));
  Expected<std::unique_ptr<MemoryBuffer>> Out = writeArchiveToBuffer(
      Members, SymtabWritingMode::NoSymtab, object::Archive::K_GNU,
      /*Deterministic=*/true, Thin);
  if (!Out) {
    ADD_FAILURE() << toString(Out.takeError());
    return "";
  }
  return (*Out)->getBuffer().str();
}

/// The check's message; empty when it passes.
std::string check(StringRef Data) {
  Error E = checkArchiveBounds(MemoryBufferRef(Data, "test.a"));
  return E ? toString(std::move(E)) : std::string();
}

TEST(CheckedArchiveTest, WellFormedArchivesPass) {
  // Odd sizes need the padding byte; the last member may lack it.
  EXPECT_EQ(check(writeArchive({"abc", "defg", "h"})), "");
  EXPECT_EQ(check(writeArchive({})), "");
  EXPECT_EQ(check("!<arch>\n"), "");
  std::string Unpadded = writeArchive({"abc"});
  ASSERT_EQ(Unpadded.back(), '\n');
  Unpadded.pop_back();
  EXPECT_EQ(check(Unpadded), "");
  // Not an archive: left to whoever reads it.
  EXPECT_EQ(check("\x7f"
                  "ELF"),
            "");
}

TEST(CheckedArchiveTest, ThinArchiveMembersHaveNoData) {
  std::string Thin = writeArchive({"abcdef", "gh"}, /*Thin=*/true);
  EXPECT_EQ(check(Thin), "");
  Expected<std::unique_ptr<object::Archive>> A =
      createCheckedArchive(MemoryBufferRef(Thin, "thin.a"));
  EXPECT_TRUE(bool(A)) << (A ? "" : toString(A.takeError()));
}

TEST(CheckedArchiveTest, MemberPastTheEnd) {
  std::string Data = writeArchive({"abcdef"});
  // Cut the member's data short: its size field now claims too much.
  EXPECT_EQ(check(StringRef(Data).drop_back(3)),
            std::string("truncated or malformed archive: member header at "
                        "offset 8: member of 6 bytes extends past the end of "
                        "the archive (3 bytes left)"));
}

TEST(CheckedArchiveTest, HeaderCutShort) {
  std::string Data = writeArchive({"ab", "cd"});
  // The second header starts at 8 + 60 + 2 = 70; keep 10 bytes of it.
  EXPECT_EQ(check(StringRef(Data).take_front(80)),
            std::string("truncated or malformed archive: member "
                        "header at offset 70: only 10 bytes "
                        "left, a header needs 60"));
}

TEST(CheckedArchiveTest, SizeFieldNotANumber) {
  std::string Data = writeArchive({"ab"});
  Data.replace(8 + 48, 2, "x1");
  EXPECT_EQ(check(Data), std::string("truncated or malformed archive: member "
                                     "header at offset 8: size field 'x1' is "
                                     "not a number"));
}

TEST(CheckedArchiveTest, CreateRefusesBeforeLLVMReads) {
  std::string Data = writeArchive({"abcdef"});
  Data.replace(8 + 48, 10, "4294967296");
  Expected<std::unique_ptr<object::Archive>> A =
      createCheckedArchive(MemoryBufferRef(Data, "big.a"));
  ASSERT_FALSE(bool(A));
  consumeError(A.takeError());
}

/// A 60-byte member header.
std::string header(StringRef Name, uint64_t Size) {
  std::string H = (Name + std::string(16 - Name.size(), ' ')).str();
  H += "0           0     0     644     ";
  std::string SizeField = std::to_string(Size);
  H += SizeField + std::string(10 - SizeField.size(), ' ') + "`\n";
  EXPECT_EQ(H.size(), 60u);
  return H;
}

// finding 10: LLVM reads a name that starts with '/' up to the first space,
// so "/ X" is the symbol table to it and its data lies in the thin archive.
// Its size must fit like any table's.
TEST(CheckedArchiveTest, ThinTableNamesReadAsLLVMDoes) {
  std::string Data =
      "!<thin>\n" + header("//", 0) + header("/ X", 5000) + header("a.o/", 0);
  EXPECT_EQ(check(Data),
            std::string("truncated or malformed archive: member header at "
                        "offset 68: member of 5000 bytes extends past the end "
                        "of the archive (60 bytes left)"));
  // Before the check, LLVM handed out the member's 5000 bytes.
  Expected<std::unique_ptr<object::Archive>> A =
      createCheckedArchive(MemoryBufferRef(Data, "thin.a"));
  ASSERT_FALSE(bool(A));
  consumeError(A.takeError());
  // A table of the right size is fine, "/ X" or not.
  std::string Fits = "!<thin>\n" + header("//", 0) + header("/ X", 4) + "abcd";
  EXPECT_EQ(check(Fits), "");
  // Other names with a space are members with no data here.
  EXPECT_EQ(check("!<thin>\n" + header("a b/", 5000)), "");
}

// A BSD long name follows its header, in a thin archive as elsewhere; LLVM
// checks it only against the header's size field.
TEST(CheckedArchiveTest, ThinLongNamePastTheEnd) {
  EXPECT_EQ(check("!<thin>\n" + header("#1/64", 64)),
            std::string("truncated or malformed archive: member header at "
                        "offset 8: name of 64 bytes extends past the end of "
                        "the archive (0 bytes left)"));
  // A thin member's header is followed by the next header, which such a
  // name then overlaps: odd, but within the archive.
  EXPECT_EQ(check("!<thin>\n" + header("#1/4", 4) + header("b.o/", 0)), "");
}

} // namespace

//===- FindOffloadBinariesThinArchiveTest.cpp - Members on disk -----------===//
//
// A thin archive's members are files of their own that the archive object
// reads and owns. Their views must stay valid as long as the finder. The
// members are large enough to be memory-mapped, so a view that outlived its
// buffer would fault rather than read stale bytes.
//
//===----------------------------------------------------------------------===//

#include "format/FindOffloadBinaries.h"

#include "OffloadBinaryTestUtils.h"

#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <sys/stat.h>

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

class ThinArchiveTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("find-thin-archive", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  /// Writes \p Data to \p Name in the test directory; returns its path.
  std::string writeFile(StringRef Name, StringRef Data) {
    SmallString<128> Path(Dir);
    sys::path::append(Path, Name);
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    EXPECT_FALSE(EC) << EC.message();
    OS << Data;
    return std::string(Path);
  }

  /// Writes a thin archive \p Name whose members are the files \p Members
  /// (absolute paths); returns its path.
  std::string writeThinArchive(StringRef Name, ArrayRef<std::string> Members) {
    std::vector<NewArchiveMember> New;
    for (const std::string &Path : Members) {
      NewArchiveMember M =
          takeOrFail(NewArchiveMember::getFile(Path, /*Deterministic=*/true));
      M.MemberName = Path;
      New.push_back(std::move(M));
    }
    std::unique_ptr<MemoryBuffer> Lib = takeOrFail(writeArchiveToBuffer(
        New, SymtabWritingMode::NoSymtab, object::Archive::K_GNU,
        /*Deterministic=*/true, /*Thin=*/true));
    if (!Lib)
      return "";
    EXPECT_TRUE(Lib->getBuffer().starts_with("!<thin>\n"));
    return writeFile(Name, Lib->getBuffer());
  }

  /// The offset of the header of the only member of a thin archive that
  /// writeThinArchive() wrote: after the name table, which holds its path.
  static std::string onlyMemberOffset(StringRef Path) {
    return std::to_string(8 + 60 + alignTo(Path.size() + 2, 2));
  }

  SmallString<128> Dir;
  std::string Big = std::string(1 << 20, 'q');
};

// The members of a thin archive are found and named by their paths.
TEST_F(ThinArchiveTest, MembersFound) {
  std::string A = writeFile("a.bin", write(makeImage(Big), version(1)));
  std::string B = writeFile("b.bin", writeOne());
  std::string Lib = writeThinArchive("libthin.a", {A, B});

  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addFile(Lib)));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 2u);
  EXPECT_EQ(Found[0].Origin.File, Lib);
  EXPECT_EQ(Found[0].Origin.Member, A);
  EXPECT_EQ(Found[0].Origin.describe(), Lib + "(" + A + ")+0x0");
  EXPECT_TRUE(Found[0].Binary.Images[0].Image == Big);
  EXPECT_EQ(Found[1].Origin.Member, B);
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "IMAGE-BYTES");
}

// When a later member is malformed, the error names it, and what was found
// before it stays readable: the finder still owns the earlier members.
TEST_F(ThinArchiveTest, ErrorKeepsEarlierMembersAlive) {
  std::string Bad = writeOne();
  put32(Bad, field::Version, 0);
  std::string A = writeFile("good.bin", write(makeImage(Big), version(1)));
  std::string B = writeFile("bad.bin", Bad);
  std::string Lib = writeThinArchive("libthin.a", {A, B});

  OffloadBinaryFinder Finder;
  std::string Msg = errorMessage(Finder.addFile(Lib));
  EXPECT_THAT(Msg, HasSubstr(Lib + "(" + B +
                             "): offset 0x0: unsupported offload binary "
                             "version 0"));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 1u);
  EXPECT_EQ(Found[0].Origin.Member, A);
  EXPECT_TRUE(Found[0].Binary.Images[0].Image == Big);
}

// A thin archive whose member file is gone is an error naming the archive.
TEST_F(ThinArchiveTest, MissingMember) {
  std::string A = writeFile("gone.bin", writeOne());
  std::string Lib = writeThinArchive("libthin.a", {A});
  ASSERT_FALSE(sys::fs::remove(A));
  OffloadBinaryFinder Finder;
  std::string Msg = errorMessage(Finder.addFile(Lib));
  EXPECT_EQ(Msg.rfind(Lib + ": ", 0), 0u) << Msg;
}

// A member that is not a regular file is refused before it is opened: a FIFO
// would wait for a writer forever, /dev/zero fill the memory.
TEST_F(ThinArchiveTest, MemberNotARegularFile) {
  std::string A = writeFile("fifo.o", writeOne());
  std::string Lib = writeThinArchive("libthin.a", {A});
  ASSERT_FALSE(sys::fs::remove(A));
  ASSERT_EQ(::mkfifo(A.c_str(), 0600), 0);
  OffloadBinaryFinder Finder;
  EXPECT_EQ(errorMessage(Finder.addFile(Lib)),
            Lib + ": thin archive member '" + A + "' (header at offset " +
                onlyMemberOffset(A) + "): '" + A +
                "' is a FIFO, not a regular file");

  std::string B = writeFile("zero.o", writeOne());
  Lib = writeThinArchive("libzero.a", {B});
  ASSERT_FALSE(sys::fs::remove(B));
  ASSERT_FALSE(sys::fs::create_link("/dev/zero", B));
  EXPECT_THAT(errorMessage(Finder.addFile(Lib)),
              HasSubstr("'" + B +
                        "' is a character device, not a regular "
                        "file"));
}

// A thin archive that names itself, or an archive around it: the scan would
// never end (it overflowed the stack).
TEST_F(ThinArchiveTest, MemberIncludesTheArchive) {
  std::string Self = writeFile("self.a", "");
  std::string Lib = writeThinArchive("self.a", {Self});
  ASSERT_EQ(Lib, Self);
  OffloadBinaryFinder Finder;
  EXPECT_EQ(errorMessage(Finder.addFile(Lib)),
            Lib + ": thin archive member '" + Lib + "' (header at offset " +
                onlyMemberOffset(Lib) + "): '" + Lib +
                "' is this archive or one that includes it");

  // Known by its contents only (addBuffer): found one level further down.
  std::unique_ptr<MemoryBuffer> Copy =
      takeOrFail(errorOrToExpected(MemoryBuffer::getFile(Lib)));
  ASSERT_TRUE(Copy);
  OffloadBinaryFinder Other;
  EXPECT_EQ(errorMessage(Other.addBuffer(*Copy, Lib)),
            Lib + "(" + Lib + "): thin archive member '" + Lib +
                "' (header at offset " + onlyMemberOffset(Lib) + "): '" + Lib +
                "' is this archive or one that includes it");
}

// The same member twice is no cycle.
TEST_F(ThinArchiveTest, SameMemberTwice) {
  std::string A = writeFile("a.bin", writeOne());
  std::string Lib = writeThinArchive("libthin.a", {A, A});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addFile(Lib)));
  EXPECT_EQ(Finder.binaries().size(), 2u);
}

/// A regular archive with one member, \p Data.
std::string wrapInArchive(StringRef Data) {
  std::vector<NewArchiveMember> Members;
  Members.emplace_back(MemoryBufferRef(Data, "a"));
  std::unique_ptr<MemoryBuffer> Lib = takeOrFail(writeArchiveToBuffer(
      Members, SymtabWritingMode::NoSymtab, object::Archive::K_GNU,
      /*Deterministic=*/true, /*Thin=*/false));
  return Lib ? Lib->getBuffer().str() : "";
}

// Each level of nesting is a recursion: more than MaxArchiveDepth levels
// are refused (20,000 levels, 1.4 MB, overflowed the stack).
TEST(ArchiveDepthTest, NestingIsBounded) {
  std::string Data = writeOne();
  for (unsigned I = 0; I != OffloadBinaryFinder::MaxArchiveDepth; ++I)
    Data = wrapInArchive(Data);
  {
    OffloadBinaryFinder Finder;
    ASSERT_TRUE(
        succeeded(Finder.addBuffer(MemoryBufferRef(Data, "l.a"), "l.a")));
    EXPECT_EQ(Finder.binaries().size(), 1u);
  }
  Data = wrapInArchive(Data);
  OffloadBinaryFinder Finder;
  std::string Where = "l.a";
  for (unsigned I = 0; I != OffloadBinaryFinder::MaxArchiveDepth; ++I)
    Where += "(a)";
  EXPECT_EQ(errorMessage(Finder.addBuffer(MemoryBufferRef(Data, "l.a"), "l.a")),
            Where + ": archives nested more than 16 deep");
}

} // namespace

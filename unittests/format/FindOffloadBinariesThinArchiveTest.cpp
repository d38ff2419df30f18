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

} // namespace

//===- FindOffloadBinariesTest.cpp - Raw files, archives, origins ---------===//
//
// The finder on raw OffloadBinary files and on archives built in memory
// (misaligned members, nested archives), the files it ignores, and how it
// names where each binary came from.
//
//===----------------------------------------------------------------------===//

#include "format/FindOffloadBinaries.h"

#include "OffloadBinaryTestUtils.h"

#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

/// Two v1 binaries back to back.
std::string twoBinaries(StringRef First = "first", StringRef Second = "2nd") {
  ImageToWrite Images[] = {makeImage(First), makeImage(Second)};
  return write(Images, version(1));
}

/// A GNU archive holding \p Members (name, contents), without a symbol table.
std::unique_ptr<MemoryBuffer>
makeArchive(ArrayRef<std::pair<StringRef, StringRef>> Members) {
  std::vector<NewArchiveMember> New;
  for (const auto &[Name, Contents] : Members) {
    NewArchiveMember M(MemoryBufferRef(Contents, Name));
    M.MemberName = Name;
    New.push_back(std::move(M));
  }
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      writeArchiveToBuffer(New, SymtabWritingMode::NoSymtab,
                           object::Archive::K_GNU, /*Deterministic=*/true,
                           /*Thin=*/false);
  if (!Buf) {
    ADD_FAILURE() << toString(Buf.takeError());
    return MemoryBuffer::getMemBuffer("");
  }
  return std::move(*Buf);
}

bool contains(StringRef Outer, StringRef Inner) {
  return Inner.data() >= Outer.data() &&
         Inner.data() + Inner.size() <= Outer.data() + Outer.size();
}

// describe() names the file, the member, the section and the offset in hex.
TEST(OffloadOrigin, Describe) {
  OffloadOrigin O;
  O.File = "a.bin";
  EXPECT_EQ(O.describe(), "a.bin+0x0");
  O.Offset = 0x1F0;
  EXPECT_EQ(O.describe(), "a.bin+0x1F0");
  O.Section = ".llvm.offloading";
  EXPECT_EQ(O.describe(), "a.bin:.llvm.offloading+0x1F0");
  O.File = "lib.a";
  O.Member = "m.o";
  EXPECT_EQ(O.describe(), "lib.a(m.o):.llvm.offloading+0x1F0");
  O.Section.clear();
  O.Offset = 8;
  EXPECT_EQ(O.describe(), "lib.a(m.o)+0x8");
}

// A raw file of binaries back to back: every binary, its offset, no member
// and no section; the views point into the caller's buffer.
TEST(FindOffloadBinaries, RawBuffer) {
  std::string Data = twoBinaries();
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(
      succeeded(Finder.addBuffer(MemoryBufferRef(Data, "raw.bin"), "raw.bin")));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 2u);
  EXPECT_EQ(Found[0].Origin.File, "raw.bin");
  EXPECT_EQ(Found[0].Origin.Member, "");
  EXPECT_EQ(Found[0].Origin.Section, "");
  EXPECT_EQ(Found[0].Origin.Offset, 0u);
  EXPECT_EQ(Found[0].Binary.Images[0].Image, "first");
  uint64_t Second = get64(Data, field::Size);
  EXPECT_EQ(Found[1].Origin.Offset, Second);
  EXPECT_EQ(Found[1].Origin.describe(), "raw.bin+0x" + utohexstr(Second));
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "2nd");
  EXPECT_TRUE(contains(Data, Found[1].Binary.Images[0].Image));
}

// Several inputs are kept in input order.
TEST(FindOffloadBinaries, InputOrder) {
  std::string A = twoBinaries("a1", "a2"), B = writeOne();
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(A, "a"), "a")));
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(B, "b"), "b")));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 3u);
  EXPECT_EQ(Found[0].Binary.Images[0].Image, "a1");
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "a2");
  EXPECT_EQ(Found[2].Origin.File, "b");
}

// Files of no known kind hold no binaries and are no error.
TEST(FindOffloadBinaries, UnknownFilesYieldNothing) {
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(
      Finder.addBuffer(MemoryBufferRef("hello world\n", "t.txt"), "t.txt")));
  ASSERT_TRUE(
      succeeded(Finder.addBuffer(MemoryBufferRef("", "empty"), "empty")));
  // The magic in the middle of a file does not count.
  std::string Hidden = "prefix.." + writeOne();
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(Hidden, "h"), "h")));
  EXPECT_TRUE(Finder.binaries().empty());
}

// A malformed raw file is an error naming the file and the offset.
TEST(FindOffloadBinaries, MalformedRawFile) {
  std::string Data = twoBinaries();
  uint64_t Second = get64(Data, field::Size);
  put64(Data, Second + field::EntrySizeOrCount, 1);
  OffloadBinaryFinder Finder;
  std::string Msg = errorMessage(
      Finder.addBuffer(MemoryBufferRef(Data, "raw.bin"), "raw.bin"));
  EXPECT_THAT(Msg, HasSubstr("raw.bin: offset 0x" + utohexstr(Second + 24) +
                             ": entry size 1"));
}

// addFile() reads the file from disk and names it as given.
TEST(FindOffloadBinaries, AddFile) {
  SmallString<128> Path;
  int FD;
  ASSERT_FALSE(sys::fs::createTemporaryFile("find-test", "bin", FD, Path));
  FileRemover Remover(Path);
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << twoBinaries();
  }
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addFile(Path)));
  ASSERT_EQ(Finder.binaries().size(), 2u);
  EXPECT_EQ(Finder.binaries()[0].Origin.File, Path.str());
  EXPECT_EQ(Finder.binaries()[1].Binary.Images[0].Image, "2nd");
}

// A missing file is an error naming it.
TEST(FindOffloadBinaries, AddMissingFile) {
  OffloadBinaryFinder Finder;
  std::string Msg =
      errorMessage(Finder.addFile("/nonexistent/dir/no-such-file.bin"));
  EXPECT_THAT(Msg, HasSubstr("/nonexistent/dir/no-such-file.bin: cannot read"));
}

// Every archive member is scanned; members without binaries are skipped,
// offsets count from the member's start, and views point into the archive.
TEST(FindOffloadBinaries, Archive) {
  std::string A = twoBinaries("a1", "a2"), B = writeOne();
  std::unique_ptr<MemoryBuffer> Lib = makeArchive(
      {{"a.bin", A}, {"readme.txt", "not a binary\n"}, {"b.bin", B}});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(*Lib, "lib.a")));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 3u);
  EXPECT_EQ(Found[0].Origin.File, "lib.a");
  EXPECT_EQ(Found[0].Origin.Member, "a.bin");
  EXPECT_EQ(Found[0].Origin.describe(), "lib.a(a.bin)+0x0");
  EXPECT_EQ(Found[1].Origin.Offset, get64(A, field::Size));
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "a2");
  EXPECT_EQ(Found[2].Origin.Member, "b.bin");
  EXPECT_EQ(Found[2].Origin.Offset, 0u);
  EXPECT_EQ(Found[2].Binary.Images[0].Image, "IMAGE-BYTES");
  EXPECT_TRUE(contains(Lib->getBuffer(), Found[2].Binary.Data));
}

// A member whose bytes are not 8-byte aligned in memory is read in place.
TEST(FindOffloadBinaries, MisalignedArchiveMember) {
  std::string B = twoBinaries();
  std::unique_ptr<MemoryBuffer> Lib =
      makeArchive({{"pad.txt", "abcdef"}, {"b.bin", B}});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(*Lib, "lib.a")));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 2u);
  ASSERT_NE(reinterpret_cast<uintptr_t>(Found[0].Binary.Data.data()) % 8, 0u)
      << "the member happens to be aligned; the test proves nothing";
  EXPECT_TRUE(contains(Lib->getBuffer(), Found[0].Binary.Data));
  EXPECT_EQ(Found[0].Binary.Images[0].Image, "first");
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "2nd");
  EXPECT_EQ(Found[1].Origin.Offset, get64(B, field::Size));
}

// Archives inside archives are scanned recursively and named
// "outer.a(inner.a)(member)".
TEST(FindOffloadBinaries, NestedArchive) {
  std::string B = writeOne();
  std::unique_ptr<MemoryBuffer> Inner = makeArchive({{"x.bin", B}});
  std::unique_ptr<MemoryBuffer> Outer =
      makeArchive({{"top.bin", B}, {"inner.a", Inner->getBuffer()}});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(*Outer, "outer.a")));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 2u);
  EXPECT_EQ(Found[0].Origin.describe(), "outer.a(top.bin)+0x0");
  EXPECT_EQ(Found[1].Origin.File, "outer.a");
  EXPECT_EQ(Found[1].Origin.Member, "inner.a)(x.bin");
  EXPECT_EQ(Found[1].Origin.describe(), "outer.a(inner.a)(x.bin)+0x0");
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "IMAGE-BYTES");
}

// A malformed binary in a member names the archive and the member.
TEST(FindOffloadBinaries, MalformedArchiveMember) {
  std::string B = writeOne();
  put64(B, 32 + field::ImageSize, UINT64_MAX);
  std::unique_ptr<MemoryBuffer> Lib =
      makeArchive({{"ok.bin", writeOne()}, {"bad.bin", B}});
  OffloadBinaryFinder Finder;
  std::string Msg = errorMessage(Finder.addBuffer(*Lib, "lib.a"));
  EXPECT_THAT(Msg, HasSubstr("lib.a(bad.bin): offset 0x38: entry 0: image of "
                             "18446744073709551615 bytes"));
}

// A file that claims to be an archive but is cut short names the file.
TEST(FindOffloadBinaries, TruncatedArchive) {
  std::unique_ptr<MemoryBuffer> Lib = makeArchive({{"b.bin", writeOne()}});
  StringRef Cut = Lib->getBuffer().drop_back(20);
  OffloadBinaryFinder Finder;
  std::string Msg =
      errorMessage(Finder.addBuffer(MemoryBufferRef(Cut, "lib.a"), "lib.a"));
  EXPECT_EQ(Msg.rfind("lib.a", 0), 0u) << Msg;
}

} // namespace

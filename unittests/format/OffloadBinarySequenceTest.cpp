//===- OffloadBinarySequenceTest.cpp - Binaries back to back --------------===//
//
// A `.llvm.offloading` section merged by `ld -r` holds several binaries, each
// at the 8-byte aligned offset after the previous one. These tests read such
// sequences, at any memory alignment, and reject what follows the last
// binary if it is not another one.
//
//===----------------------------------------------------------------------===//

#include "OffloadBinaryTestUtils.h"

#include "llvm/Support/Compression.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

/// Three v1 binaries (one per image) back to back.
std::string threeV1Binaries() {
  ImageToWrite Images[] = {makeImage("a", "triple-a", "arch-a"),
                           makeImage("bbbbbbbbbbbbbbbb", "triple-b", "arch-b"),
                           makeImage("ccc", "triple-c", "arch-c")};
  return write(Images, version(1));
}

void checkThree(const std::vector<OffloadBinary> &Bins, StringRef Data) {
  ASSERT_EQ(Bins.size(), 3u);
  uint64_t Offset = 0;
  const char *Names[] = {"a", "bbbbbbbbbbbbbbbb", "ccc"};
  for (unsigned I = 0; I != 3; ++I) {
    EXPECT_EQ(Bins[I].Offset, Offset);
    EXPECT_EQ(Bins[I].Data.data(), Data.data() + Offset);
    EXPECT_EQ(Bins[I].Data.size(), get64(Data, Offset + field::Size));
    ASSERT_EQ(Bins[I].Images.size(), 1u);
    EXPECT_EQ(Bins[I].Images[0].Image, Names[I]);
    EXPECT_EQ(Bins[I].Images[0].getArch(), "arch-" + std::string(1, 'a' + I));
    Offset += Bins[I].Data.size();
  }
  EXPECT_EQ(Offset, Data.size());
}

// Several v1 binaries concatenated are all read, each at its offset.
TEST(OffloadBinarySequence, SeveralV1BackToBack) {
  std::string Data = threeV1Binaries();
  ByteStore Store;
  checkThree(takeOrFail(readOffloadBinaries(Data, Store, "bin")), Data);
}

// readOffloadBinary() reads the binary at a given offset only.
TEST(OffloadBinarySequence, ReadOneAtOffset) {
  std::string Data = threeV1Binaries();
  uint64_t Second = get64(Data, field::Size);
  ByteStore Store;
  OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, Second, Store, "bin"));
  EXPECT_EQ(Bin.Offset, Second);
  EXPECT_EQ(Bin.Images[0].Image, "bbbbbbbbbbbbbbbb");
}

// An offset past the end of the data.
TEST(OffloadBinarySequence, ReadOnePastEnd) {
  std::string Data = writeOne();
  ByteStore Store;
  std::string Msg = errorMessage(
      readOffloadBinary(Data, Data.size() + 1, Store, "bin", 0x100));
  EXPECT_THAT(Msg,
              HasSubstr("bin: offset 0x" + utohexstr(0x100 + Data.size() + 1) +
                        ": offset is past the end of the data"));
}

// An empty buffer holds no binaries and is no error.
TEST(OffloadBinarySequence, EmptyBuffer) {
  ByteStore Store;
  EXPECT_TRUE(takeOrFail(readOffloadBinaries("", Store, "bin")).empty());
}

// The reader works on a buffer at an odd address, without copying: the
// images point into that buffer.
TEST(OffloadBinarySequence, MisalignedBuffer) {
  std::string Data = threeV1Binaries();
  std::string Storage(Data.size() + 1, '\0');
  memcpy(&Storage[1], Data.data(), Data.size());
  StringRef View = StringRef(Storage).drop_front(1);
  ASSERT_NE(reinterpret_cast<uintptr_t>(View.data()) % 8, 0u);
  ByteStore Store;
  std::vector<OffloadBinary> Bins =
      takeOrFail(readOffloadBinaries(View, Store, "bin"));
  checkThree(Bins, View);
  for (const OffloadBinary &Bin : Bins) {
    const char *P = Bin.Images[0].Image.data();
    EXPECT_TRUE(P >= View.data() && P < View.data() + View.size());
  }
}

// Every version, compressed v3 included, reads at an odd address.
TEST(OffloadBinarySequence, MisalignedEveryVersion) {
  ImageToWrite Images[] = {makeImage("one"), makeImage("two", "t", "a")};
  std::string Data = write(Images, version(1)) + write(Images, version(2)) +
                     write(Images, version(3)) +
                     write(Images, version(3, /*Compress=*/true));
  std::string Storage(Data.size() + 3, '\0');
  memcpy(&Storage[3], Data.data(), Data.size());
  StringRef View = StringRef(Storage).drop_front(3);
  ASSERT_NE(reinterpret_cast<uintptr_t>(View.data()) % 8, 0u);
  ByteStore Store;
  std::vector<OffloadBinary> Bins =
      takeOrFail(readOffloadBinaries(View, Store, "bin"));
  ASSERT_EQ(Bins.size(), 5u);
  uint32_t Versions[] = {1, 1, 2, 3, 3};
  for (unsigned I = 0; I != 5; ++I) {
    EXPECT_EQ(Bins[I].Version, Versions[I]);
    EXPECT_EQ(Bins[I].Data.data(), View.data() + Bins[I].Offset);
  }
  EXPECT_TRUE(Bins[4].Compressed);
  for (unsigned I = 2; I != 5; ++I) {
    ASSERT_EQ(Bins[I].Images.size(), 2u);
    EXPECT_EQ(Bins[I].Images[0].Image, "one");
    EXPECT_EQ(Bins[I].Images[1].Image, "two");
    EXPECT_EQ(Bins[I].Images[1].getArch(), "a");
  }
}

// Compressed binaries are stored without their final padding, so Size need
// not be a multiple of 8; the next binary still starts at alignTo(Size, 8).
TEST(OffloadBinarySequence, CompressedWithUnalignedSize) {
  if (!compression::zstd::isAvailable())
    GTEST_SKIP() << "LLVM built without zstd";
  // Find an image for which the compressed size is not a multiple of 8.
  std::string First, Payload;
  for (unsigned N = 1; N != 64 && First.empty(); ++N) {
    Payload = std::string(N, 'x') + "-" + std::to_string(N * 7919);
    std::string Candidate = write(makeImage(Payload), version(3, true));
    if (get64(Candidate, field::Size) % 8 != 0)
      First = Candidate;
  }
  ASSERT_FALSE(First.empty()) << "no compressed size that is not 8-aligned";
  uint64_t Size = get64(First, field::Size);
  // The writer pads the stored bytes to 8.
  ASSERT_EQ(First.size(), alignTo(Size, 8));
  EXPECT_EQ(StringRef(First).drop_front(Size).find_first_not_of('\0'),
            StringRef::npos);

  std::string Data = First + write(makeImage("second"), version(3, true)) +
                     write(makeImage("third"), version(1));
  ByteStore Store;
  std::vector<OffloadBinary> Bins =
      takeOrFail(readOffloadBinaries(Data, Store, "bin"));
  ASSERT_EQ(Bins.size(), 3u);
  EXPECT_EQ(Bins[0].Data.size(), Size);
  EXPECT_EQ(Bins[0].Images[0].Image, Payload);
  EXPECT_EQ(Bins[1].Offset, alignTo(Size, 8));
  EXPECT_TRUE(Bins[1].Compressed);
  EXPECT_EQ(Bins[1].Images[0].Image, "second");
  EXPECT_FALSE(Bins[2].Compressed);
  EXPECT_EQ(Bins[2].Images[0].Image, "third");
}

// Bytes after the last binary that are not a binary are an error at their
// offset.
TEST(OffloadBinarySequence, TrailingGarbage) {
  std::string Data = threeV1Binaries();
  std::string Msg = readError(Data + "garbage!");
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x" +
                             utohexstr(0x1000 + Data.size()) + ": bad magic"));
}

// Fewer trailing bytes than a magic are still an error.
TEST(OffloadBinarySequence, ShortTrailingGarbage) {
  std::string Data = writeOne();
  std::string Msg = readError(Data + "xy");
  EXPECT_THAT(Msg, HasSubstr("offset 0x" + utohexstr(0x1000 + Data.size()) +
                             ": bad magic"));
}

// A broken second binary is reported at its own offset.
TEST(OffloadBinarySequence, SecondBinaryTruncated) {
  std::string One = writeOne();
  std::string Data = One + One;
  Data.resize(Data.size() - 8);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("offset 0x" + utohexstr(0x1000 + One.size() + 8) +
                             ": binary size"));
}

} // namespace

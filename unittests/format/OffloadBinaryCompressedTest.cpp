//===- OffloadBinaryCompressedTest.cpp - Version 3 compressed binaries ----===//
//
// Reading zstd and zlib compressed v3 binaries, and rejecting those whose
// header does not fit the compressed body. Offsets in header messages are
// absolute (the binary lies at 0x1000); problems inside the inflated body
// name the inflated binary and count from its start.
//
//===----------------------------------------------------------------------===//

#include "OffloadBinaryTestUtils.h"

#include "llvm/Support/Compression.h"

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

std::string writeCompressed(bool UseZstd) {
  ImageToWrite Images[] = {
      makeImage("first image", "amdgcn-amd-amdhsa", "gfx90a"),
      makeImage("second", "nvptx64-nvidia-cuda", "sm_80")};
  return write(Images, version(3, /*Compress=*/true, UseZstd));
}

/// A compressed v3 binary assembled here from an uncompressed one, whose
/// body the caller may have broken first.
std::string compressByHand(StringRef Uncompressed) {
  StringRef Body = Uncompressed.drop_front(layout::HeaderSizeV3);
  SmallVector<uint8_t, 0> Compressed;
  compression::zstd::compress(arrayRefFromStringRef(Body), Compressed);
  std::string Data = Uncompressed.take_front(layout::HeaderSizeV3).str();
  put64(Data, field::Size, layout::HeaderSizeV3 + Compressed.size());
  put64(Data, field::InflatedSize, Uncompressed.size());
  Data += toStringRef(Compressed).str();
  return Data;
}

void checkRoundTrip(bool UseZstd) {
  std::string Data = writeCompressed(UseZstd);
  ByteStore Store;
  std::vector<OffloadBinary> Bins =
      takeOrFail(readOffloadBinaries(Data, Store, "bin"));
  ASSERT_EQ(Bins.size(), 1u);
  const OffloadBinary &Bin = Bins[0];
  EXPECT_EQ(Bin.Version, 3u);
  EXPECT_TRUE(Bin.Compressed);
  EXPECT_EQ(Bin.Data.size(), get64(Data, field::Size));
  EXPECT_EQ(Bin.Data.data(), Data.data());
  ASSERT_EQ(Bin.Images.size(), 2u);
  EXPECT_EQ(Bin.Images[0].Image, "first image");
  EXPECT_EQ(Bin.Images[0].getTriple(), "amdgcn-amd-amdhsa");
  EXPECT_EQ(Bin.Images[0].getArch(), "gfx90a");
  EXPECT_EQ(Bin.Images[1].Image, "second");
  EXPECT_EQ(Bin.Images[1].getArch(), "sm_80");
  // The images live in the inflated copy, not in the input.
  const char *P = Bin.Images[0].Image.data();
  EXPECT_TRUE(P < Data.data() || P >= Data.data() + Data.size());
}

// zstd round trip through the reader.
TEST(OffloadBinaryCompressed, ZstdRoundTrip) {
  if (!compression::zstd::isAvailable())
    GTEST_SKIP() << "LLVM built without zstd";
  checkRoundTrip(/*UseZstd=*/true);
}

// zlib round trip through the reader.
TEST(OffloadBinaryCompressed, ZlibRoundTrip) {
  if (!compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  checkRoundTrip(/*UseZstd=*/false);
}

// The inflated copy the images point into is byte for byte the binary that
// would have been written without compression: the stored header, with the
// inflated size as its size and no inflated size of its own, then the body.
TEST(OffloadBinaryCompressed, InflatedCopyIsUncompressedBinary) {
  for (bool UseZstd : {true, false}) {
    if (compression::getReasonIfUnsupported(
            UseZstd ? compression::Format::Zstd : compression::Format::Zlib))
      continue;
    ImageToWrite Images[] = {makeImage("img-0"), makeImage("img-1", "t", "a")};
    std::string Plain = write(Images, version(3));
    std::string Data = write(Images, version(3, /*Compress=*/true, UseZstd));
    ByteStore Store;
    OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
    ASSERT_EQ(Bin.Images.size(), 2u);
    for (const OffloadImage &Image : Bin.Images) {
      StringRef Inflated(Image.Image.data() - Image.ImageOffset, Plain.size());
      EXPECT_EQ(Inflated, Plain) << (UseZstd ? "zstd" : "zlib");
      EXPECT_EQ(Image.ImageOffset,
                get64(Plain, 40 + 40 * (&Image - &Bin.Images[0]) +
                                 field::ImageOffset));
    }
  }
}

// A binary compressed by hand reads, so the tests that break its body first
// fail for that reason only.
TEST(OffloadBinaryCompressed, HandCompressedReads) {
  std::string Data = compressByHand(writeOne(version(3)));
  ByteStore Store;
  OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
  EXPECT_TRUE(Bin.Compressed);
  ASSERT_EQ(Bin.Images.size(), 1u);
  EXPECT_EQ(Bin.Images[0].Image, "IMAGE-BYTES");
}

// A bad entry inside the inflated body names the binary it came from and
// the offset within the inflated binary (image size field: 40 + 32).
TEST(OffloadBinaryCompressed, ErrorInsideInflatedBody) {
  std::string Plain = writeOne(version(3));
  put64(Plain, 40 + field::ImageSize, Plain.size());
  std::string Msg = readError(compressByHand(Plain));
  EXPECT_THAT(Msg,
              HasSubstr("bin (inflated binary at offset 0x1000): offset 0x40: "
                        "entry 0: image of " +
                        std::to_string(Plain.size()) + " bytes"));
}

// The compressed body would start past the end of the binary.
TEST(OffloadBinaryCompressed, EntriesOffsetPastEnd) {
  std::string Data = writeCompressed(/*UseZstd=*/true);
  uint64_t Size = get64(Data, field::Size);
  put64(Data, field::EntriesOffset, Size + 8);
  std::string Msg = readError(Data);
  EXPECT_THAT(
      Msg, HasSubstr("bin: offset 0x1010: compressed binary: entries offset " +
                     std::to_string(Size + 8) + " is outside the binary"));
}

// ...or inside the header.
TEST(OffloadBinaryCompressed, EntriesOffsetInHeader) {
  std::string Data = writeCompressed(/*UseZstd=*/true);
  put64(Data, field::EntriesOffset, 32);
  std::string Msg = readError(Data);
  EXPECT_THAT(
      Msg, HasSubstr("offset 0x1010: compressed binary: entries offset 32 is "
                     "outside the binary"));
}

// The inflated size must exceed the entries offset.
TEST(OffloadBinaryCompressed, InflatedSizeLeavesNoRoom) {
  std::string Data = writeCompressed(/*UseZstd=*/true);
  put64(Data, field::InflatedSize, 40);
  std::string Msg = readError(Data);
  EXPECT_THAT(
      Msg, HasSubstr("bin: offset 0x1020: compressed binary: inflated size 40 "
                     "leaves no room for entries"));
}

// An inflated size no compressor could reach from so few bytes is refused
// before anything is allocated.
TEST(OffloadBinaryCompressed, InflatedSizeImplausible) {
  std::string Data = writeCompressed(/*UseZstd=*/true);
  uint64_t Compressed = get64(Data, field::Size) - 40;
  put64(Data, field::InflatedSize, uint64_t(1) << 40);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("offset 0x1020: compressed binary: inflated size "
                             "1099511627776 is implausible for " +
                             std::to_string(Compressed) + " compressed bytes"));
  put64(Data, field::InflatedSize, UINT64_MAX);
  Msg = readError(Data);
  EXPECT_THAT(Msg,
              HasSubstr("inflated size 18446744073709551615 is implausible"));
}

// A zstd frame whose descriptor and blocks are garbage.
TEST(OffloadBinaryCompressed, CorruptZstd) {
  std::string Data = writeCompressed(/*UseZstd=*/true);
  ASSERT_EQ(StringRef(Data).substr(40, 4), "\x28\xB5\x2F\xFD");
  uint64_t Size = get64(Data, field::Size);
  for (uint64_t I = 44; I != Size; ++I)
    Data[I] = '\xFF';
  std::string Msg = readError(Data);
  EXPECT_THAT(
      Msg, HasSubstr("bin: offset 0x1028: compressed binary: cannot inflate: "
                     "zstd: "));
}

// A body that is neither zstd nor valid zlib.
TEST(OffloadBinaryCompressed, CorruptZlib) {
  if (!compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  std::string Data = writeCompressed(/*UseZstd=*/false);
  uint64_t Size = get64(Data, field::Size);
  for (uint64_t I = 40; I != Size; ++I)
    Data[I] = '\xFF';
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("compressed binary: cannot inflate: zlib: "));
  // The offset is where inflating stopped, within the body.
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x102"));
}

// The body inflates to less than the header promised: an error at the
// inflated size's field, telling sizes as that field counts them.
TEST(OffloadBinaryCompressed, InflatesToLessThanPromised) {
  std::string Data = writeCompressed(/*UseZstd=*/true);
  uint64_t Inflated = get64(Data, field::InflatedSize);
  put64(Data, field::InflatedSize, Inflated + 8);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x1020: compressed binary: the data "
                             "inflates to " +
                             std::to_string(Inflated) +
                             " bytes where the header "
                             "says " +
                             std::to_string(Inflated + 8)));
}

// The body inflates to more than the header promised.
TEST(OffloadBinaryCompressed, InflatesToMoreThanPromised) {
  for (bool UseZstd : {true, false}) {
    if (!UseZstd && !compression::zlib::isAvailable())
      continue;
    std::string Data = writeCompressed(UseZstd);
    uint64_t Inflated = get64(Data, field::InflatedSize);
    put64(Data, field::InflatedSize, Inflated - 8);
    std::string Msg = readError(Data);
    EXPECT_THAT(Msg, HasSubstr("bin: offset 0x1020: compressed binary: the "
                               "data inflates to more than the " +
                               std::to_string(Inflated - 8) +
                               " bytes the header says"))
        << (UseZstd ? "zstd" : "zlib");
  }
}

} // namespace

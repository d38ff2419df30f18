//===- OffloadBinaryWriterTest.cpp - The bytes the writer produces --------===//
//
// Exact layouts for small v1, v2 and v3 binaries, compressed v3 output,
// the size computed in advance, and the options the writer refuses.
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

/// The NUL-terminated string at \p Offset of \p Data.
StringRef cString(StringRef Data, uint64_t Offset) {
  if (Offset >= Data.size())
    return "<out of range>";
  StringRef Tail = Data.drop_front(Offset);
  return Tail.take_front(Tail.find('\0'));
}

/// True if every byte of [Begin, End) is zero.
bool allZero(StringRef Data, uint64_t Begin, uint64_t End) {
  return Data.slice(Begin, End).find_first_not_of('\0') == StringRef::npos;
}

/// Checks the string entry at \p At: key and value point at \p Key and
/// \p Value inside [TableBegin, TableEnd), and for v2+ the stored value size.
void checkStringEntry(StringRef Data, uint64_t At, uint32_t Version,
                      uint64_t TableBegin, uint64_t TableEnd, StringRef Key,
                      StringRef Value) {
  SCOPED_TRACE("string entry at " + std::to_string(At));
  uint64_t KeyOffset = get64(Data, At), ValueOffset = get64(Data, At + 8);
  EXPECT_GE(KeyOffset, TableBegin);
  EXPECT_LT(KeyOffset, TableEnd);
  EXPECT_GE(ValueOffset, TableBegin);
  EXPECT_LT(ValueOffset, TableEnd);
  EXPECT_EQ(cString(Data, KeyOffset), Key);
  EXPECT_EQ(cString(Data, ValueOffset), Value);
  if (Version >= 2) {
    EXPECT_EQ(get64(Data, At + 16), Value.size());
  }
}

// Every field of a one-image v1 binary: header, entry, string entries that
// point at the right strings, a table starting with NUL, zero padding to 8
// before and after the image, and the size.
TEST(OffloadBinaryWriter, V1ExactLayout) {
  ImageToWrite Image;
  Image.TheImageKind = ImageKind::Cubin;
  Image.TheOffloadKind = OffloadKind::Cuda;
  Image.Flags = 0x12345678;
  Image.Strings = {{"triple", "t1"}, {"arch", "a"}};
  Image.Image = "IMG";
  std::string Data = write(Image, version(1));

  // 32 header + 40 entry + 2 * 16 string entries = 104; the table holds
  // "\0triple\0t1\0arch\0a\0" (18 bytes), so the image starts at 128.
  ASSERT_EQ(Data.size(), 136u);
  EXPECT_EQ(StringRef(Data).take_front(4), StringRef("\x10\xFF\x10\xAD", 4));
  EXPECT_EQ(get32(Data, 4), 1u);
  EXPECT_EQ(get64(Data, 8), 136u);
  EXPECT_EQ(get64(Data, 16), 32u);
  EXPECT_EQ(get64(Data, 24), 40u);

  EXPECT_EQ(get16(Data, 32), 3u);
  EXPECT_EQ(get16(Data, 34), 2u);
  EXPECT_EQ(get32(Data, 36), 0x12345678u);
  EXPECT_EQ(get64(Data, 40), 72u);
  EXPECT_EQ(get64(Data, 48), 2u);
  EXPECT_EQ(get64(Data, 56), 128u);
  EXPECT_EQ(get64(Data, 64), 3u);

  EXPECT_EQ(Data[104], '\0');
  checkStringEntry(Data, 72, 1, 104, 122, "triple", "t1");
  checkStringEntry(Data, 88, 1, 104, 122, "arch", "a");
  EXPECT_TRUE(allZero(Data, 122, 128));
  EXPECT_EQ(StringRef(Data).substr(128, 3), "IMG");
  EXPECT_TRUE(allZero(Data, 131, 136));
}

// Two images in one v2 binary: an entry count, 24-byte string entries with
// value sizes, and the images back to back without padding between them.
TEST(OffloadBinaryWriter, V2ExactLayout) {
  ImageToWrite A = makeImage("AAAA", "t", "x");
  ImageToWrite B;
  B.TheImageKind = ImageKind::SPIRV;
  B.TheOffloadKind = OffloadKind::SYCL;
  B.Flags = 7;
  B.Strings = {{"k", "vv"}};
  B.Image = "BB";
  ImageToWrite Images[] = {A, B};
  std::string Data = write(Images, version(2));

  // Entries at 32 and 72, string entries at 112 (two) and 160 (one), the
  // table "\0triple\0t\0arch\0x\0k\0vv\0" (22 bytes) at 184, images at 208.
  ASSERT_EQ(Data.size(), 216u);
  EXPECT_EQ(get32(Data, 4), 2u);
  EXPECT_EQ(get64(Data, 8), 216u);
  EXPECT_EQ(get64(Data, 16), 32u);
  EXPECT_EQ(get64(Data, 24), 2u);

  EXPECT_EQ(get16(Data, 32), 1u);
  EXPECT_EQ(get16(Data, 34), 1u);
  EXPECT_EQ(get64(Data, 40), 112u);
  EXPECT_EQ(get64(Data, 48), 2u);
  EXPECT_EQ(get64(Data, 56), 208u);
  EXPECT_EQ(get64(Data, 64), 4u);

  EXPECT_EQ(get16(Data, 72), 6u);
  EXPECT_EQ(get16(Data, 74), 8u);
  EXPECT_EQ(get32(Data, 76), 7u);
  EXPECT_EQ(get64(Data, 80), 160u);
  EXPECT_EQ(get64(Data, 88), 1u);
  EXPECT_EQ(get64(Data, 96), 212u);
  EXPECT_EQ(get64(Data, 104), 2u);

  EXPECT_EQ(Data[184], '\0');
  checkStringEntry(Data, 112, 2, 184, 206, "triple", "t");
  checkStringEntry(Data, 136, 2, 184, 206, "arch", "x");
  checkStringEntry(Data, 160, 2, 184, 206, "k", "vv");
  EXPECT_TRUE(allZero(Data, 206, 208));
  EXPECT_EQ(StringRef(Data).substr(208, 6), "AAAABB");
  EXPECT_TRUE(allZero(Data, 214, 216));
}

// v3 without compression: a 40-byte header with a zero inflated size, and
// everything else shifted by 8.
TEST(OffloadBinaryWriter, V3UncompressedLayout) {
  ImageToWrite Images[] = {makeImage("one"), makeImage("two")};
  std::string Data = write(Images, version(3));
  EXPECT_EQ(get32(Data, 4), 3u);
  EXPECT_EQ(get64(Data, 8), Data.size());
  EXPECT_EQ(get64(Data, 16), 40u);
  EXPECT_EQ(get64(Data, 24), 2u);
  EXPECT_EQ(get64(Data, 32), 0u);
  EXPECT_EQ(get64(Data, 40 + field::StringOffset), 40u + 2 * 40);
  EXPECT_EQ(Data.size() % 8, 0u);

  ByteStore Store;
  OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
  EXPECT_FALSE(Bin.Compressed);
  ASSERT_EQ(Bin.Images.size(), 2u);
  EXPECT_EQ(Bin.Images[1].Image, "two");
  EXPECT_EQ(Bin.Images[1].ImageOffset, get64(Data, 80 + field::ImageOffset));
}

/// Checks a compressed v3 binary against the uncompressed one for the same
/// images: same header but for size and inflated size, and a body that
/// inflates to exactly the uncompressed body.
void checkCompressed(bool UseZstd) {
  std::string Big(300, 'z');
  ImageToWrite Images[] = {makeImage(Big, "t", "gfx1030"), makeImage("small")};
  std::string Plain = write(Images, version(3));
  std::string Data = write(Images, version(3, /*Compress=*/true, UseZstd));
  uint64_t Size = get64(Data, field::Size);
  EXPECT_EQ(Data.size(), alignTo(Size, 8));
  EXPECT_TRUE(allZero(Data, Size, Data.size()));
  EXPECT_EQ(get32(Data, 4), 3u);
  EXPECT_EQ(get64(Data, 16), 40u);
  EXPECT_EQ(get64(Data, 24), 2u);
  EXPECT_EQ(get64(Data, 32), Plain.size());
  EXPECT_EQ(StringRef(Data).substr(40, 4) == "\x28\xB5\x2F\xFD", UseZstd);

  SmallVector<uint8_t, 0> Body;
  ASSERT_TRUE(succeeded(compression::decompress(
      UseZstd ? compression::Format::Zstd : compression::Format::Zlib,
      arrayRefFromStringRef(StringRef(Data).slice(40, Size)), Body,
      Plain.size() - 40)));
  EXPECT_EQ(toStringRef(Body), StringRef(Plain).drop_front(40));

  ByteStore Store;
  OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
  EXPECT_TRUE(Bin.Compressed);
  ASSERT_EQ(Bin.Images.size(), 2u);
  EXPECT_EQ(Bin.Images[0].Image, Big);
  EXPECT_EQ(Bin.Images[0].getArch(), "gfx1030");
  EXPECT_EQ(Bin.Images[1].Image, "small");
}

// zstd-compressed v3 output.
TEST(OffloadBinaryWriter, V3ZstdCompressed) {
  if (!compression::zstd::isAvailable())
    GTEST_SKIP() << "LLVM built without zstd";
  checkCompressed(/*UseZstd=*/true);
}

// zlib-compressed v3 output.
TEST(OffloadBinaryWriter, V3ZlibCompressed) {
  if (!compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  checkCompressed(/*UseZstd=*/false);
}

// The size computed in advance is the size written, for every version.
TEST(OffloadBinaryWriter, SizeMatchesWrittenSize) {
  std::string Y(17, 'y');
  ImageToWrite Images[] = {makeImage("x"), makeImage(Y), makeImage("", "", "")};
  for (uint32_t V : {1u, 2u, 3u}) {
    std::string Data = write(Images, version(V));
    EXPECT_EQ(takeOrFail(getOffloadBinariesSize(Images, version(V))),
              Data.size())
        << "version " << V;
  }
}

// v1 writes one binary per image.
TEST(OffloadBinaryWriter, V1OneBinaryPerImage) {
  ImageToWrite Images[] = {makeImage("x"), makeImage("y"), makeImage("z")};
  std::string Data = write(Images, version(1));
  ByteStore Store;
  std::vector<OffloadBinary> Bins =
      takeOrFail(readOffloadBinaries(Data, Store, "bin"));
  ASSERT_EQ(Bins.size(), 3u);
  EXPECT_EQ(Bins[2].Images[0].Image, "z");
}

// The size of compressed output is not known in advance.
TEST(OffloadBinaryWriter, SizeOfCompressedIsAnError) {
  std::string Msg = errorMessage(
      getOffloadBinariesSize(makeImage("x"), version(3, /*Compress=*/true)));
  EXPECT_THAT(Msg, HasSubstr("the size of compressed output is not known"));
}

// Versions 0 and 4 are refused by both entry points, and nothing is written.
TEST(OffloadBinaryWriter, UnknownVersions) {
  for (uint32_t V : {0u, 4u}) {
    std::string Out;
    raw_string_ostream OS(Out);
    std::string Msg =
        errorMessage(writeOffloadBinaries(OS, makeImage("x"), version(V)));
    EXPECT_THAT(Msg, HasSubstr("cannot write offload binary version " +
                               std::to_string(V) + " (1, 2 and 3 are known)"));
    EXPECT_TRUE(Out.empty());
    Msg = errorMessage(getOffloadBinariesSize(makeImage("x"), version(V)));
    EXPECT_THAT(Msg, HasSubstr("cannot write offload binary version " +
                               std::to_string(V)));
  }
}

// Compression needs version 3.
TEST(OffloadBinaryWriter, CompressNeedsV3) {
  for (uint32_t V : {1u, 2u}) {
    std::string Out;
    raw_string_ostream OS(Out);
    std::string Msg = errorMessage(
        writeOffloadBinaries(OS, makeImage("x"), version(V, true)));
    EXPECT_THAT(Msg, HasSubstr("compression needs offload binary version 3"));
    EXPECT_TRUE(Out.empty());
  }
}

// No images, no bytes, whatever the options.
TEST(OffloadBinaryWriter, EmptyListWritesNothing) {
  for (WriteOptions Options :
       {version(1), version(2), version(3), version(3, true)}) {
    EXPECT_EQ(write({}, Options), "");
    if (!Options.Compress) {
      EXPECT_EQ(takeOrFail(getOffloadBinariesSize({}, Options)), 0u);
    }
  }
}

// An empty image and empty string values round-trip, in every version.
TEST(OffloadBinaryWriter, EmptyImageAndValues) {
  ImageToWrite Image;
  Image.Strings = {{"triple", ""}, {"empty-key-next", ""}, {"", "v"}};
  for (uint32_t V : {1u, 2u, 3u}) {
    std::string Data = write(Image, version(V));
    EXPECT_EQ(Data.size() % 8, 0u);
    ByteStore Store;
    OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
    ASSERT_EQ(Bin.Images.size(), 1u);
    const OffloadImage &Read = Bin.Images[0];
    EXPECT_EQ(Read.Image.size(), 0u);
    EXPECT_EQ(Read.TheImageKind, ImageKind::None);
    ASSERT_EQ(Read.Strings.size(), 3u);
    EXPECT_EQ(Read.Strings[0].first, "triple");
    EXPECT_EQ(Read.Strings[0].second, "");
    EXPECT_EQ(Read.Strings[1].second, "");
    EXPECT_EQ(Read.Strings[2].first, "");
    EXPECT_EQ(Read.Strings[2].second, "v");
  }
}

// String entries are stored in the order given, not sorted, duplicates
// included; getString() returns the last of a repeated key.
TEST(OffloadBinaryWriter, StringOrderPreserved) {
  ImageToWrite Image = makeImage("img");
  Image.Strings = {{"zeta", "1"}, {"alpha", "2"}, {"mid", "3"}, {"alpha", "4"}};
  for (uint32_t V : {1u, 2u}) {
    std::string Data = write(Image, version(V));
    ByteStore Store;
    OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
    const OffloadImage &Read = Bin.Images[0];
    ASSERT_EQ(Read.Strings.size(), 4u);
    const char *Keys[] = {"zeta", "alpha", "mid", "alpha"};
    const char *Values[] = {"1", "2", "3", "4"};
    for (unsigned I = 0; I != 4; ++I) {
      EXPECT_EQ(Read.Strings[I].first, Keys[I]);
      EXPECT_EQ(Read.Strings[I].second, Values[I]);
    }
    EXPECT_EQ(Read.getString("alpha"), "4");
    EXPECT_EQ(Read.getString("missing"), "");
  }
}

// The same input gives the same bytes, compressed or not, even when it is
// held in different buffers.
TEST(OffloadBinaryWriter, Deterministic) {
  std::string A1 = "abc", A2 = "abc", B1 = "defgh", B2 = "defgh";
  ImageToWrite Images[] = {makeImage(A1, "t1", "a1"),
                           makeImage(B1, "t2", "a2")};
  ImageToWrite Copies[] = {makeImage(A2, "t1", "a1"),
                           makeImage(B2, "t2", "a2")};
  for (WriteOptions Options :
       {version(1), version(2), version(3), version(3, true),
        version(3, true, /*UseZstd=*/false)}) {
    if (Options.Compress && compression::getReasonIfUnsupported(
                                Options.UseZstd ? compression::Format::Zstd
                                                : compression::Format::Zlib))
      continue;
    EXPECT_EQ(write(Images, Options), write(Copies, Options));
  }
}

// Image sizes whose sum overflows 64 bits are refused before anything is
// read from them (the images are never touched by getOffloadBinariesSize).
TEST(OffloadBinaryWriter, SizeOverflow) {
  static const char Byte = 0;
  ImageToWrite Huge = makeImage(StringRef(&Byte, uint64_t(1) << 63));
  ImageToWrite Images[] = {Huge, Huge};
  std::string Msg = errorMessage(getOffloadBinariesSize(Images, version(2)));
  EXPECT_THAT(Msg, HasSubstr("offload binary size overflows 64 bits"));
  // v1 puts them in two binaries; it is the total that overflows.
  Msg = errorMessage(getOffloadBinariesSize(Images, version(1)));
  EXPECT_THAT(Msg, HasSubstr("overflows 64 bits"));
  // An image that ends 3 bytes short of 2^64: padding it to 8 would wrap.
  uint64_t ImagesOffset = get64(write(makeImage("")), 32 + field::ImageOffset);
  ImageToWrite Max = makeImage(StringRef(&Byte, UINT64_MAX - ImagesOffset - 3));
  Msg = errorMessage(getOffloadBinariesSize(Max, version(1)));
  EXPECT_THAT(Msg, HasSubstr("overflows 64 bits"));
  // Twelve bytes less ends 8-aligned at 2^64 - 16, which still fits.
  Max.Image = StringRef(&Byte, UINT64_MAX - ImagesOffset - 15);
  EXPECT_EQ(takeOrFail(getOffloadBinariesSize(Max, version(1))),
            UINT64_MAX - 15);
}

} // namespace

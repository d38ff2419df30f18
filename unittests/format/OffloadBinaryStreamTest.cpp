//===- OffloadBinaryStreamTest.cpp - Compressed binaries as streams -------===//
//
// InflateMode::Metadata: a compressed v3 binary inflated only as far as its
// entries and strings, its images inflated on demand by
// streamOffloadImages() and loadOffloadImage(); and InflateMode::Whole,
// which inflates as a stream too, checking the sizes against the data.
//
//===----------------------------------------------------------------------===//

#include "OffloadBinaryTestUtils.h"

#include "llvm/Support/Compression.h"

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

bool available(bool UseZstd) {
  return !compression::getReasonIfUnsupported(
      UseZstd ? compression::Format::Zstd : compression::Format::Zlib);
}

/// A compressed v3 binary made from the uncompressed v3 binary \p Plain, of
/// which only the first \p Keep bytes after the header are compressed; the
/// header still claims them all.
std::string compressPrefix(StringRef Plain, uint64_t Keep = UINT64_MAX) {
  StringRef Body = Plain.drop_front(layout::HeaderSizeV3).take_front(Keep);
  SmallVector<uint8_t, 0> Compressed;
  compression::zstd::compress(arrayRefFromStringRef(Body), Compressed);
  std::string Data = Plain.take_front(layout::HeaderSizeV3).str();
  put64(Data, field::Size, layout::HeaderSizeV3 + Compressed.size());
  put64(Data, field::InflatedSize, Plain.size());
  Data += toStringRef(Compressed).str();
  return Data;
}

/// Every byte streamOffloadImages() gives for \p Indices, per image.
std::vector<std::string> streamAll(const OffloadBinary &Bin,
                                   ArrayRef<size_t> Indices,
                                   uint64_t MaxBytes = UINT64_MAX) {
  std::vector<std::string> Out(Bin.Images.size());
  Error E = streamOffloadImages(
      Bin, Indices,
      [&](size_t I, StringRef Piece) {
        Out[I] += Piece.str();
        return Error::success();
      },
      MaxBytes);
  EXPECT_FALSE(bool(E)) << toString(std::move(E));
  return Out;
}

// Metadata mode reads the same entries and strings as the whole binary, and
// the images it defers stream to the same bytes.
TEST(OffloadBinaryStream, MetadataMatchesWhole) {
  for (bool UseZstd : {true, false}) {
    if (!available(UseZstd))
      continue;
    std::string Big(300000, 'x');
    ImageToWrite Images[] = {makeImage("first", "amdgcn-amd-amdhsa", "gfx90a"),
                             makeImage(Big, "nvptx64-nvidia-cuda", "sm_80"),
                             makeImage("", "x86_64-pc-linux-gnu", "generic")};
    std::string Data = write(Images, version(3, /*Compress=*/true, UseZstd));
    ByteStore Store;
    OffloadBinary Whole = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
    OffloadBinary Meta = takeOrFail(
        readOffloadBinary(Data, 0, Store, "bin", 0, InflateMode::Metadata));
    EXPECT_TRUE(Meta.Compressed);
    EXPECT_EQ(Meta.Data, Whole.Data);
    ASSERT_EQ(Meta.Images.size(), 3u);
    for (size_t I = 0; I != 3; ++I) {
      const OffloadImage &W = Whole.Images[I], &M = Meta.Images[I];
      EXPECT_FALSE(W.isDeferred());
      EXPECT_TRUE(M.isDeferred());
      EXPECT_TRUE(M.Image.empty());
      EXPECT_EQ(M.getImageSize(), W.Image.size());
      EXPECT_EQ(M.ImageOffset, W.ImageOffset);
      EXPECT_EQ(M.TheImageKind, W.TheImageKind);
      EXPECT_EQ(M.TheOffloadKind, W.TheOffloadKind);
      EXPECT_EQ(M.Strings, W.Strings);
    }
    // In any order, several at once, or a prefix of each.
    std::vector<std::string> All = streamAll(Meta, {2, 1, 0});
    for (size_t I = 0; I != 3; ++I)
      EXPECT_EQ(All[I], Whole.Images[I].Image);
    std::vector<std::string> Heads = streamAll(Meta, {0, 1, 2}, 3);
    EXPECT_EQ(Heads[0], "fir");
    EXPECT_EQ(Heads[1], "xxx");
    EXPECT_EQ(Heads[2], "");
    EXPECT_EQ(takeOrFail(loadOffloadImage(Meta, 1, Store)), Big);
    // Images read whole stream as they are.
    EXPECT_EQ(streamAll(Whole, 1)[1], Big);
    EXPECT_EQ(takeOrFail(loadOffloadImage(Whole, 0, Store)).data(),
              Whole.Images[0].Image.data());
  }
}

// Two entries sharing their bytes: the stream starts again for the second.
TEST(OffloadBinaryStream, OverlappingImages) {
  ImageToWrite Images[] = {makeImage("one-image"), makeImage("two")};
  std::string Plain = write(Images, version(3));
  uint64_t Second = layout::HeaderSizeV3 + layout::EntrySize;
  put64(Plain, Second + field::ImageOffset,
        get64(Plain, layout::HeaderSizeV3 + field::ImageOffset) + 4);
  put64(Plain, Second + field::ImageSize, 5);
  std::string Data = compressPrefix(Plain);
  ByteStore Store;
  OffloadBinary Meta = takeOrFail(
      readOffloadBinary(Data, 0, Store, "bin", 0, InflateMode::Metadata));
  std::vector<std::string> All = streamAll(Meta, {0, 1});
  EXPECT_EQ(All[0], "one-image");
  EXPECT_EQ(All[1], "image");
}

// Metadata mode stops after the strings: a body that ends there lists, and
// the images it lacks are an error only when asked for, at the inflated
// size's field. Reading whole finds it at once.
TEST(OffloadBinaryStream, StopsAfterTheStrings) {
  ImageToWrite Images[] = {makeImage("IMAGE-ONE"), makeImage("IMAGE-TWO")};
  std::string Plain = write(Images, version(3));
  uint64_t ImagesAt = get64(Plain, layout::HeaderSizeV3 + field::ImageOffset);
  std::string Data = compressPrefix(Plain, ImagesAt - layout::HeaderSizeV3);
  ByteStore Store;
  OffloadBinary Meta = takeOrFail(
      readOffloadBinary(Data, 0, Store, "bin", 0x1000, InflateMode::Metadata));
  ASSERT_EQ(Meta.Images.size(), 2u);
  EXPECT_EQ(Meta.Images[1].getArch(), "generic");
  EXPECT_EQ(Meta.Images[1].getImageSize(), 9u);
  EXPECT_THAT(errorMessage(loadOffloadImage(Meta, 0, Store)),
              HasSubstr("bin: offset 0x1020: compressed binary: the data "
                        "inflates to " +
                        std::to_string(ImagesAt) +
                        " bytes where the header "
                        "says " +
                        std::to_string(Plain.size())));
  EXPECT_THAT(readError(Data),
              HasSubstr("bin: offset 0x1020: compressed binary: the data "
                        "inflates to " +
                        std::to_string(ImagesAt)));
}

// Strings stored after the images are found there.
TEST(OffloadBinaryStream, StringsAfterImages) {
  std::string Plain = write(makeImage("IMAGE-BYTES"), version(3));
  uint64_t Entry = layout::HeaderSizeV3;
  uint64_t Strings = get64(Plain, Entry + field::StringOffset);
  uint64_t Key = get64(Plain, Strings);
  // Move the first key's text past the image.
  std::string Text = StringRef(Plain.data() + Key).str();
  uint64_t NewKey = Plain.size();
  Plain += Text;
  Plain.append(8 - Text.size() % 8, '\0');
  put64(Plain, field::Size, Plain.size());
  put64(Plain, Strings, NewKey);
  std::string Data = compressPrefix(Plain);
  ByteStore Store;
  OffloadBinary Meta = takeOrFail(
      readOffloadBinary(Data, 0, Store, "bin", 0, InflateMode::Metadata));
  EXPECT_EQ(Meta.Images[0].Strings[0].first, Text);
  EXPECT_EQ(Meta.Images[0].getTriple(), "x86_64-pc-linux-gnu");
  EXPECT_EQ(streamAll(Meta, 0)[0], "IMAGE-BYTES");
}

// Problems inside the inflated body read as they do when inflating whole.
TEST(OffloadBinaryStream, ErrorsInsideTheBody) {
  std::string Plain = writeOne(version(3));
  std::string Past = Plain;
  put64(Past, 40 + field::ImageSize, Plain.size());
  std::string NoTable = Plain;
  put64(NoTable, 40 + field::NumStrings, 1000);
  std::string KeyPast = Plain;
  put64(KeyPast, get64(Plain, 40 + field::StringOffset), Plain.size());
  for (const std::string *P : {&Past, &NoTable, &KeyPast}) {
    std::string Data = compressPrefix(*P);
    ByteStore Store;
    std::string Whole = readError(Data, 0x1000);
    std::string Meta = errorMessage(
        readOffloadBinaries(Data, Store, "bin", 0x1000, InflateMode::Metadata));
    EXPECT_EQ(Meta, Whole);
    EXPECT_THAT(Meta, HasSubstr("bin (inflated binary at offset 0x1000): "));
  }
}

// More entries than listing holds in memory: an error, not an allocation.
TEST(OffloadBinaryStream, TooManyEntries) {
  // A million zeroed entries: each an empty image with no strings.
  uint64_t Count = 1 << 20;
  std::string Plain(layout::HeaderSizeV3 + Count * layout::EntrySize, '\0');
  memcpy(Plain.data(), layout::Magic, 4);
  put32(Plain, field::Version, 3);
  put64(Plain, field::Size, Plain.size());
  put64(Plain, field::EntriesOffset, layout::HeaderSizeV3);
  put64(Plain, field::EntrySizeOrCount, Count);
  std::string Data = compressPrefix(Plain);
  ByteStore Store;
  EXPECT_THAT(errorMessage(readOffloadBinary(Data, 0, Store, "bin", 0,
                                             InflateMode::Metadata)),
              HasSubstr("bin (inflated binary at offset 0x0): offset 0x28: "
                        "compressed binary: its entries and strings take "
                        "more than 33554432 bytes of memory to list"));
}

} // namespace

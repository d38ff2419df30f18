//===- OffloadBinaryHeaderTest.cpp - Rejecting malformed headers ----------===//
//
// One test per way a header can be wrong. Each starts from a binary the
// writer made (or from hand-made bytes), breaks one field, and checks that
// the reader names the file, the absolute offset of the field (the binary is
// read as if it lay at 0x1000 in its file) and the problem.
//
//===----------------------------------------------------------------------===//

#include "OffloadBinaryTestUtils.h"

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

/// The error the reader reports for \p Data with one header field set to
/// \p Value: the 32-bit version at field::Version, else the 64-bit field at
/// \p Field.
std::string errorWithField(std::string Data, uint64_t Field, uint64_t Value) {
  if (Field == field::Version)
    put32(Data, Field, uint32_t(Value));
  else
    put64(Data, Field, Value);
  return readError(Data);
}

// The unmodified binary reads, so each failure below is due to its one change.
TEST(OffloadBinaryHeader, UnmodifiedBinariesRead) {
  for (uint32_t V : {1u, 2u, 3u}) {
    std::string Data = writeOne(version(V));
    ByteStore Store;
    std::vector<OffloadBinary> Bins =
        takeOrFail(readOffloadBinaries(Data, Store, "bin", 0x1000));
    ASSERT_EQ(Bins.size(), 1u);
    EXPECT_EQ(Bins[0].Version, V);
    EXPECT_FALSE(Bins[0].Compressed);
    ASSERT_EQ(Bins[0].Images.size(), 1u);
    EXPECT_EQ(Bins[0].Images[0].Image, "IMAGE-BYTES");
  }
}

// The first byte is not 0x10.
TEST(OffloadBinaryHeader, BadMagicFirstByte) {
  std::string Data = writeOne();
  Data[0] = 0x7f;
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x1000: bad magic"));
}

// Only the last magic byte differs.
TEST(OffloadBinaryHeader, BadMagicLastByte) {
  std::string Data = writeOne();
  Data[3] = '\xAE';
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("offset 0x1000: bad magic"));
}

// Three bytes of the right magic are not a binary.
TEST(OffloadBinaryHeader, ShorterThanMagic) {
  std::string Msg = readError(StringRef("\x10\xFF\x10", 3));
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x1000: bad magic"));
}

// The magic alone, or a header cut short, is a truncated header.
TEST(OffloadBinaryHeader, ShorterThanHeader) {
  std::string Data = writeOne();
  std::string Msg = readError(StringRef(Data).take_front(31));
  EXPECT_THAT(Msg,
              HasSubstr("bin: offset 0x1000: truncated header: 31 bytes left, "
                        "the header needs 32"));
  Msg = readError(StringRef(Data).take_front(4));
  EXPECT_THAT(Msg, HasSubstr("truncated header: 4 bytes left"));
}

// A v3 header needs 40 bytes; 39 are not enough even though 32 would be for
// v1.
TEST(OffloadBinaryHeader, ShorterThanV3Header) {
  std::string Data = writeOne(version(3));
  std::string Msg = readError(StringRef(Data).take_front(39));
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1000: truncated header: 39 bytes left, the "
                        "version 3 header needs 40"));
}

// Version 0 is not a version.
TEST(OffloadBinaryHeader, VersionZero) {
  std::string Msg = errorWithField(writeOne(), field::Version, 0);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1000: unsupported offload binary version 0 "
                        "(this reader knows 1 to 3)"));
}

// Version 4 is newer than the reader.
TEST(OffloadBinaryHeader, VersionFour) {
  std::string Data = writeOne(version(3));
  std::string Msg = errorWithField(Data, field::Version, 4);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1000: unsupported offload binary version 4"));
  Msg = errorWithField(Data, field::Version, 0xffffffff);
  EXPECT_THAT(Msg, HasSubstr("unsupported offload binary version 4294967295"));
}

// A size that does not even cover the header.
TEST(OffloadBinaryHeader, SizeSmallerThanHeader) {
  std::string Data = writeOne();
  std::string Msg = errorWithField(Data, field::Size, 31);
  EXPECT_THAT(
      Msg, HasSubstr("bin: offset 0x1008: binary size 31 is smaller than its "
                     "header (32 bytes)"));
  Msg = errorWithField(Data, field::Size, 0);
  EXPECT_THAT(Msg, HasSubstr("offset 0x1008: binary size 0 is smaller"));
}

// For v3 the bar is the 40-byte header.
TEST(OffloadBinaryHeader, V3SizeSmallerThanHeader) {
  std::string Msg = errorWithField(writeOne(version(3)), field::Size, 39);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1008: binary size 39 is smaller than its "
                        "header (40 bytes)"));
}

// The buffer ends before the size the header claims.
TEST(OffloadBinaryHeader, Truncated) {
  std::string Data = writeOne();
  uint64_t Size = get64(Data, field::Size);
  ASSERT_EQ(Size, Data.size());
  std::string Msg = readError(StringRef(Data).drop_back(8));
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x1008: binary size " +
                             std::to_string(Size) + " exceeds the " +
                             std::to_string(Size - 8) +
                             " bytes left in the data: truncated binary"));
}

// A size near UINT64_MAX is caught as well.
TEST(OffloadBinaryHeader, HugeSize) {
  std::string Msg = errorWithField(writeOne(), field::Size, UINT64_MAX);
  EXPECT_THAT(Msg, HasSubstr("offset 0x1008: binary size 18446744073709551615 "
                             "exceeds the"));
}

// Version 1 stores the entry size, which must cover an entry.
TEST(OffloadBinaryHeader, V1EntrySizeTooSmall) {
  std::string Data = writeOne();
  ASSERT_EQ(get64(Data, field::EntrySizeOrCount), 40u);
  std::string Msg = errorWithField(Data, field::EntrySizeOrCount, 39);
  EXPECT_THAT(Msg,
              HasSubstr("bin: offset 0x1018: entry size 39 is smaller than an "
                        "entry (40 bytes)"));
}

// Entries may not start inside the header.
TEST(OffloadBinaryHeader, EntriesOverlapHeader) {
  std::string Msg = errorWithField(writeOne(), field::EntriesOffset, 31);
  EXPECT_THAT(Msg,
              HasSubstr("bin: offset 0x1010: entries offset 31 overlaps the "
                        "header"));
}

// Offset 32 is fine for v1 but inside the 40-byte v3 header.
TEST(OffloadBinaryHeader, V3EntriesOverlapHeader) {
  std::string Data = writeOne(version(3));
  ASSERT_EQ(get64(Data, field::EntriesOffset), 40u);
  std::string Msg = errorWithField(Data, field::EntriesOffset, 32);
  EXPECT_THAT(
      Msg, HasSubstr("offset 0x1010: entries offset 32 overlaps the header"));
}

// The one v1 entry must lie inside the binary.
TEST(OffloadBinaryHeader, V1EntryPastEnd) {
  std::string Data = writeOne();
  uint64_t Size = Data.size();
  std::string Msg = errorWithField(Data, field::EntriesOffset, Size - 39);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1010: truncated entry table: 1 entries at "
                        "offset " +
                        std::to_string(Size - 39) + " do not fit in the " +
                        std::to_string(Size) + "-byte binary"));
  Msg = errorWithField(Data, field::EntriesOffset, UINT64_MAX);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1010: truncated entry table: 1 entries at "
                        "offset 18446744073709551615"));
}

// A v2 entry count larger than the binary can hold.
TEST(OffloadBinaryHeader, V2EntryCountDoesNotFit) {
  std::string Data = writeOne(version(2));
  ASSERT_EQ(get64(Data, field::EntrySizeOrCount), 1u);
  std::string Msg = errorWithField(Data, field::EntrySizeOrCount, 1000);
  EXPECT_THAT(
      Msg, HasSubstr("bin: offset 0x1010: truncated entry table: 1000 entries "
                     "at offset 32 do not fit in the " +
                     std::to_string(Data.size()) + "-byte binary"));
}

// 2^62 entries: the count alone is absurd.
TEST(OffloadBinaryHeader, V2HugeEntryCount) {
  std::string Msg = errorWithField(writeOne(version(2)),
                                   field::EntrySizeOrCount, uint64_t(1) << 62);
  EXPECT_THAT(Msg, HasSubstr("offset 0x1010: truncated entry table: "
                             "4611686018427387904 entries"));
}

// A count whose product with the 40-byte entry size wraps around to 24: a
// check that multiplies would let it through and read far out of bounds.
TEST(OffloadBinaryHeader, V2EntryCountOverflowsMultiplication) {
  std::string Data = writeOne(version(2));
  uint64_t Count = 0x0666666666666667;
  ASSERT_EQ(Count * 40, 24u); // Wraps, as intended.
  std::string Msg = errorWithField(Data, field::EntrySizeOrCount, Count);
  EXPECT_THAT(Msg, HasSubstr("offset 0x1010: truncated entry table: " +
                             std::to_string(Count) + " entries"));
}

// Version 2 and 3 with no entries at all is a binary without images.
TEST(OffloadBinaryHeader, V2ZeroEntries) {
  std::string Data = writeOne(version(2));
  put64(Data, field::EntrySizeOrCount, 0);
  ByteStore Store;
  std::vector<OffloadBinary> Bins =
      takeOrFail(readOffloadBinaries(Data, Store, "bin"));
  ASSERT_EQ(Bins.size(), 1u);
  EXPECT_TRUE(Bins[0].Images.empty());
}

// Messages without a BaseOffset count from the buffer.
TEST(OffloadBinaryHeader, ZeroBaseOffset) {
  std::string Data = writeOne();
  put64(Data, field::EntrySizeOrCount, 8);
  ByteStore Store;
  std::string Msg = errorMessage(readOffloadBinary(Data, 0, Store, "f.bin"));
  EXPECT_THAT(Msg, HasSubstr("f.bin: offset 0x18: entry size 8"));
}

} // namespace

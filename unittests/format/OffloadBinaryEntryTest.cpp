//===- OffloadBinaryEntryTest.cpp - Rejecting malformed entries -----------===//
//
// Entries, string tables, strings and images that point outside their
// binary. The binary lies at 0x1000 of its file, so the expected offsets are
// 0x1000 plus the field's offset in the binary: the entry starts at 32, its
// string-table offset at 40, its image offset at 56, and the string entries
// (two of them: triple and arch) at 72.
//
//===----------------------------------------------------------------------===//

#include "OffloadBinaryTestUtils.h"

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

constexpr uint64_t Entry = 32;
constexpr uint64_t StringEntries = 72;

/// A v1 binary with one string entry and an empty image, made by hand so
/// that the string table can end without a NUL.
std::string handBuiltV1(StringRef Table, uint64_t KeyOffset,
                        uint64_t ValueOffset) {
  uint64_t TableOffset = 32 + 40 + 16;
  std::string Data(TableOffset, '\0');
  memcpy(&Data[0], layout::Magic, 4);
  put32(Data, field::Version, 1);
  put64(Data, field::Size, TableOffset + Table.size());
  put64(Data, field::EntriesOffset, 32);
  put64(Data, field::EntrySizeOrCount, 40);
  put64(Data, Entry + field::StringOffset, 32 + 40);
  put64(Data, Entry + field::NumStrings, 1);
  put64(Data, 72, TableOffset + KeyOffset);
  put64(Data, 80, TableOffset + ValueOffset);
  Data += Table.str();
  return Data;
}

// The hand-built binary is valid when its strings are terminated.
TEST(OffloadBinaryEntry, HandBuiltBinaryReads) {
  std::string Data = handBuiltV1(StringRef("\0key\0val\0", 9), 1, 5);
  ByteStore Store;
  OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
  ASSERT_EQ(Bin.Images.size(), 1u);
  ASSERT_EQ(Bin.Images[0].Strings.size(), 1u);
  EXPECT_EQ(Bin.Images[0].Strings[0].first, "key");
  EXPECT_EQ(Bin.Images[0].Strings[0].second, "val");
  EXPECT_EQ(Bin.Images[0].Image, "");
}

// The last string runs into the end of the binary without a NUL.
TEST(OffloadBinaryEntry, ValueWithoutNul) {
  std::string Data = handBuiltV1(StringRef("\0key\0val", 8), 1, 5);
  std::string Msg = readError(Data);
  EXPECT_THAT(
      Msg, HasSubstr("bin: offset 0x1028: entry 0: value string at offset 93 "
                     "has no NUL terminator"));
}

// The same for a key.
TEST(OffloadBinaryEntry, KeyWithoutNul) {
  std::string Data = handBuiltV1(StringRef("\0val\0key", 8), 5, 1);
  std::string Msg = readError(Data);
  EXPECT_THAT(
      Msg, HasSubstr("offset 0x1028: entry 0: key string at offset 93 has no "
                     "NUL terminator"));
}

// The string-entry table starts past the end of the binary.
TEST(OffloadBinaryEntry, StringTableOffsetPastEnd) {
  std::string Data = writeOne();
  uint64_t Size = Data.size();
  put64(Data, Entry + field::StringOffset, Size + 8);
  std::string Msg = readError(Data);
  EXPECT_THAT(
      Msg, HasSubstr("bin: offset 0x1028: entry 0: truncated string table: 2 "
                     "entries at offset " +
                     std::to_string(Size + 8) + " do not fit in the " +
                     std::to_string(Size) + "-byte binary"));
}

// The string-entry table starts inside but runs past the end.
TEST(OffloadBinaryEntry, StringTableRunsPastEnd) {
  std::string Data = writeOne();
  uint64_t Size = Data.size();
  put64(Data, Entry + field::StringOffset, Size - 16);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1028: entry 0: truncated string table: 2 "
                        "entries at offset " +
                        std::to_string(Size - 16)));
}

// 2^62 string entries.
TEST(OffloadBinaryEntry, HugeNumStrings) {
  std::string Data = writeOne();
  put64(Data, Entry + field::NumStrings, uint64_t(1) << 62);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("offset 0x1028: entry 0: truncated string table: "
                             "4611686018427387904 entries"));
}

// 2^60 v1 string entries of 16 bytes are 2^64 bytes: zero if multiplied.
TEST(OffloadBinaryEntry, NumStringsOverflowsMultiplication) {
  std::string Data = writeOne();
  put64(Data, Entry + field::NumStrings, uint64_t(1) << 60);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg,
              HasSubstr("truncated string table: 1152921504606846976 entries"));
}

// The same with v2's 24-byte string entries: the product wraps to 8.
TEST(OffloadBinaryEntry, V2NumStringsOverflowsMultiplication) {
  std::string Data = writeOne(version(2));
  uint64_t Count = 0x0AAAAAAAAAAAAAAB;
  ASSERT_EQ(Count * 24, 8u);
  put64(Data, Entry + field::NumStrings, Count);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1028: entry 0: truncated string table: " +
                        std::to_string(Count) + " entries"));
}

// A key offset at the very end of the binary.
TEST(OffloadBinaryEntry, KeyOffsetPastEnd) {
  std::string Data = writeOne();
  uint64_t Size = Data.size();
  put64(Data, StringEntries, Size);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x1028: entry 0: key string offset " +
                             std::to_string(Size) +
                             " is past the end of the binary"));
}

// A value offset of UINT64_MAX.
TEST(OffloadBinaryEntry, ValueOffsetPastEnd) {
  std::string Data = writeOne();
  put64(Data, StringEntries + 8, UINT64_MAX);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1028: entry 0: value string offset "
                        "18446744073709551615 is past the end of the binary"));
}

// The second string entry is checked too.
TEST(OffloadBinaryEntry, SecondKeyOffsetPastEnd) {
  std::string Data = writeOne();
  put64(Data, StringEntries + 16, Data.size() + 100);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("entry 0: key string offset " +
                             std::to_string(Data.size() + 100)));
}

// A v2 value is sized; a size past the end is an error.
TEST(OffloadBinaryEntry, V2ValueSizePastEnd) {
  std::string Data = writeOne(version(2));
  uint64_t Size = Data.size();
  uint64_t ValueOffset = get64(Data, StringEntries + 8);
  ASSERT_EQ(get64(Data, StringEntries + 16), strlen("x86_64-pc-linux-gnu"));
  put64(Data, StringEntries + 16, Size);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x1028: entry 0: value of " +
                             std::to_string(Size) + " bytes at offset " +
                             std::to_string(ValueOffset) +
                             " runs past the end of the binary"));
}

// A v2 value size near UINT64_MAX must not wrap around.
TEST(OffloadBinaryEntry, V2ValueSizeOverflow) {
  std::string Data = writeOne(version(2));
  put64(Data, StringEntries + 16, UINT64_MAX - 8);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("entry 0: value of 18446744073709551607 bytes"));
}

// A v2 value need not be NUL-terminated: its size bounds it.
TEST(OffloadBinaryEntry, V2ValueIsSized) {
  std::string Data = writeOne(version(2));
  put64(Data, StringEntries + 16, 6); // "x86_64" of "x86_64-pc-linux-gnu"
  ByteStore Store;
  OffloadBinary Bin = takeOrFail(readOffloadBinary(Data, 0, Store, "bin"));
  EXPECT_EQ(Bin.Images[0].getTriple(), "x86_64");
}

// The image starts inside but runs past the end.
TEST(OffloadBinaryEntry, ImagePastEnd) {
  std::string Data = writeOne();
  uint64_t Size = Data.size();
  ASSERT_EQ(get64(Data, Entry + field::ImageSize), 11u);
  put64(Data, Entry + field::ImageOffset, Size - 4);
  std::string Msg = readError(Data);
  EXPECT_THAT(
      Msg, HasSubstr("bin: offset 0x1038: entry 0: image of 11 bytes at "
                     "offset " +
                     std::to_string(Size - 4) + " runs past the end of the " +
                     std::to_string(Size) + "-byte binary"));
}

// An image size near UINT64_MAX: offset + size wraps to a small number.
TEST(OffloadBinaryEntry, ImageSizeOverflow) {
  std::string Data = writeOne();
  uint64_t ImageOffset = get64(Data, Entry + field::ImageOffset);
  uint64_t Huge = UINT64_MAX - ImageOffset + 2; // Offset + size == 1.
  put64(Data, Entry + field::ImageSize, Huge);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("offset 0x1038: entry 0: image of " +
                             std::to_string(Huge) + " bytes"));
}

// An image offset past the end, with an empty image.
TEST(OffloadBinaryEntry, EmptyImageOffsetPastEnd) {
  std::string Data = writeOne();
  put64(Data, Entry + field::ImageSize, 0);
  put64(Data, Entry + field::ImageOffset, Data.size() + 1);
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg,
              HasSubstr("offset 0x1038: entry 0: image of 0 bytes at offset " +
                        std::to_string(Data.size() + 1)));
}

// In a v2 binary the second entry's problems name entry 1 and its offset
// (0x1000 + 32 + 40 + 24).
TEST(OffloadBinaryEntry, V2SecondEntryImagePastEnd) {
  ImageToWrite Images[] = {makeImage("first"), makeImage("second")};
  std::string Data = write(Images, version(2));
  put64(Data, 32 + 40 + field::ImageSize, Data.size());
  std::string Msg = readError(Data);
  EXPECT_THAT(Msg, HasSubstr("bin: offset 0x1060: entry 1: image of " +
                             std::to_string(Data.size()) + " bytes"));
}

} // namespace

//===- unittests/format/LargeSizesTest.cpp - Sizes past 4 GiB -------------===//
//
// Images, entries and bundles larger than 4 GiB: every size and offset must
// stay 64-bit from the header to the caller. The payloads are views of an
// anonymous mapping that is never written past its first pages, so a 5 GiB
// "image" costs no memory; only headers are real bytes.
//
//===----------------------------------------------------------------------===//

#include "format/CompressedBundle.h"
#include "format/OffloadBinary.h"
#include "format/OffloadBinaryWriter.h"
#include "format/OffloadBundle.h"

#include "unittests/ErrorMatchers.h"
#include "unittests/format/OffloadBinaryTestUtils.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstring>
#include <sys/mman.h>

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

constexpr uint64_t GiB = 1ULL << 30;
constexpr uint64_t FiveGiB = 5 * GiB;

/// A zero-filled, never committed mapping of \p Size bytes.
class LargeMapping {
public:
  explicit LargeMapping(uint64_t Size) : Size(Size) {
    void *P = ::mmap(nullptr, Size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    Base = P == MAP_FAILED ? nullptr : static_cast<char *>(P);
  }
  ~LargeMapping() {
    if (Base)
      ::munmap(Base, Size);
  }
  char *data() const { return Base; }
  StringRef bytes() const { return StringRef(Base, Size); }

private:
  char *Base = nullptr;
  uint64_t Size;
};

/// Counts what is written and keeps the first \p Keep bytes: a writer's
/// header and metadata without the payload.
class PrefixStream : public raw_ostream {
public:
  explicit PrefixStream(uint64_t Keep) : Keep(Keep) { SetUnbuffered(); }
  std::string Prefix;
  uint64_t Written = 0;

private:
  void write_impl(const char *Ptr, size_t Size) override {
    if (Prefix.size() < Keep)
      Prefix.append(Ptr, std::min<uint64_t>(Size, Keep - Prefix.size()));
    Written += Size;
  }
  uint64_t current_pos() const override { return Written; }
  uint64_t Keep;
};

// --- OffloadBinary -----------------------------------------------------------

TEST(LargeSizes, OffloadBinaryWriterKeeps64BitImageSize) {
  LargeMapping Map(FiveGiB + 3);
  ASSERT_NE(Map.data(), nullptr);
  ImageToWrite Image = makeImage(Map.bytes());
  for (uint32_t V : {1u, 2u, 3u}) {
    SCOPED_TRACE("version " + std::to_string(V));
    Expected<uint64_t> Size = getOffloadBinariesSize(Image, version(V));
    ASSERT_TRUE(bool(Size)) << toString(Size.takeError());
    EXPECT_GT(*Size, FiveGiB + 3);
    EXPECT_EQ(*Size % 8, 0u);

    PrefixStream OS(4096);
    ASSERT_TRUE(succeeded(writeOffloadBinaries(OS, Image, version(V))));
    EXPECT_EQ(OS.Written, *Size);
    EXPECT_EQ(get64(OS.Prefix, field::Size), *Size);
    uint64_t Entry = get64(OS.Prefix, field::EntriesOffset);
    EXPECT_EQ(get64(OS.Prefix, Entry + field::ImageSize), FiveGiB + 3);
    EXPECT_LT(get64(OS.Prefix, Entry + field::ImageOffset), 4096u);
  }
}

TEST(LargeSizes, OffloadBinaryReaderKeeps64BitImageSize) {
  // A real binary around a small image, then its header and entry patched
  // to describe a 5 GiB image over the zeros of the mapping.
  std::string Small = write(makeImage("IMAGE-BYTES"), version(2));
  uint64_t Entry = get64(Small, field::EntriesOffset);
  uint64_t ImageOffset = get64(Small, Entry + field::ImageOffset);
  uint64_t Total = alignTo(ImageOffset + FiveGiB + 1, 8);
  put64(Small, field::Size, Total);
  put64(Small, Entry + field::ImageSize, FiveGiB + 1);

  LargeMapping Map(Total);
  ASSERT_NE(Map.data(), nullptr);
  std::memcpy(Map.data(), Small.data(), ImageOffset);
  ByteStore Store;
  Expected<std::vector<OffloadBinary>> Binaries =
      readOffloadBinaries(Map.bytes(), Store, "big.bin");
  ASSERT_TRUE(bool(Binaries)) << toString(Binaries.takeError());
  ASSERT_EQ(Binaries->size(), 1u);
  const OffloadBinary &B = Binaries->front();
  EXPECT_EQ(B.Data.size(), Total);
  ASSERT_EQ(B.Images.size(), 1u);
  EXPECT_EQ(B.Images[0].Image.size(), FiveGiB + 1);
  EXPECT_EQ(B.Images[0].Image.data(), Map.data() + ImageOffset);
  EXPECT_EQ(B.Images[0].getTriple(), "x86_64-pc-linux-gnu");
}

TEST(LargeSizes, OffloadBinarySizePast4GiBInSmallBufferIsNotTruncated) {
  // A header claiming 4 GiB + 64 in a small buffer: the error must show the
  // 64-bit size, not what is left of it in 32 bits (64).
  std::string Small = write(makeImage("IMAGE-BYTES"), version(2));
  put64(Small, field::Size, 4 * GiB + 64);
  EXPECT_THAT(readError(Small, 0), HasSubstr("binary size 4294967360 exceeds"));
}

// --- Binary bundles ----------------------------------------------------------

TEST(LargeSizes, BinaryBundleWriteAndReadPast4GiB) {
  LargeMapping Payload(FiveGiB + 5);
  ASSERT_NE(Payload.data(), nullptr);
  std::vector<BundleEntryToWrite> Entries = {
      {"host-x86_64-unknown-linux-gnu-", StringRef("host")},
      {"hip-amdgcn-amd-amdhsa--gfx90a", Payload.bytes()}};
  uint64_t Size = getBinaryBundleSize(Entries, 4096);
  EXPECT_GT(Size, FiveGiB + 5);

  PrefixStream OS(4096);
  writeBinaryBundle(OS, Entries, 4096);
  EXPECT_EQ(OS.Written, Size);

  // Read it back from a mapping holding the written header; the big payload
  // is the mapping's zeros.
  LargeMapping Bundle(Size);
  ASSERT_NE(Bundle.data(), nullptr);
  std::memcpy(Bundle.data(), OS.Prefix.data(), OS.Prefix.size());
  Expected<std::vector<BundleEntry>> Read =
      readBinaryBundle(Bundle.bytes(), "big.bundle");
  ASSERT_TRUE(bool(Read)) << toString(Read.takeError());
  ASSERT_EQ(Read->size(), 2u);
  EXPECT_EQ((*Read)[1].ID, "hip-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ((*Read)[1].Data.size(), FiveGiB + 5);
  EXPECT_EQ((*Read)[1].Data.end(), Bundle.data() + Size);
}

// --- Compressed bundles ------------------------------------------------------

TEST(LargeSizes, CCOBVersion2RefusesSizesPast32Bits) {
  EXPECT_TRUE(succeeded(checkCompressedBundleSizes(2, UINT32_MAX, UINT32_MAX)));
  EXPECT_THAT(
      errorMessage(checkCompressedBundleSizes(2, uint64_t(UINT32_MAX) + 1, 0)),
      HasSubstr("Uncompressed size exceeds version 2 limit (4294967296 > "
                "4294967295 bytes"));
  EXPECT_THAT(errorMessage(checkCompressedBundleSizes(2, 100, FiveGiB)),
              HasSubstr("Total file size exceeds version 2 limit"));
  // Version 3 has 64-bit fields.
  EXPECT_TRUE(succeeded(checkCompressedBundleSizes(3, FiveGiB, FiveGiB)));
}

TEST(LargeSizes, CCOBVersion2CompressRefusesLargeBundle) {
  LargeMapping Bundle(4 * GiB + 1);
  ASSERT_NE(Bundle.data(), nullptr);
  BundleCompression Options;
  Options.Version = 2;
  // Refused before compressing, so this is quick.
  EXPECT_THAT(errorMessage(compressBundle(Bundle.bytes(), Options)),
              HasSubstr("Uncompressed size exceeds version 2 limit"));
}

TEST(LargeSizes, CCOBVersion3HeaderKeeps64BitSizes) {
  std::string Header = "CCOB";
  Header.append(28, '\0');
  support::endian::write16le(&Header[4], 3);
  support::endian::write16le(&Header[6], 1); // zstd
  support::endian::write64le(&Header[8], FiveGiB);
  support::endian::write64le(&Header[16], 6 * GiB);
  // Total size past the data: the message shows all 64 bits.
  EXPECT_THAT(errorMessage(readCompressedBundleHeader(Header, "big.ccob")),
              HasSubstr("total size 5368709120 runs past the end"));

  LargeMapping Map(FiveGiB);
  ASSERT_NE(Map.data(), nullptr);
  std::memcpy(Map.data(), Header.data(), Header.size());
  Expected<CompressedBundleHeader> H =
      readCompressedBundleHeader(Map.bytes(), "big.ccob");
  ASSERT_TRUE(bool(H)) << toString(H.takeError());
  EXPECT_EQ(*H->TotalSize, FiveGiB);
  EXPECT_EQ(H->UncompressedSize, 6 * GiB);
}

} // namespace

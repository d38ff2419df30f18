//===- CompressedBundleStreamTest.cpp - CCOBs inflated as streams ---------===//

#include "format/CompressedBundle.h"
#include "format/OffloadBundle.h"

#include "unittests/ErrorMatchers.h"

#include "llvm/Support/Endian.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <random>

using namespace llvm;
using namespace offload;
using ::testing::HasSubstr;

namespace {

std::string str(const SmallVector<char, 0> &V) {
  return std::string(V.begin(), V.end());
}

/// A bundle with compressible and incompressible parts.
std::string sampleBundle(size_t Size) {
  std::string Data;
  std::mt19937 Random(7);
  while (Data.size() < Size) {
    Data.append(1000, 'z');
    for (int I = 0; I != 1000; ++I)
      Data.push_back(static_cast<char>(Random()));
  }
  Data.resize(Size);
  return Data;
}

std::string compressed(StringRef Bundle, compression::Format Method,
                       uint16_t Version = 3) {
  BundleCompression O;
  O.Method = Method;
  O.Version = Version;
  return str(takeOrFail(compressBundle(Bundle, O)));
}

const compression::Format Methods[] = {compression::Format::Zstd,
                                       compression::Format::Zlib};

// Read in pieces of odd sizes, skipped over, or read whole: the same bytes
// and the same hash.
TEST(CompressedBundleReader, ReadsInPiecesAndSkips) {
  std::string Bundle = sampleBundle(300000);
  for (compression::Format Method : Methods) {
    std::string C = compressed(Bundle, Method);
    auto R = takeOrFail(CompressedBundleReader::open(C, "c"));
    ASSERT_TRUE(R);
    R->enableHash();
    std::string Got;
    char Buffer[777];
    while (true) {
      size_t N = takeOrFail(R->read(Buffer, sizeof(Buffer)));
      if (!N)
        break;
      Got.append(Buffer, N);
    }
    EXPECT_EQ(Got, Bundle);
    EXPECT_EQ(R->position(), Bundle.size());
    ASSERT_TRUE(succeeded(R->finish()));
    EXPECT_EQ(R->hash(), getBundleHash(Bundle));

    auto S = takeOrFail(CompressedBundleReader::open(C, "c"));
    ASSERT_TRUE(S);
    ASSERT_TRUE(succeeded(S->skip(123456)));
    std::string Piece(1000, '\0');
    ASSERT_TRUE(succeeded(S->readExactly(Piece.data(), Piece.size())));
    EXPECT_EQ(Piece, Bundle.substr(123456, 1000));
    ASSERT_TRUE(succeeded(S->finish()));
  }
}

// A header's uncompressed size that disagrees with the data is an error at
// the field's offset, whichever way it is wrong; reading less than all of
// the data notices nothing.
TEST(CompressedBundleReader, SizeDisagreements) {
  std::string Bundle = sampleBundle(50000);
  for (compression::Format Method : Methods) {
    std::string C = compressed(Bundle, Method);
    std::string Larger = C, Smaller = C;
    support::endian::write64le(&Larger[16], Bundle.size() + 10);
    support::endian::write64le(&Smaller[16], Bundle.size() - 10);
    EXPECT_THAT(errorMessage(decompressBundle(Larger, "l.bc", false)),
                HasSubstr("l.bc: offset 0x10: compressed bundle: the data "
                          "inflates to 50000 bytes where the header says "
                          "50010"));
    EXPECT_THAT(errorMessage(decompressBundle(Smaller, "s.bc", false)),
                HasSubstr("s.bc: offset 0x10: compressed bundle: the data "
                          "inflates to more than the 49990 bytes the header "
                          "says"));
    auto R = takeOrFail(CompressedBundleReader::open(Smaller, "s.bc"));
    ASSERT_TRUE(R);
    ASSERT_TRUE(succeeded(R->skip(40000)));
    // Asking for more than the header says finds the data that is there.
    EXPECT_THAT(errorMessage(R->skip(9991)),
                HasSubstr("inflates to more than the 49990 bytes"));

    // Version 2: the field is at 12; the bundle at offset 0x40 of the file.
    std::string V2 = compressed(Bundle, Method, 2);
    support::endian::write32le(&V2[12], Bundle.size() + 1);
    auto R2 = takeOrFail(CompressedBundleReader::open(V2, "f", 0x40));
    ASSERT_TRUE(R2);
    EXPECT_THAT(errorMessage(R2->finish()),
                HasSubstr("f: offset 0x4C: compressed bundle: the data "
                          "inflates to 50000 bytes where the header says "
                          "50001"));
  }
}

TEST(CompressedBundleReader, TruncatedAndCorruptStreams) {
  std::string Bundle = sampleBundle(50000);
  for (compression::Format Method : Methods) {
    std::string C = compressed(Bundle, Method);
    std::string Cut = C.substr(0, C.size() - 100);
    support::endian::write64le(&Cut[8], Cut.size());
    EXPECT_THAT(errorMessage(decompressBundle(Cut, "t.bc", false)),
                HasSubstr("cannot inflate: the compressed data ends inside"));
    std::string Bad = C;
    for (size_t I = 40; I != 60; ++I)
      Bad[I] ^= 0x5a;
    EXPECT_THAT(errorMessage(decompressBundle(Bad, "b.bc", false)),
                HasSubstr("b.bc: offset 0x"));
  }
}

// The hash is checked only when asked for, over what was inflated.
TEST(CompressedBundleReader, HashOnRequest) {
  std::string Bundle = sampleBundle(10000);
  std::string C = compressed(Bundle, compression::Format::Zstd);
  C[24] ^= 1;
  EXPECT_TRUE(bool(decompressBundle(C, "h", /*VerifyHash=*/false)));
  EXPECT_THAT(errorMessage(decompressBundle(C, "h", /*VerifyHash=*/true)),
              HasSubstr("does not match the inflated data"));
}

/// A binary bundle of entries (ID, size) with payloads of zeros and a
/// marker byte at the start of each.
std::string binaryBundle(ArrayRef<std::pair<std::string, size_t>> Entries,
                         uint64_t Align = 1) {
  std::vector<BundleEntryToWrite> W;
  std::vector<std::string> Payloads;
  for (auto &[ID, Size] : Entries) {
    std::string P(Size, '\0');
    if (Size)
      P[0] = ID.back();
    Payloads.push_back(std::move(P));
  }
  for (size_t I = 0; I != Entries.size(); ++I)
    W.push_back({Entries[I].first, Payloads[I]});
  std::string Out;
  raw_string_ostream OS(Out);
  writeBinaryBundle(OS, W, Align);
  return Out;
}

// The header is read from a prefix of the bundle, asked for no further than
// its end.
TEST(BinaryBundleHeader, ReadsOnlyTheHeader) {
  std::string Bundle =
      binaryBundle({{"host-x86_64-unknown-linux-gnu-", 5},
                    {"hipv4-amdgcn-amd-amdhsa--gfx90a", 100000},
                    {"hipv4-amdgcn-amd-amdhsa--gfx1100", 3}},
                   4096);
  uint64_t Furthest = 0;
  BinaryBundleHeader H = takeOrFail(readBinaryBundleHeader(
      [&](uint64_t Size) -> Expected<StringRef> {
        Furthest = std::max(Furthest, Size);
        return StringRef(Bundle).take_front(Size);
      },
      Bundle.size(), "b"));
  EXPECT_EQ(Furthest, H.HeaderSize);
  EXPECT_EQ(H.HeaderSize, 32u + 3 * 24 + 30 + 31 + 32);
  ASSERT_EQ(H.Entries.size(), 3u);
  EXPECT_EQ(H.Entries[1].ID, "hipv4-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(H.Entries[1].Offset, 8192u);
  EXPECT_EQ(H.Entries[1].Size, 100000u);
  EXPECT_EQ(H.payloadEnd(), Bundle.size());
  std::vector<size_t> Order = inBundlerOrder(H.Entries);
  std::vector<BundleEntry> Views =
      inBundlerOrder(takeOrFail(readBinaryBundle(Bundle, "b")));
  ASSERT_EQ(Order.size(), Views.size());
  for (size_t I = 0; I != Order.size(); ++I)
    EXPECT_EQ(H.Entries[Order[I]].ID, Views[I].ID);
}

// A repeated ID is an error as soon as it is read: a header of many empty
// entries costs nothing.
TEST(BinaryBundleHeader, RepeatedIDStopsAtOnce) {
  std::string Header = "__CLANG_OFFLOAD_BUNDLE__";
  Header.append(8, '\0');
  support::endian::write64le(&Header[24], 1000000);
  Header.append(2 * 24, '\0');
  uint64_t Furthest = 0;
  EXPECT_THAT(errorMessage(readBinaryBundleHeader(
                  [&](uint64_t Size) -> Expected<StringRef> {
                    Furthest = std::max(Furthest, Size);
                    return StringRef(Header).take_front(Size);
                  },
                  uint64_t(1) << 40, "z")),
              HasSubstr("entry ID '' appears twice"));
  EXPECT_EQ(Furthest, Header.size());
}

// A compressed bundle's header is inflated alone; its payloads are streamed
// in order of offset, whatever the order asked.
TEST(CompressedBundleReader, StreamsPayloads) {
  std::string Bundle =
      binaryBundle({{"host-x86_64-unknown-linux-gnu-", 5},
                    {"hipv4-amdgcn-amd-amdhsa--gfx90a", 3000000},
                    {"hipv4-amdgcn-amd-amdhsa--gfx1100", 7}});
  for (compression::Format Method : Methods) {
    std::string C = compressed(Bundle, Method);
    auto R = takeOrFail(CompressedBundleReader::open(C, "c"));
    ASSERT_TRUE(R);
    std::optional<BinaryBundleHeader> H =
        takeOrFail(readInflatedBundleHeader(*R));
    ASSERT_TRUE(H);
    EXPECT_EQ(R->position(), H->HeaderSize);
    std::vector<BundleEntryLocation> Wanted = {H->Entries[2], H->Entries[1]};
    std::vector<std::string> Got(2);
    std::vector<size_t> Order;
    ASSERT_TRUE(succeeded(streamBundlePayloads(
        *R, Wanted, [&](size_t I, StringRef Piece) -> Error {
          if (Order.empty() || Order.back() != I)
            Order.push_back(I);
          Got[I] += Piece.str();
          return Error::success();
        })));
    EXPECT_EQ(Order, (std::vector<size_t>{1, 0}));
    EXPECT_EQ(Got[0], Bundle.substr(H->Entries[2].Offset, 7));
    EXPECT_EQ(Got[1], Bundle.substr(H->Entries[1].Offset, 3000000));
    // Nothing past the last entry wanted was inflated.
    EXPECT_EQ(R->position(), H->Entries[2].Offset + 7);

    // Data that is no binary bundle: told apart from its first bytes.
    std::string Text =
        compressed("\n// __CLANG_OFFLOAD_BUNDLE____START__ x\n", Method);
    auto T = takeOrFail(CompressedBundleReader::open(Text, "t"));
    ASSERT_TRUE(T);
    EXPECT_FALSE(takeOrFail(readInflatedBundleHeader(*T)).has_value());
  }
}

} // namespace

namespace {
/// What CompressedBundleWriter writes of \p Bundle after a 5-byte prefix,
/// fed in pieces of \p Piece bytes, with the prefix checked and dropped.
std::string writeStreamed(StringRef Bundle, const BundleCompression &O,
                          size_t Piece, bool CanSeek) {
  SmallVector<char, 0> Out;
  raw_svector_ostream OS(Out);
  OS << "ahead";
  auto W = takeOrFail(
      CompressedBundleWriter::create(OS, CanSeek, Bundle.size(), O, "out"));
  if (!W)
    return "";
  for (size_t At = 0; At < Bundle.size(); At += Piece)
    *W << Bundle.substr(At, Piece);
  CompressedBundleHeader H = takeOrFail(W->finish());
  EXPECT_EQ(H.UncompressedSize, Bundle.size());
  EXPECT_EQ(H.Hash, getBundleHash(Bundle));
  EXPECT_EQ(*H.TotalSize, Out.size() - 5);
  std::string All = str(Out);
  EXPECT_EQ(All.substr(0, 5), "ahead");
  return All.substr(5);
}
} // namespace

// Written as it comes, a bundle compresses to compressBundle()'s bytes:
// small ones and zlib gathered, large zstd ones streamed (in pieces that do
// not divide zstd's jobs), whether the output can seek or not.
TEST(CompressedBundleWriter, SameBytesAsCompressBundle) {
  for (compression::Format Method : Methods)
    for (uint16_t Version : {2, 3}) {
      BundleCompression O;
      O.Method = Method;
      O.Version = Version;
      std::string Bundle = sampleBundle(300000);
      std::string Want = str(takeOrFail(compressBundle(Bundle, O)));
      EXPECT_EQ(writeStreamed(Bundle, O, 4097, true), Want);
      EXPECT_EQ(writeStreamed(Bundle, O, 300000, false), Want);
    }
  std::string Large = sampleBundle(MultiThreadedZstdThreshold + 12345);
  for (uint16_t Version : {2, 3}) {
    BundleCompression O;
    O.Version = Version;
    std::string Want = str(takeOrFail(compressBundle(Large, O)));
    EXPECT_EQ(writeStreamed(Large, O, (1 << 20) + 3, true), Want);
    EXPECT_EQ(writeStreamed(Large, O, 1 << 16, false), Want);
  }
}

// The size announced is the size written: fewer or more bytes are an error
// naming the output; bad options fail before anything is written.
TEST(CompressedBundleWriter, SizeMustMatch) {
  BundleCompression O;
  for (uint64_t Announced : {uint64_t(100), MultiThreadedZstdThreshold}) {
    SmallVector<char, 0> Out;
    raw_svector_ostream OS(Out);
    auto W =
        takeOrFail(CompressedBundleWriter::create(OS, true, Announced, O, "o"));
    ASSERT_TRUE(W);
    *W << std::string(50, 'x');
    EXPECT_THAT(errorMessage(W->finish()),
                HasSubstr("o: compressed bundle: 50 bytes written where " +
                          std::to_string(Announced) + " were announced"));
  }
  {
    SmallVector<char, 0> Out;
    raw_svector_ostream OS(Out);
    auto W = takeOrFail(CompressedBundleWriter::create(OS, true, 10, O, "o"));
    ASSERT_TRUE(W);
    *W << std::string(11, 'x');
    EXPECT_THAT(errorMessage(W->finish()),
                HasSubstr("more than the 10 bytes announced were written"));
  }
  SmallVector<char, 0> Out;
  raw_svector_ostream OS(Out);
  O.Version = 1;
  EXPECT_THAT(
      errorMessage(CompressedBundleWriter::create(OS, true, 10, O, "o")),
      HasSubstr("version 1 cannot be written"));
  O.Version = 2;
  EXPECT_THAT(errorMessage(
                  CompressedBundleWriter::create(OS, true, 1ULL << 33, O, "o")),
              HasSubstr("Uncompressed size exceeds version 2 limit"));
  EXPECT_TRUE(Out.empty());
}

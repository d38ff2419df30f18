//===- OffloadBundleTest.cpp - Bundle entry IDs, bundles, CCOB ------------===//

#include "format/BundleEntryID.h"
#include "format/CompressedBundle.h"
#include "format/OffloadBundle.h"

#include "unittests/ErrorMatchers.h"

#include "llvm/Support/Endian.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

std::string entryID(StringRef Text) {
  return takeOrFail(BundleEntryID::parse(Text)).str();
}

// IDs are normalized to four triple fields; AMDHSA keeps an empty
// environment; unknown processors drop the target ID, as LLVM does.
TEST(BundleEntryID, Normalizes) {
  EXPECT_EQ(entryID("host-x86_64-unknown-linux-gnu"),
            "host-x86_64-unknown-linux-gnu-");
  EXPECT_EQ(entryID("hip-amdgcn-amd-amdhsa--gfx90a:xnack+"),
            "hip-amdgcn-amd-amdhsa--gfx90a:xnack+");
  EXPECT_EQ(entryID("openmp-x86_64-pc-linux-gnu"),
            "openmp-x86_64-pc-linux-gnu-");
  EXPECT_EQ(entryID("openmp-nvptx64-nvidia-cuda--sm_80"),
            "openmp-nvptx64-nvidia-cuda-unknown-sm_80");
  EXPECT_EQ(entryID("openmp-x86_64-pc-linux-gnu-notaprocessor"),
            "openmp-x86_64-pc-linux-gnu-");
  EXPECT_NE(errorMessage(BundleEntryID::parse("hip-amdgcn")).find(
                "is not <kind>-<arch>-<vendor>-<os>-<env>"),
            std::string::npos);
}

TEST(TargetID, ParsesAndCanonicalizes) {
  TargetID ID = takeOrFail(TargetID::parse("gfx90a:xnack-:sramecc+"));
  EXPECT_EQ(ID.Processor, "gfx90a");
  EXPECT_EQ(ID.str(), "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(ID.feature("xnack"), std::optional<bool>(false));
  EXPECT_EQ(ID.feature("tgsplit"), std::nullopt);
  EXPECT_NE(errorMessage(TargetID::parse("gfx90a:xnack")).find(
                "feature 'xnack' must end in '+' or '-'"),
            std::string::npos);
  EXPECT_NE(errorMessage(TargetID::parse("gfx90a:xnack+:xnack-"))
                .find("appears twice"),
            std::string::npos);
}

// The compatibility rule, which clang-offload-bundler, comgr and the
// device-link plan share: a code object runs where every feature it sets is
// set the same way; a feature it leaves unset matches either setting.
struct CompatibilityRow {
  const char *CodeObject, *Target;
  bool Compatible;
};
const CompatibilityRow CompatibilityTable[] = {
    {"gfx90a", "gfx90a", true},
    {"gfx90a", "gfx90a:xnack+", true},
    {"gfx90a", "gfx90a:xnack-", true},
    {"gfx90a", "gfx90a:sramecc-:xnack+", true},
    {"gfx90a:xnack+", "gfx90a:xnack+", true},
    {"gfx90a:xnack+", "gfx90a:sramecc-:xnack+", true},
    {"gfx90a:xnack+:sramecc-", "gfx90a:sramecc-:xnack+", true},
    {"gfx90a:xnack+", "gfx90a", false},
    {"gfx90a:xnack+", "gfx90a:xnack-", false},
    {"gfx90a:xnack-", "gfx90a:xnack+", false},
    {"gfx90a:xnack+", "gfx90a:sramecc+", false},
    {"gfx90a:sramecc+:xnack+", "gfx90a:xnack+", false},
    {"gfx90a:sramecc+:xnack+", "gfx90a:sramecc-:xnack+", false},
    {"gfx942:sramecc+", "gfx942:sramecc+:xnack-", true},
    {"gfx90a", "gfx942", false},
    {"gfx90a:xnack+", "gfx942:xnack+", false},
};

TEST(TargetID, CompatibilityTable) {
  for (const CompatibilityRow &Row : CompatibilityTable)
    EXPECT_EQ(isTargetIDCompatible(takeOrFail(TargetID::parse(Row.CodeObject)),
                                   takeOrFail(TargetID::parse(Row.Target))),
              Row.Compatible)
        << "code object " << Row.CodeObject << ", target " << Row.Target;
}

TEST(BundleEntryID, CodeObjectCompatibility) {
  auto Compatible = [](StringRef Code, StringRef Target, bool HipOpenMP) {
    return isCodeObjectCompatible(takeOrFail(BundleEntryID::parse(Code)),
                                  takeOrFail(BundleEntryID::parse(Target)),
                                  HipOpenMP);
  };
  EXPECT_TRUE(Compatible("hip-amdgcn-amd-amdhsa--gfx90a",
                         "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", false));
  EXPECT_FALSE(Compatible("hip-amdgcn-amd-amdhsa--gfx90a",
                          "openmp-amdgcn-amd-amdhsa--gfx90a", false));
  EXPECT_TRUE(Compatible("hip-amdgcn-amd-amdhsa--gfx90a",
                         "openmp-amdgcn-amd-amdhsa--gfx90a", true));
  EXPECT_FALSE(Compatible("openmp-nvptx64-nvidia-cuda--sm_70",
                          "openmp-nvptx64-nvidia-cuda--sm_80", false));
}

TEST(OffloadBundle, BinaryRoundTripWithAlignment) {
  std::vector<BundleEntryToWrite> Entries = {
      {"host-x86_64-unknown-linux-gnu-", "HOST"},
      {"hip-amdgcn-amd-amdhsa--gfx90a", "DEVICE"}};
  std::string Out;
  raw_string_ostream OS(Out);
  writeBinaryBundle(OS, Entries, 16);
  EXPECT_EQ(Out.size(), getBinaryBundleSize(Entries, 16));
  std::vector<BundleEntry> Read = takeOrFail(readBinaryBundle(Out, "b"));
  ASSERT_EQ(Read.size(), 2u);
  EXPECT_EQ(Read[1].ID, "hip-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(Read[1].Data, "DEVICE");
  EXPECT_EQ((Read[0].Data.data() - Out.data()) % 16, 0);
  EXPECT_EQ((Read[1].Data.data() - Out.data()) % 16, 0);
}

std::string header(uint64_t Count) {
  std::string S = BundleMagic.str();
  S.resize(S.size() + 8);
  support::endian::write64le(&S[BundleMagic.size()], Count);
  return S;
}

void appendEntry(std::string &S, uint64_t Offset, uint64_t Size,
                 StringRef ID) {
  char Buf[24];
  support::endian::write64le(Buf, Offset);
  support::endian::write64le(Buf + 8, Size);
  support::endian::write64le(Buf + 16, ID.size());
  S.append(Buf, 24);
  S += ID;
}

TEST(OffloadBundle, BinaryMalformed) {
  EXPECT_NE(errorMessage(readBinaryBundle(BundleMagic, "t.bc"))
                .find("t.bc: offset 0x18: truncated bundle header"),
            std::string::npos);
  EXPECT_NE(errorMessage(readBinaryBundle(header(1ULL << 62), "t.bc"))
                .find("entry count 4611686018427387904 does not fit"),
            std::string::npos);
  std::string Past = header(1);
  appendEntry(Past, 60, 100, "host-x86_64-unknown-linux-gnu-");
  EXPECT_NE(errorMessage(readBinaryBundle(Past, "t.bc"))
                .find("run past the end"),
            std::string::npos);
  std::string HugeID = header(1);
  appendEntry(HugeID, 0, 0, "");
  support::endian::write64le(&HugeID[HugeID.size() - 8], UINT64_MAX);
  EXPECT_NE(errorMessage(readBinaryBundle(HugeID, "t.bc"))
                .find("ID length 18446744073709551615 runs past the end"),
            std::string::npos);
  std::string Overlap = header(2);
  appendEntry(Overlap, 100, 8, "a-x86_64-unknown-linux-gnu-");
  appendEntry(Overlap, 104, 8, "b-x86_64-unknown-linux-gnu-");
  Overlap.resize(200, 'x');
  EXPECT_NE(errorMessage(readBinaryBundle(Overlap, "t.bc")).find("overlap"),
            std::string::npos);
}

TEST(OffloadBundle, TextRoundTripAndMissingEnd) {
  std::vector<BundleEntryToWrite> Entries = {
      {"host-x86_64-unknown-linux-gnu-", "int x;\n"},
      {"openmp-x86_64-pc-linux-gnu-", "int y;\n"}};
  std::string Out;
  raw_string_ostream OS(Out);
  writeTextBundle(OS, Entries, "//");
  EXPECT_EQ(Out, "\n// __CLANG_OFFLOAD_BUNDLE____START__ "
                 "host-x86_64-unknown-linux-gnu-\nint x;\n\n// "
                 "__CLANG_OFFLOAD_BUNDLE____END__ "
                 "host-x86_64-unknown-linux-gnu-\n\n// "
                 "__CLANG_OFFLOAD_BUNDLE____START__ "
                 "openmp-x86_64-pc-linux-gnu-\nint y;\n\n// "
                 "__CLANG_OFFLOAD_BUNDLE____END__ "
                 "openmp-x86_64-pc-linux-gnu-\n");
  std::vector<BundleEntry> Read = takeOrFail(readTextBundle(Out, "//", "t"));
  ASSERT_EQ(Read.size(), 2u);
  EXPECT_EQ(Read[1].Data, "int y;\n");
  std::string Cut = Out.substr(0, Out.rfind("\n// __CLANG_OFFLOAD_BUNDLE____END"));
  EXPECT_NE(errorMessage(readTextBundle(Cut, "//", "t.ii"))
                .find("entry 'openmp-x86_64-pc-linux-gnu-' has no END marker"),
            std::string::npos);
}

TEST(CompressedBundle, RoundTripsV2V3ZlibZstd) {
  std::string Bundle(5000, 'a');
  Bundle += "__CLANG_OFFLOAD_BUNDLE__ tail";
  for (uint16_t Version : {2, 3})
    for (compression::Format Method :
         {compression::Format::Zlib, compression::Format::Zstd}) {
      BundleCompression O;
      O.Version = Version;
      O.Method = Method;
      SmallVector<char, 0> C = takeOrFail(compressBundle(Bundle, O));
      StringRef CS(C.data(), C.size());
      CompressedBundleHeader H;
      SmallVector<char, 0> D =
          takeOrFail(decompressBundle(CS, "c", /*VerifyHash=*/true, &H));
      EXPECT_EQ(StringRef(D.data(), D.size()), Bundle);
      EXPECT_EQ(H.Version, Version);
      EXPECT_EQ(*H.TotalSize, C.size());
      EXPECT_EQ(H.Hash, getBundleHash(Bundle));
    }
}

// Back-to-back bundles are bounded by their sizes, with zero padding between.
TEST(CompressedBundle, SplitsByTotalSize) {
  SmallVector<char, 0> A = takeOrFail(compressBundle("first", {}));
  SmallVector<char, 0> B = takeOrFail(compressBundle("second", {}));
  std::string Data(A.begin(), A.end());
  Data.append(7, '\0');
  Data.append(B.begin(), B.end());
  std::vector<StringRef> Parts =
      takeOrFail(splitCompressedBundles(Data, "fatbin"));
  ASSERT_EQ(Parts.size(), 2u);
  EXPECT_EQ(Parts[0].size(), A.size());
  EXPECT_EQ(Parts[1].size(), B.size());
}

TEST(CompressedBundle, Malformed) {
  SmallVector<char, 0> C = takeOrFail(compressBundle("payload bytes", {}));
  std::string Data(C.begin(), C.end());
  std::string BadHash = Data;
  BadHash[24] ^= 1;
  EXPECT_NE(errorMessage(decompressBundle(BadHash, "h", true))
                .find("does not match the inflated data"),
            std::string::npos);
  std::string BadSize = Data;
  support::endian::write64le(&BadSize[8], 1 << 20);
  EXPECT_NE(errorMessage(decompressBundle(BadSize, "h", true))
                .find("total size 1048576 runs past the end"),
            std::string::npos);
  std::string BadVersion = Data;
  support::endian::write16le(&BadVersion[4], 9);
  EXPECT_NE(errorMessage(decompressBundle(BadVersion, "h", true))
                .find("unknown version 9"),
            std::string::npos);
  std::string Huge = Data;
  support::endian::write64le(&Huge[16], 1ULL << 40);
  EXPECT_NE(errorMessage(decompressBundle(Huge, "h", true))
                .find("is implausible"),
            std::string::npos);
  EXPECT_NE(errorMessage(decompressBundle(StringRef(Data).take_front(20), "h",
                                          true))
                .find("truncated version 3 header"),
            std::string::npos);
}

} // namespace

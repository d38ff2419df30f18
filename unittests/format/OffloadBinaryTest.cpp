//===- OffloadBinaryTest.cpp - Reading and writing 0x10FF10AD binaries ----===//

#include "format/OffloadBinary.h"
#include "format/OffloadBinaryWriter.h"

#include "unittests/ErrorMatchers.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

ImageToWrite makeImage(StringRef Bytes, StringRef Triple, StringRef Arch) {
  ImageToWrite Image;
  Image.TheImageKind = ImageKind::Object;
  Image.TheOffloadKind = OffloadKind::OpenMP;
  Image.Strings = {{"triple", Triple.str()}, {"arch", Arch.str()}};
  Image.Image = Bytes;
  return Image;
}

std::string write(ArrayRef<ImageToWrite> Images, WriteOptions Options = {}) {
  std::string Out;
  raw_string_ostream OS(Out);
  EXPECT_TRUE(succeeded(writeOffloadBinaries(OS, Images, Options)));
  return Out;
}

// Two images survive a write and a read in every version.
TEST(OffloadBinary, RoundTripsEveryVersion) {
  ImageToWrite Images[] = {makeImage("hello", "x86_64-pc-linux-gnu", "generic"),
                           makeImage("abc", "nvptx64-nvidia-cuda", "sm_70")};
  for (uint32_t Version : {1u, 2u, 3u}) {
    WriteOptions Options;
    Options.Version = Version;
    std::string Data = write(Images, Options);
    EXPECT_EQ(Data.size() % 8, 0u);
    EXPECT_EQ(Data.size(), takeOrFail(getOffloadBinariesSize(Images, Options)));
    ByteStore Store;
    std::vector<OffloadBinary> Binaries =
        takeOrFail(readOffloadBinaries(Data, Store, "mem"));
    std::vector<const OffloadImage *> Read;
    for (const OffloadBinary &B : Binaries) {
      EXPECT_EQ(B.Version, Version);
      for (const OffloadImage &I : B.Images)
        Read.push_back(&I);
    }
    ASSERT_EQ(Read.size(), 2u);
    EXPECT_EQ(Read[0]->Image, "hello");
    EXPECT_EQ(Read[0]->getTriple(), "x86_64-pc-linux-gnu");
    EXPECT_EQ(Read[1]->Image, "abc");
    EXPECT_EQ(Read[1]->getArch(), "sm_70");
    EXPECT_EQ(Read[1]->TheOffloadKind, OffloadKind::OpenMP);
  }
}

// Image kind names are the extensions LLVM 22 uses, and map back; SPIR-V
// has none there.
TEST(OffloadBinary, ImageKindNames) {
  std::pair<ImageKind, StringRef> Kinds[] = {{ImageKind::Object, "o"},
                                             {ImageKind::Bitcode, "bc"},
                                             {ImageKind::Cubin, "cubin"},
                                             {ImageKind::Fatbinary, "fatbin"},
                                             {ImageKind::PTX, "s"}};
  for (const auto &[Kind, Name] : Kinds) {
    EXPECT_EQ(getImageKindName(Kind), Name);
    EXPECT_EQ(getImageKindFromExtension(Name), Kind);
  }
  EXPECT_EQ(getImageKindName(ImageKind::SPIRV), "");
  EXPECT_EQ(getImageKindFromExtension("spv"), ImageKind::None);
  EXPECT_EQ(getImageKindName(ImageKind::None), "");
  EXPECT_EQ(getImageKindName(static_cast<ImageKind>(77)), "");
  EXPECT_EQ(getImageKindFromExtension("exe"), ImageKind::None);
  EXPECT_EQ(getImageKindFromExtension(""), ImageKind::None);
}

// Offload kind names are the spellings of kind=, and map back.
TEST(OffloadBinary, OffloadKindNames) {
  std::pair<OffloadKind, StringRef> Kinds[] = {{OffloadKind::OpenMP, "openmp"},
                                               {OffloadKind::Cuda, "cuda"},
                                               {OffloadKind::HIP, "hip"},
                                               {OffloadKind::SYCL, "sycl"}};
  for (const auto &[Kind, Name] : Kinds) {
    EXPECT_EQ(getOffloadKindName(Kind), Name);
    EXPECT_EQ(getOffloadKindFromName(Name), Kind);
  }
  EXPECT_EQ(getOffloadKindName(OffloadKind::None), "none");
  EXPECT_EQ(getOffloadKindName(static_cast<OffloadKind>(3)), "none");
  EXPECT_EQ(getOffloadKindFromName("HIP"), OffloadKind::None);
  EXPECT_EQ(getOffloadKindFromName("none"), OffloadKind::None);
}

// The magic test looks at the first four bytes only.
TEST(OffloadBinary, HasMagic) {
  EXPECT_TRUE(hasOffloadBinaryMagic(StringRef("\x10\xFF\x10\xAD", 4)));
  EXPECT_TRUE(hasOffloadBinaryMagic(StringRef("\x10\xFF\x10\xADrest", 8)));
  EXPECT_FALSE(hasOffloadBinaryMagic(StringRef("\x10\xFF\x10", 3)));
  EXPECT_FALSE(hasOffloadBinaryMagic(StringRef("\xAD\x10\xFF\x10", 4)));
  EXPECT_FALSE(hasOffloadBinaryMagic(""));
}

// Kinds and flags survive a round trip unchanged.
TEST(OffloadBinary, KindsAndFlagsRoundTrip) {
  ImageToWrite Image = makeImage("x", "t", "a");
  Image.TheImageKind = ImageKind::Fatbinary;
  Image.TheOffloadKind = OffloadKind::HIP;
  Image.Flags = 0xDEADBEEF;
  for (uint32_t Version : {1u, 2u, 3u}) {
    WriteOptions Options;
    Options.Version = Version;
    std::string Data = write(Image, Options);
    ByteStore Store;
    OffloadBinary B = takeOrFail(readOffloadBinary(Data, 0, Store, "mem"));
    ASSERT_EQ(B.Images.size(), 1u);
    EXPECT_EQ(B.Images[0].TheImageKind, ImageKind::Fatbinary);
    EXPECT_EQ(B.Images[0].TheOffloadKind, OffloadKind::HIP);
    EXPECT_EQ(B.Images[0].Flags, 0xDEADBEEFu);
  }
}

} // namespace

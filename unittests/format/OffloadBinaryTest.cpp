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
  cantFail(writeOffloadBinaries(OS, Images, Options));
  return Out;
}

TEST(OffloadBinary, RoundTripsEveryVersion) {
  ImageToWrite Images[] = {makeImage("hello", "x86_64-pc-linux-gnu", "generic"),
                           makeImage("abc", "nvptx64-nvidia-cuda", "sm_70")};
  for (uint32_t Version : {1u, 2u, 3u}) {
    WriteOptions Options;
    Options.Version = Version;
    std::string Data = write(Images, Options);
    EXPECT_EQ(Data.size() % 8, 0u);
    EXPECT_EQ(Data.size(), cantFail(getOffloadBinariesSize(Images, Options)));
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

} // namespace

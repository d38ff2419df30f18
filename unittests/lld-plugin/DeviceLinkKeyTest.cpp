//===- unittests/lld-plugin/DeviceLinkKeyTest.cpp -------------------------===//
//
// The one key of a device link: made from an image, compared, named.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DeviceLinkKey.h"

#include "gtest/gtest.h"

#include <map>

using namespace llvm;
using namespace offload;

namespace {

OffloadImage image(OffloadKind Kind, StringRef Triple, StringRef Arch) {
  OffloadImage Image;
  Image.TheOffloadKind = Kind;
  Image.Strings = {{"triple", Triple}, {"arch", Arch}};
  return Image;
}

TEST(DeviceLinkKeyTest, OfAnImageNormalizesTheTripleOnly) {
  DeviceLinkKey Key =
      DeviceLinkKey::of(image(OffloadKind::HIP, "amdgcn-amd-amdhsa",
                              "gfx90a:xnack+"));
  EXPECT_EQ(Key.Kind, OffloadKind::HIP);
  EXPECT_EQ(Key.TargetTriple.str(), Triple::normalize("amdgcn-amd-amdhsa"));
  EXPECT_EQ(Key.Arch, "gfx90a:xnack+");
}

TEST(DeviceLinkKeyTest, ComparesKindTripleAndArch) {
  auto Key = [](OffloadKind K, StringRef T, StringRef A) {
    return DeviceLinkKey::of(image(K, T, A));
  };
  DeviceLinkKey A = Key(OffloadKind::HIP, "amdgcn-amd-amdhsa", "gfx90a");
  DeviceLinkKey B = Key(OffloadKind::HIP, "amdgcn-amd-amdhsa", "gfx908");
  DeviceLinkKey C = Key(OffloadKind::OpenMP, "amdgcn-amd-amdhsa", "gfx90a");
  DeviceLinkKey D = Key(OffloadKind::HIP, "amdgcn-amd-amdpal", "gfx90a");
  EXPECT_TRUE(A.sameKindAndTriple(B));
  EXPECT_FALSE(A.sameKindAndTriple(C));
  EXPECT_FALSE(A.sameKindAndTriple(D));
  EXPECT_FALSE(A == B);
  EXPECT_TRUE(A == Key(OffloadKind::HIP, "amdgcn-amd-amdhsa", "gfx90a"));
  // A strict weak order: a map key.
  std::map<DeviceLinkKey, int> Map;
  for (const DeviceLinkKey &K : {A, B, C, D, A})
    ++Map[K];
  EXPECT_EQ(Map.size(), 4u);
  EXPECT_EQ(Map[A], 2);
  EXPECT_TRUE(A < B || B < A);
  EXPECT_FALSE(A < A);
}

TEST(DeviceLinkKeyTest, NamesAndFileNames) {
  DeviceLinkKey Generic =
      DeviceLinkKey::of(image(OffloadKind::OpenMP, "x86_64-pc-linux-gnu", ""));
  EXPECT_EQ(Generic.name(), "openmp-x86_64-pc-linux-gnu-generic");
  bool Changed = true;
  EXPECT_EQ(Generic.fileName(&Changed), Generic.name());
  EXPECT_FALSE(Changed);

  DeviceLinkKey Crafted = DeviceLinkKey::of(
      image(OffloadKind::OpenMP, "x86_64-pc-linux-gnu", "../../x"));
  EXPECT_EQ(Crafted.name(), "openmp-x86_64-pc-linux-gnu-../../x");
  EXPECT_EQ(Crafted.fileName(&Changed), "openmp-x86_64-pc-linux-gnu-______x");
  EXPECT_TRUE(Changed);
}

} // namespace

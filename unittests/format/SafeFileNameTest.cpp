//===- SafeFileNameTest.cpp - File names from image metadata --------------===//

#include "format/SafeFileName.h"

#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <string>

using namespace llvm;
using namespace offload;

namespace {

std::string clean(StringRef Part, bool &Changed, size_t Max = MaxFileNameSize) {
  Changed = true;
  return safeFileNamePart(Part, &Changed, Max);
}

TEST(SafeFileNameTest, RealTriplesAndArchsAreKept) {
  for (StringRef Part :
       {"x86_64-pc-linux-gnu", "amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda",
        "spirv64-intel", "gfx90a:sramecc+:xnack-", "sm_70", "generic", "",
        "native", "v1.2", "a.b.c", "caf\xc3\xa9"}) {
    bool Changed;
    EXPECT_EQ(clean(Part, Changed), Part.str());
    EXPECT_FALSE(Changed) << Part.str();
  }
  // Without the flag.
  EXPECT_EQ(safeFileNamePart("gfx1100"), "gfx1100");
}

TEST(SafeFileNameTest, SeparatorsAndDotsAreReplaced) {
  bool Changed;
  EXPECT_EQ(clean("x/../../escaped", Changed), "x_______escaped");
  EXPECT_TRUE(Changed);
  EXPECT_EQ(clean("/tmp/x", Changed), "_tmp_x");
  EXPECT_TRUE(Changed);
  EXPECT_EQ(clean("..", Changed), "__");
  EXPECT_TRUE(Changed);
  EXPECT_EQ(clean(".", Changed), "_");
  EXPECT_TRUE(Changed);
  EXPECT_EQ(clean("a...b", Changed), "a___b");
  EXPECT_TRUE(Changed);
  EXPECT_EQ(clean("c:\\windows\\x", Changed), "c:_windows_x");
  EXPECT_TRUE(Changed);
}

TEST(SafeFileNameTest, ControlCharactersAreReplaced) {
  bool Changed;
  EXPECT_EQ(clean(StringRef("a\0b", 3), Changed), "a_b");
  EXPECT_TRUE(Changed);
  EXPECT_EQ(clean("tab\there\nnl\x7f\x1b", Changed), "tab_here_nl__");
  EXPECT_TRUE(Changed);
}

TEST(SafeFileNameTest, EveryResultIsOneHarmlessComponent) {
  for (StringRef Part : {"../../../../../../tmp/x", "/", "//", "...", "a/..",
                         "../", "./.", "\\..\\"}) {
    std::string Out = safeFileNamePart(Part);
    EXPECT_EQ(Out.find('/'), std::string::npos) << Out;
    EXPECT_EQ(Out.find(".."), std::string::npos) << Out;
    EXPECT_NE(Out, ".");
    EXPECT_EQ(sys::path::filename(Out), Out);
  }
}

TEST(SafeFileNameTest, LongPartsAreCutWithAHash) {
  bool Changed;
  std::string Long(1000, 'a');
  std::string Out = clean(Long, Changed);
  EXPECT_TRUE(Changed);
  ASSERT_EQ(Out.size(), MaxFileNameSize);
  EXPECT_EQ(Out.substr(0, MaxFileNameSize - 17), Long.substr(0, 238));
  EXPECT_EQ(Out[MaxFileNameSize - 17], '-');
  // Deterministic, and two long parts with the same start differ.
  EXPECT_EQ(safeFileNamePart(Long), Out);
  std::string Other = Long + "b";
  EXPECT_NE(safeFileNamePart(Other), Out);
  // Exactly at the limit: kept.
  std::string AtLimit(MaxFileNameSize, 'z');
  EXPECT_EQ(clean(AtLimit, Changed), AtLimit);
  EXPECT_FALSE(Changed);
  // A smaller limit, and one below the hash's own size.
  EXPECT_EQ(clean("abcdefghijklmnopqrstuvwxyz", Changed, 20).size(), 20u);
  EXPECT_TRUE(Changed);
  EXPECT_EQ(clean("abcdefghijklmnopqrstuvwxyz", Changed, 3).size(), 17u);
  EXPECT_EQ(clean("abc", Changed, 3), "abc");
  EXPECT_FALSE(Changed);
}

TEST(SafeFileNameTest, PortableKeepsOnlyPortableCharacters) {
  EXPECT_EQ(portableFileNamePart("0-hip-amdgcn-amd-amdhsa-gfx90a:xnack+"),
            "0-hip-amdgcn-amd-amdhsa-gfx90a_xnack+");
  EXPECT_EQ(portableFileNamePart("a/b\\c d\x01" "e\xc3\xa9"), "a_b_c_d_e__");
  EXPECT_EQ(portableFileNamePart("x86_64-unknown-linux-gnu.1"),
            "x86_64-unknown-linux-gnu.1");
  EXPECT_EQ(portableFileNamePart(""), "");
}

TEST(SafeFileNameTest, BundlerNamesChangeOnlyColons) {
  EXPECT_EQ(bundlerFileName("lib-hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
                            "lib.bc"),
            "lib-hip-amdgcn-amd-amdhsa--gfx90a_sramecc+_xnack-lib.bc");
  EXPECT_EQ(bundlerFileName("a b.o"), "a b.o");
}

} // namespace

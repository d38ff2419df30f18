//===- unittests/lld-plugin/HostLinkInfoTest.cpp --------------------------===//
//
// What CPU device links take from the host link's arguments.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/HostLinkInfo.h"

#include "gtest/gtest.h"

using namespace offload;

namespace {

TEST(HostLinkInfoTest, BothSpellingsOfLongOptions) {
  std::vector<std::string> Args = {"--dynamic-linker=/lib/ld.so",
                                   "-library-path",
                                   "/a",
                                   "--library-path=/b",
                                   "--library=m",
                                   "-library",
                                   "pthread",
                                   "-rpath",
                                   "/r1",
                                   "--rpath=/r2",
                                   "-whole-archive",
                                   "--no-whole-archive",
                                   "-lc",
                                   "-L/c"};
  HostLinkInfo Info = getHostLinkInfo(LLDCommandLine(Args), LoadedInputs());
  EXPECT_EQ(Info.DynamicLinker, "/lib/ld.so");
  EXPECT_EQ(spell(Info.SearchArgs),
            (std::vector<std::string>{"-L/a", "-L/b", "-L/c"}));
  EXPECT_EQ(spell(Info.Libraries),
            (std::vector<std::string>{"-lm", "-lpthread", "-rpath=/r1",
                                      "-rpath=/r2", "--whole-archive",
                                      "--no-whole-archive", "-lc"}));
}

// As ld.lld reads it: -lto-O2 is the library "to-O2" (ld.lld 22 says
// "unable to find library -lto-O2"; --lto-O2 takes two dashes).
TEST(HostLinkInfoTest, OneDashLtoIsALibrary) {
  HostLinkInfo Info = getHostLinkInfo(
      LLDCommandLine({"-lto-O2", "--lto-O2"}), LoadedInputs());
  EXPECT_EQ(spell(Info.Libraries), std::vector<std::string>{"-lto-O2"});
}

TEST(HostLinkInfoTest, PathsCountOnlyWhenLoaded) {
  // Neither exists nor was loaded: an output or a script's value is no
  // library, whatever its name.
  std::vector<std::string> Args = {"-o", "libout.so", "/no/such/libx.a"};
  HostLinkInfo Info = getHostLinkInfo(LLDCommandLine(Args), LoadedInputs());
  EXPECT_TRUE(Info.Libraries.empty());
}

} // namespace

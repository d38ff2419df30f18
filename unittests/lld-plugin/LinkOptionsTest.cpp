//===- LinkOptionsTest.cpp - Splitting and probing link command lines -----===//

#include "lld-plugin/LinkOptions.h"

#include "unittests/ErrorMatchers.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

LinkCommandLine parse(std::vector<const char *> Args) {
  return takeOrFail(parseLinkCommandLine(Args, "/rt"));
}

// -ofile names the output; LLD's long options that begin with 'o' and may
// be written with one dash do not.
TEST(LinkOptions, JoinedOutputIsNotALongOption) {
  EXPECT_EQ(parse({"a.o", "-oapp"}).Output, "app");
  EXPECT_EQ(parse({"a.o", "-o", "app"}).Output, "app");
  EXPECT_EQ(parse({"a.o", "--output=app"}).Output, "app");
  for (const char *Long :
       {"-omagic", "-oformat=binary", "-opt-remarks-filename=r.yaml",
        "-orphan-handling=warn"})
    EXPECT_EQ(parse({"a.o", Long}).Output, "a.out") << Long;
}

// The probe writes nothing: the output and side outputs are dropped, with
// their values, and LLD's own options stay.
TEST(LinkOptions, ProbeDropsOutputs) {
  std::vector<std::string> Probe =
      probeArguments({"a.o", "-o", "app", "-Map", "m.map", "-oformat=elf",
                      "-omagic", "--why-extract=w.txt", "-lfoo"});
  std::vector<std::string> Want = {"a.o",
                                   "-oformat=elf",
                                   "-omagic",
                                   "-lfoo",
                                   "--unresolved-symbols=ignore-all",
                                   "--noinhibit-exec",
                                   "-o",
                                   "/dev/null"};
  EXPECT_EQ(Probe, Want);
}

// An option whose value is missing at the end (found by fuzz-link-args:
// the loop stepped past the end and read out of bounds).
TEST(LinkOptions, ProbeWithAValueMissingAtTheEnd) {
  for (const char *Last : {"-o", "--output", "-Map", "-y", "--trace-symbol"}) {
    std::vector<std::string> Probe = probeArguments({"a.o", Last});
    ASSERT_FALSE(Probe.empty());
    EXPECT_EQ(Probe.front(), "a.o") << Last;
    EXPECT_EQ(Probe.back(), "/dev/null") << Last;
  }
}

// --offload-resource-usage takes its file joined only: written alone, the
// argument after it is the link's, not a file name.
TEST(LinkOptions, ResourceUsageTakesAJoinedFileOnly) {
  LinkCommandLine Alone = parse({"--offload-resource-usage", "a.o"});
  EXPECT_TRUE(Alone.Offload.PrintResourceUsage);
  EXPECT_TRUE(Alone.Offload.ResourceUsageFile.empty());
  EXPECT_EQ(Alone.LLDArgs, std::vector<std::string>{"a.o"});

  LinkCommandLine ToFile = parse({"-offload-resource-usage=r.json", "a.o"});
  EXPECT_FALSE(ToFile.Offload.PrintResourceUsage);
  EXPECT_EQ(ToFile.Offload.ResourceUsageFile, "r.json");
  EXPECT_EQ(ToFile.LLDArgs, std::vector<std::string>{"a.o"});

  LinkCommandLine Both = parse(
      {"--offload-resource-usage", "--offload-resource-usage=r.json", "a.o"});
  EXPECT_TRUE(Both.Offload.PrintResourceUsage);
  EXPECT_EQ(Both.Offload.ResourceUsageFile, "r.json");

  std::vector<const char *> Empty = {"--offload-resource-usage=", "a.o"};
  EXPECT_NE(errorMessage(parseLinkCommandLine(Empty, "/rt"))
                .find("expected a file name"),
            std::string::npos);
}

TEST(LinkOptions, NamesLibraryInEverySpelling) {
  using Args = std::vector<std::string>;
  for (const Args &A :
       {Args{"-lomptarget"}, Args{"-l", "omptarget"},
        Args{"--library=omptarget"}, Args{"--library", "omptarget"},
        Args{"-l:libomptarget.so"}, Args{"-l:libomptarget.so.22"},
        Args{"/usr/lib/llvm-22/lib/libomptarget.so"}, Args{"libomptarget.a"}})
    EXPECT_TRUE(namesLibrary(A, "omptarget")) << A.front();
  for (const Args &A :
       {Args{"-lomptarget2"}, Args{"-lomp"}, Args{"-l:libomp.so"},
        Args{"/x/libomptarget-nvptx.bc"}, Args{"-o", "x"}, Args{"-l"},
        Args{"-L/libomptarget.so"}, Args{"-lto-O2"}})
    EXPECT_FALSE(namesLibrary(A, "omptarget")) << A.front();
  EXPECT_TRUE(linksOffloadRuntime({"a.o", "-lomptarget"}));
  EXPECT_TRUE(namesLibrary({"-lgomp"}, "gomp"));
  EXPECT_TRUE(
      namesLibrary({"/usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so"}, "gomp"));
  EXPECT_FALSE(namesLibrary({"-lgomp"}, "omp"));
}

} // namespace

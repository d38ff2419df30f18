//===- LinkOptionsTest.cpp - Splitting and probing link command lines -----===//

#include "lld-plugin/LinkOptions.h"

#include "unittests/ErrorMatchers.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

LinkCommandLine parse(std::vector<const char *> Args) {
  return takeOrFail(parseLinkCommandLine(Args, "/rt"));
}

std::string parseError(std::vector<const char *> Args) {
  return errorMessage(parseLinkCommandLine(Args, "/rt"));
}

using Strings = std::vector<std::string>;

// A value is taken joined or as the next argument, after one dash or two.
TEST(LinkOptions, ValueJoinedOrNext) {
  for (std::vector<const char *> Args :
       {std::vector<const char *>{"--offload-jobs=3", "a.o"},
        {"--offload-jobs", "3", "a.o"},
        {"-offload-jobs=3", "a.o"},
        {"-offload-jobs", "3", "a.o"}}) {
    LinkCommandLine CL = parse(Args);
    EXPECT_EQ(CL.Offload.Jobs, 3u) << Args.front();
    EXPECT_EQ(CL.LLD.args(), Strings{"a.o"}) << Args.front();
  }
  // The next argument is the value even when it looks like an option.
  LinkCommandLine CL =
      parse({"--offload-device-linker-arg", "-znow", "-offload-device-lib",
             "amdgcn-amd-amdhsa=ocml.bc", "a.o"});
  ASSERT_EQ(CL.Offload.DeviceLinkerArgs.size(), 1u);
  EXPECT_EQ(CL.Offload.DeviceLinkerArgs[0],
            std::make_pair(std::string(), std::string("-znow")));
  ASSERT_EQ(CL.Offload.DeviceLibs.size(), 1u);
  EXPECT_EQ(
      CL.Offload.DeviceLibs[0],
      std::make_pair(std::string("amdgcn-amd-amdhsa"), std::string("ocml.bc")));
  EXPECT_EQ(CL.LLD.args(), Strings{"a.o"});
}

// Ours are taken out before LLD sees them: -offload-verbose is not
// "-o ffload-verbose", and -no-offload is --no-offload.
TEST(LinkOptions, OneDashIsOurs) {
  LinkCommandLine CL = parse({"a.o", "-offload-verbose", "-no-offload"});
  EXPECT_TRUE(CL.Offload.Verbose);
  EXPECT_TRUE(CL.Offload.Disabled);
  EXPECT_EQ(CL.Output, "a.out");
  EXPECT_EQ(CL.LLD.args(), Strings{"a.o"});
}

// Everything else reaches LLD as written and in order (--reproduce records
// it), the value of -o included.
TEST(LinkOptions, LLDArgumentsUnchanged) {
  LinkCommandLine CL =
      parse({"--reproduce", "r.tar", "a.o", "--offload-verbose", "-L", "dir",
             "--offload-jobs", "2", "-o", "-offload-save-temps", "-omagic", "-",
             "/abs/b.o", "--", "-lfoo", "--offload-cache-dir=c", "-z", "now"});
  Strings Want = {"--reproduce",
                  "r.tar",
                  "a.o",
                  "-L",
                  "dir",
                  "-o",
                  "-offload-save-temps",
                  "-omagic",
                  "-",
                  "/abs/b.o",
                  "--",
                  "-lfoo",
                  "-z",
                  "now"};
  EXPECT_EQ(CL.LLD.args(), Want);
  // The last -o wins, and -omagic is -o magic (ld.lld writes "magic").
  EXPECT_EQ(CL.Output, "magic");
  EXPECT_FALSE(CL.Offload.SaveTemps);
  EXPECT_TRUE(CL.Offload.Verbose);
  EXPECT_EQ(CL.Offload.Jobs, 2u);
  EXPECT_EQ(CL.Offload.CacheDir, "c");
}

// --offload-compress takes its level joined only, like
// --offload-resource-usage its file (below).
TEST(LinkOptions, CompressLevelJoinedOnly) {
  LinkCommandLine Alone = parse({"--offload-compress", "5"});
  EXPECT_TRUE(Alone.Offload.Compress);
  EXPECT_EQ(Alone.Offload.CompressionLevel, 3);
  EXPECT_EQ(Alone.LLD.args(), Strings{"5"});
  LinkCommandLine Joined =
      parse({"-offload-compress=5", "--offload-compress-version", "2"});
  EXPECT_TRUE(Joined.Offload.Compress);
  EXPECT_EQ(Joined.Offload.CompressionLevel, 5);
  EXPECT_EQ(Joined.Offload.CompressionVersion, 2);
  EXPECT_TRUE(Joined.LLD.args().empty());
}

// Response files are expanded first: what they hold is split the same way.
TEST(LinkOptions, ResponseFileExpandedFirst) {
  SmallString<128> Path;
  ASSERT_FALSE(sys::fs::createTemporaryFile("link-options", "rsp", Path));
  FileRemover Remove(Path);
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << "--offload-jobs 2 'a b.o' -offload-extract=gfx90a";
  }
  std::string At = ("@" + Path).str();
  LinkCommandLine CL = parse({At.c_str(), "c.o"});
  EXPECT_EQ(CL.Offload.Jobs, 2u);
  EXPECT_EQ(CL.Offload.ExtractArchs, Strings{"gfx90a"});
  EXPECT_EQ(CL.LLD.args(), (Strings{"a b.o", "c.o"}));
}

// What is wrong with one of ours is an error, in these words.
TEST(LinkOptions, Errors) {
  EXPECT_EQ(parseError({"a.o", "--offload-jobs"}),
            "--offload-jobs needs a value: --offload-jobs=<value>");
  EXPECT_EQ(parseError({"a.o", "-offload-cuda-path"}),
            "--offload-cuda-path needs a value: --offload-cuda-path=<value>");
  EXPECT_EQ(parseError({"--offload-job=2"}),
            "unknown option '--offload-job=2'; did you mean '--offload-jobs'?");
  EXPECT_EQ(parseError({"-offload-dryrun"}),
            "unknown option '-offload-dryrun'; did you mean "
            "'--offload-dry-run'?");
  EXPECT_EQ(parseError({"--offload-verbose=1"}),
            "unknown option '--offload-verbose=1'; did you mean "
            "'--offload-verbose'?");
  EXPECT_EQ(parseError({"--offload-bogus"}),
            "unknown option '--offload-bogus'");
  EXPECT_EQ(parseError({"--offload-jobs=0"}),
            "--offload-jobs: expected a positive number or 'jobserver', got "
            "'0'");
  EXPECT_EQ(parseError({"-offload-relocatable", "thin"}),
            "--offload-relocatable: expected 'fat' or 'link', got 'thin'");
  EXPECT_EQ(parseError({"--offload-compress=fast"}),
            "--offload-compress: expected a compression level, got 'fast'");
  EXPECT_EQ(parseError({"--offload-compress-version=4"}),
            "--offload-compress-version: expected 2 or 3, got '4'");
  EXPECT_EQ(parseError({"--offload-large-fatbin-threshold=1G"}),
            "--offload-large-fatbin-threshold: expected a size in bytes, got "
            "'1G'");
  EXPECT_EQ(parseError({"--offload-cache-policy", "prune_after=x"})
                .rfind("--offload-cache-policy: ", 0),
            0u);
}

// --help lists our options by name, each with the syntax of its value.
TEST(LinkOptions, HelpListsTheTable) {
  std::string Help;
  raw_string_ostream OS(Help);
  printInfo(OS, "", /*Help=*/true);
  for (const char *Line :
       {"  --no-offload  ", "  --offload-jobs=<n>|jobserver  ",
        "  --offload-compress[=<level>]  ",
        "  --offload-compress-version=2|3  "})
    EXPECT_NE(Help.find(Line), std::string::npos) << Line;
  // Neither the spellings that take the value as the next argument nor the
  // catch-all for misspelled options.
  EXPECT_EQ(Help.find("--offload-jobs "), std::string::npos);
  EXPECT_EQ(Help.find("--offload- "), std::string::npos);
}

// Each option --help lists is handled, in each form: it gives no error, or
// one about its value.
TEST(LinkOptions, EveryListedOptionIsHandled) {
  std::string Help;
  raw_string_ostream OS(Help);
  printInfo(OS, "", /*Help=*/true);
  StringRef Options = StringRef(Help).split("OFFLOAD OPTIONS").second;
  Options = Options.split("\n\n").first;
  SmallVector<StringRef, 32> Lines;
  Options.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  ASSERT_GT(Lines.size(), 10u);
  for (StringRef Line : drop_begin(Lines)) {
    // --offload-jobs=<n>|jobserver: --offload-jobs=1;
    // --offload-compress[=<level>]: --offload-compress and
    // --offload-compress=1; --no-offload: --no-offload.
    StringRef Spelling = Line.trim().split(' ').first;
    auto [Name, Value] = Spelling.split('=');
    bool Optional = Name.consume_back("[");
    std::vector<std::string> Forms;
    if (Value.empty() || Optional)
      Forms.push_back(Name.str());
    if (!Value.empty())
      Forms.push_back((Name + "=1").str());
    for (const std::string &Form : Forms) {
      std::vector<const char *> Args = {Form.c_str()};
      Expected<LinkCommandLine> CL = parseLinkCommandLine(Args, "/rt");
      if (CL)
        continue;
      std::string Error = toString(CL.takeError());
      EXPECT_EQ(Error.rfind((Name + ": ").str(), 0), 0u) << Error;
      EXPECT_EQ(Error.find("does not handle"), std::string::npos) << Error;
    }
  }
}

// The output as ld.lld reads it, with its option table: -ofile names it,
// and so do -omagic and -oformat=binary (ld.lld 22 writes "magic" and
// "format=binary": --omagic and --oformat take two dashes), while
// -orphan-handling=warn is an option.
TEST(LinkOptions, OutputAsLLDReadsIt) {
  EXPECT_EQ(parse({"a.o", "-oapp"}).Output, "app");
  EXPECT_EQ(parse({"a.o", "-o", "app"}).Output, "app");
  EXPECT_EQ(parse({"a.o", "--output=app"}).Output, "app");
  EXPECT_EQ(parse({"a.o", "--output", "app"}).Output, "app");
  EXPECT_EQ(parse({"a.o", "-omagic"}).Output, "magic");
  EXPECT_EQ(parse({"a.o", "-oformat=binary"}).Output, "format=binary");
  for (const char *Long : {"-orphan-handling=warn", "--omagic",
                           "--oformat=binary", "-o"})
    EXPECT_EQ(parse({"a.o", Long}).Output, "a.out") << Long;
}

// The probe writes nothing: the output and side outputs are dropped, with
// their values, and LLD's own options stay.
TEST(LinkOptions, ProbeDropsOutputs) {
  std::vector<std::string> Probe =
      LLDCommandLine(Strings{"a.o", "-o", "app", "-Map", "m.map",
                             "--oformat=elf", "-omagic", "--why-extract=w.txt",
                             "-lfoo", "-t", "-y", "main", "--time-trace=t.json"})
          .probeArguments();
  std::vector<std::string> Want = {"a.o",
                                   "--oformat=elf",
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
    std::vector<std::string> Probe =
        LLDCommandLine(Strings{"a.o", Last}).probeArguments();
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
  EXPECT_EQ(Alone.LLD.args(), std::vector<std::string>{"a.o"});

  LinkCommandLine ToFile = parse({"-offload-resource-usage=r.json", "a.o"});
  EXPECT_FALSE(ToFile.Offload.PrintResourceUsage);
  EXPECT_EQ(ToFile.Offload.ResourceUsageFile, "r.json");
  EXPECT_EQ(ToFile.LLD.args(), std::vector<std::string>{"a.o"});

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
    EXPECT_TRUE(LLDCommandLine(A).namesLibrary("omptarget")) << A.front();
  for (const Args &A :
       {Args{"-lomptarget2"}, Args{"-lomp"}, Args{"-l:libomp.so"},
        Args{"/x/libomptarget-nvptx.bc"}, Args{"-o", "x"}, Args{"-l"},
        Args{"-L/libomptarget.so"}, Args{"-lto-O2"}})
    EXPECT_FALSE(LLDCommandLine(A).namesLibrary("omptarget")) << A.front();
  EXPECT_TRUE(
      linksOffloadRuntime(LLDCommandLine(Strings{"a.o", "-lomptarget"})));
  EXPECT_TRUE(LLDCommandLine(Strings{"-lgomp"}).namesLibrary("gomp"));
  EXPECT_TRUE(
      LLDCommandLine(Strings{"/usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so"})
          .namesLibrary("gomp"));
  EXPECT_FALSE(LLDCommandLine(Strings{"-lgomp"}).namesLibrary("omp"));
}

// What the link asks of LLD's options, each from LLD's reading.
TEST(LLDCommandLine, TimeTraceAndVersionTakenOut) {
  LLDCommandLine LLD(Strings{"a.o", "--time-trace", "-o", "x",
                             "--time-trace-granularity=50", "-v", "-V"});
  TimeTraceRequest T = LLD.timeTrace();
  EXPECT_TRUE(T.Enabled);
  EXPECT_EQ(T.File, "");
  EXPECT_EQ(T.Granularity, 50u);
  EXPECT_TRUE(LLD.printsVersion());
  EXPECT_EQ(LLD.withoutTimeTrace().withoutVersion().args(),
            (Strings{"a.o", "-o", "x"}));
  EXPECT_EQ(LLDCommandLine(Strings{"--time-trace=t.json"}).timeTrace().File,
            "t.json");
  // LLD 11-16's spelling, which LLD 22 does not know.
  LLDCommandLine Old(Strings{"--time-trace", "--time-trace-file=o.json"});
  EXPECT_EQ(Old.timeTrace().File, "o.json");
  EXPECT_TRUE(Old.withoutTimeTrace().args().empty());
  EXPECT_FALSE(LLDCommandLine(Strings{"a.o"}).timeTrace().Enabled);
}

TEST(LLDCommandLine, KindOfLink) {
  EXPECT_TRUE(LLDCommandLine(Strings{"-r"}).relocatable());
  EXPECT_TRUE(LLDCommandLine(Strings{"--relocatable"}).relocatable());
  EXPECT_TRUE(LLDCommandLine(Strings{"-Bshareable"}).shared());
  EXPECT_TRUE(LLDCommandLine(Strings{"-shared"}).shared());
  EXPECT_TRUE(LLDCommandLine(Strings{"--help"}).printsHelp());
  EXPECT_TRUE(LLDCommandLine(Strings{"--version"}).printsVersionOnly());
  EXPECT_FALSE(LLDCommandLine(Strings{"-v"}).printsVersionOnly());
  // "-rpath" is not -r, "-o -r" names an output.
  EXPECT_FALSE(LLDCommandLine(Strings{"-rpath", "/x"}).relocatable());
  EXPECT_FALSE(LLDCommandLine(Strings{"-o", "-r"}).relocatable());
  EXPECT_TRUE(LLDCommandLine(Strings{"-t"}).asksForTrace());
  EXPECT_FALSE(LLDCommandLine(Strings{"-trace-symbol=x"}).asksForTrace());
}

} // namespace

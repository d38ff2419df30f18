//===- DeviceArchiveTest.cpp - Heterogeneous device archives --------------===//
//
// unbundleArchive() over archives of object bundles, binary bundles,
// compressed bundles and members without device code, for a matrix of
// requested targets; member names, contents, missing bundles, the
// -check-input-archive rule and malformed inputs (which must leave the
// outputs untouched).
//
//===----------------------------------------------------------------------===//

#include "format/DeviceArchive.h"

#include "format/CompressedBundle.h"
#include "format/ObjectBundle.h"
#include "format/OffloadBundle.h"

#include "ELFTestObjects.h"
#include "unittests/ErrorMatchers.h"

#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <string>

using namespace llvm;
using namespace offload;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Pair;

namespace {

constexpr StringLiteral Host = "host-x86_64-unknown-linux-gnu-";

/// An x86-64 object without bundles, defining the function hostfn.
std::string hostObject() {
  return testutil::makeX86ELF((Twine(testutil::RetTextSectionYaml) +
                               "Symbols:\n"
                               "  - Name: hostfn\n"
                               "    Type: STT_FUNC\n"
                               "    Section: .text\n"
                               "    Binding: STB_GLOBAL\n")
                                  .str());
}

std::string str(const SmallVector<char, 0> &V) {
  return std::string(V.data(), V.size());
}

std::string objectBundle(ArrayRef<BundleEntryToWrite> Entries) {
  std::string H = hostObject();
  return str(
      takeOrFail(writeObjectBundle(MemoryBufferRef(H, "h.o"), Host, Entries)));
}

std::string binaryBundle(ArrayRef<BundleEntryToWrite> Entries) {
  std::string Out;
  raw_string_ostream OS(Out);
  writeBinaryBundle(OS, Entries, /*Alignment=*/1);
  return Out;
}

std::string compressedBundle(ArrayRef<BundleEntryToWrite> Entries) {
  return str(takeOrFail(compressBundle(binaryBundle(Entries), {})));
}

struct Member {
  std::string Name;
  std::string Data;
};

std::string archive(ArrayRef<Member> Members) {
  std::vector<NewArchiveMember> New;
  for (const Member &M : Members) {
    New.emplace_back(MemoryBufferRef(M.Data, M.Name));
    New.back().MemberName = M.Name;
  }
  std::unique_ptr<MemoryBuffer> Buf = takeOrFail(writeArchiveToBuffer(
      New, SymtabWritingMode::NormalSymtab, object::Archive::K_GNU,
      /*Deterministic=*/true, /*Thin=*/false));
  return Buf ? Buf->getBuffer().str() : "";
}

/// A temporary directory, removed with its files at the end of the test.
class DeviceArchive : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("device-archive", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return std::string(P);
  }

  std::string write(StringRef Name, StringRef Data) {
    std::string P = path(Name);
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    EXPECT_FALSE(EC);
    OS << Data;
    return P;
  }

  /// The members of the archive at \p Path: (name, contents).
  std::vector<std::pair<std::string, std::string>> members(StringRef Path) {
    std::vector<std::pair<std::string, std::string>> Result;
    auto Buf = MemoryBuffer::getFile(Path);
    if (!Buf) {
      ADD_FAILURE() << Path.str() << ": " << Buf.getError().message();
      return Result;
    }
    auto Lib = object::Archive::create((*Buf)->getMemBufferRef());
    if (!Lib) {
      ADD_FAILURE() << toString(Lib.takeError());
      return Result;
    }
    Error Err = Error::success();
    for (const object::Archive::Child &C : (*Lib)->children(Err))
      Result.emplace_back(takeOrFail(C.getName()).str(),
                          takeOrFail(C.getBuffer()).str());
    EXPECT_TRUE(succeeded(std::move(Err)));
    return Result;
  }

  std::vector<std::string> memberNames(StringRef Path) {
    std::vector<std::string> Names;
    for (auto &[Name, Data] : members(Path))
      Names.push_back(Name);
    return Names;
  }

  /// The test library:
  ///   a.o      object bundle: host, hipv4 gfx90a, hipv4 gfx942
  ///   b.o      object bundle: host, hipv4 gfx90a:xnack+, gfx90a:xnack-
  ///   c.bc     binary bundle: host, hip gfx90a:sramecc+:xnack-,
  ///            openmp gfx90a
  ///   d.co     compressed binary bundle: openmp sm_70, openmp sm_80
  ///   plain.o  an object without bundles
  ///   notes.txt a text file
  std::string makeLibrary() {
    std::string A =
        objectBundle({{Host.str(), ""},
                      {"hipv4-amdgcn-amd-amdhsa--gfx90a", "A-90A"},
                      {"hipv4-amdgcn-amd-amdhsa--gfx942", "A-942"}});
    AHost = str(takeOrFail(getHostObject(MemoryBufferRef(A, "a.o"))));
    return write(
        "lib.a",
        archive(
            {{"a.o", A},
             {"b.o",
              objectBundle(
                  {{Host.str(), ""},
                   {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "B-XNACK+"},
                   {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "B-XNACK-"}})},
             {"c.bc",
              binaryBundle({{Host.str(), "C-HOST"},
                            {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
                             "C-SRAMECC+XNACK-"},
                            {"openmp-amdgcn-amd-amdhsa--gfx90a", "C-OMP"}})},
             {"d.co",
              compressedBundle(
                  {{"openmp-nvptx64-nvidia-cuda-unknown-sm_70", "D-SM70"},
                   {"openmp-nvptx64-nvidia-cuda-unknown-sm_80", "D-SM80"}})},
             {"plain.o", hostObject()},
             {"notes.txt", "just text\n"}}));
  }

  Error unbundle(StringRef Lib, ArrayRef<std::string> Targets,
                 ArrayRef<std::string> Outputs, bool AllowMissing = false,
                 bool HipOpenMP = false, bool Check = false) {
    ArchiveUnbundleRequest R;
    R.Input = Lib.str();
    R.Targets = Targets.vec();
    R.Outputs = Outputs.vec();
    R.AllowMissingBundles = AllowMissing;
    R.HipOpenMPCompatible = HipOpenMP;
    R.CheckInputArchive = Check;
    return unbundleArchive(R);
  }

  SmallString<128> Dir;
  std::string AHost;
};

struct MatrixCase {
  const char *Target;
  bool HipOpenMP;
  std::vector<const char *> Expected;
};

// Which members each requested target ID gets, with the names
// clang-offload-bundler 22 gives them: <stem>-<stored entry ID><stem><ext>,
// ':' made '_', ext .bc for gfx target IDs, .cubin for sm_ ones and the
// member's own otherwise. (Checked against clang-offload-bundler 22.)
TEST_F(DeviceArchive, TargetMatrix) {
  std::string Lib = makeLibrary();
  const MatrixCase Cases[] = {
      {"hip-amdgcn-amd-amdhsa--gfx90a",
       false,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc"}},
      {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
       false,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
        "b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+b.bc"}},
      {"hip-amdgcn-amd-amdhsa--gfx90a:xnack-",
       false,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
        "b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack-b.bc"}},
      {"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
       false,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
        "b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack-b.bc",
        "c-hip-amdgcn-amd-amdhsa--gfx90a_sramecc+_xnack-c.bc"}},
      // Features in another order name the same configuration.
      {"hip-amdgcn-amd-amdhsa--gfx90a:xnack-:sramecc+",
       false,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
        "b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack-b.bc",
        "c-hip-amdgcn-amd-amdhsa--gfx90a_sramecc+_xnack-c.bc"}},
      {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack-",
       false,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
        "b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack-b.bc"}},
      {"hipv4-amdgcn-amd-amdhsa--gfx942",
       false,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx942a.bc"}},
      {"hip-amdgcn-amd-amdhsa--gfx942:xnack+",
       false,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx942a.bc"}},
      {"openmp-amdgcn-amd-amdhsa--gfx90a",
       false,
       {"c-openmp-amdgcn-amd-amdhsa--gfx90ac.bc"}},
      {"openmp-amdgcn-amd-amdhsa--gfx90a:xnack+",
       false,
       {"c-openmp-amdgcn-amd-amdhsa--gfx90ac.bc"}},
      // -hip-openmp-compatible: hip code objects serve openmp and back.
      {"openmp-amdgcn-amd-amdhsa--gfx90a:xnack+",
       true,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
        "b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+b.bc",
        "c-openmp-amdgcn-amd-amdhsa--gfx90ac.bc"}},
      {"hip-amdgcn-amd-amdhsa--gfx90a",
       true,
       {"a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
        "c-openmp-amdgcn-amd-amdhsa--gfx90ac.bc"}},
      {"openmp-nvptx64-nvidia-cuda--sm_70",
       false,
       {"d-openmp-nvptx64-nvidia-cuda-unknown-sm_70d.cubin"}},
      {"openmp-nvptx64-nvidia-cuda-unknown-sm_80",
       false,
       {"d-openmp-nvptx64-nvidia-cuda-unknown-sm_80d.cubin"}},
      {"host-x86_64-unknown-linux-gnu",
       false,
       {"a-host-x86_64-unknown-linux-gnu-a.o",
        "b-host-x86_64-unknown-linux-gnu-b.o",
        "c-host-x86_64-unknown-linux-gnu-c.bc"}},
  };
  for (const MatrixCase &C : Cases) {
    SCOPED_TRACE(std::string(C.Target) + (C.HipOpenMP ? " hip-openmp" : ""));
    std::string Out = path("out.a");
    sys::fs::remove(Out);
    ASSERT_TRUE(
        succeeded(unbundle(Lib, {C.Target}, {Out}, false, C.HipOpenMP)));
    EXPECT_THAT(memberNames(Out), ElementsAreArray(C.Expected));
  }
}

// The members hold the code objects; the host entry of an object bundle is
// the host object without its bundle sections.
TEST_F(DeviceArchive, MemberContents) {
  std::string Lib = makeLibrary();
  std::string Out = path("out.a");
  ASSERT_TRUE(succeeded(unbundle(
      Lib, {"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"}, {Out})));
  EXPECT_THAT(
      members(Out),
      ElementsAre(
          Pair("a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc", "A-90A"),
          Pair("b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack-b.bc", "B-XNACK-"),
          Pair("c-hip-amdgcn-amd-amdhsa--gfx90a_sramecc+_xnack-c.bc",
               "C-SRAMECC+XNACK-")));

  ASSERT_TRUE(
      succeeded(unbundle(Lib, {"openmp-nvptx64-nvidia-cuda--sm_80"}, {Out})));
  EXPECT_THAT(
      members(Out),
      ElementsAre(
          Pair("d-openmp-nvptx64-nvidia-cuda-unknown-sm_80d.cubin", "D-SM80")));

  ASSERT_TRUE(
      succeeded(unbundle(Lib, {"host-x86_64-unknown-linux-gnu"}, {Out})));
  auto Host = members(Out);
  ASSERT_EQ(Host.size(), 3u);
  EXPECT_EQ(Host[0].second, AHost);
  EXPECT_FALSE(takeOrFail(
      hasBundleSections(MemoryBufferRef(Host[1].second, "b-host.o"))));
  EXPECT_EQ(Host[2].second, "C-HOST");
}

// Several targets at once, each to its own archive; a code object that
// serves two requested targets goes to both.
TEST_F(DeviceArchive, SeveralTargets) {
  std::string Lib = makeLibrary();
  std::string O1 = path("o1.a"), O2 = path("o2.a"), O3 = path("o3.a");
  ASSERT_TRUE(succeeded(unbundle(Lib,
                                 {"hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                                  "openmp-nvptx64-nvidia-cuda--sm_70",
                                  "hip-amdgcn-amd-amdhsa--gfx90a:xnack-"},
                                 {O1, O2, O3})));
  EXPECT_THAT(memberNames(O1),
              ElementsAre("a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
                          "b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+b.bc"));
  EXPECT_THAT(memberNames(O2),
              ElementsAre("d-openmp-nvptx64-nvidia-cuda-unknown-sm_70d.cubin"));
  EXPECT_THAT(memberNames(O3),
              ElementsAre("a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc",
                          "b-hipv4-amdgcn-amd-amdhsa--gfx90a_xnack-b.bc"));
}

// No compatible code object: clang-offload-bundler's error, naming the
// normalized target and the archive as given; nothing is written (not even
// the archives of the targets that were found). With -allow-missing-bundles
// an empty archive.
TEST_F(DeviceArchive, MissingBundles) {
  std::string Lib = makeLibrary();
  std::string O1 = path("o1.a"), O2 = path("o2.a");
  std::string Msg = errorMessage(unbundle(
      Lib,
      {"hip-amdgcn-amd-amdhsa--gfx90a", "openmp-nvptx64-nvidia-cuda--sm_90"},
      {O1, O2}));
  EXPECT_EQ(Msg, "no compatible code object found for the target "
                 "'openmp-nvptx64-nvidia-cuda-unknown-sm_90' in heterogeneous "
                 "archive library: " +
                     Lib);
  EXPECT_FALSE(sys::fs::exists(O1));
  EXPECT_FALSE(sys::fs::exists(O2));

  for (const char *T :
       {"hip-amdgcn-amd-amdhsa--gfx1030", "hip-amdgcn-amd-amdhsa--gfx90c",
        "openmp-nvptx64-nvidia-cuda--sm_90", "openmp-x86_64-pc-linux-gnu"})
    EXPECT_THAT(errorMessage(unbundle(Lib, {T}, {O1})),
                HasSubstr("no compatible code object found"))
        << T;

  ASSERT_TRUE(succeeded(unbundle(
      Lib,
      {"hip-amdgcn-amd-amdhsa--gfx90a", "openmp-nvptx64-nvidia-cuda--sm_90"},
      {O1, O2}, /*AllowMissing=*/true)));
  EXPECT_THAT(memberNames(O1),
              ElementsAre("a-hipv4-amdgcn-amd-amdhsa--gfx90aa.bc"));
  auto Empty = MemoryBuffer::getFile(O2);
  ASSERT_TRUE(bool(Empty));
  EXPECT_EQ((*Empty)->getBuffer(), "!<arch>\n");
}

// An archive with no bundles at all, and an empty archive.
TEST_F(DeviceArchive, NoBundlesAtAll) {
  std::string Lib = write("plain.a", archive({{"plain.o", hostObject()}}));
  std::string Out = path("out.a");
  EXPECT_THAT(
      errorMessage(unbundle(Lib, {"hip-amdgcn-amd-amdhsa--gfx90a"}, {Out})),
      HasSubstr("no compatible code object found"));
  std::string EmptyLib = write("empty.a", "!<arch>\n");
  ASSERT_TRUE(succeeded(unbundle(EmptyLib, {"hip-amdgcn-amd-amdhsa--gfx90a"},
                                 {Out}, /*AllowMissing=*/true)));
  EXPECT_TRUE(memberNames(Out).empty());
}

// -check-input-archive: within a member, a processor whose later (sorted)
// entry IDs name a feature its first one did not is refused.
TEST_F(DeviceArchive, CheckInputArchive) {
  std::string Conflict =
      objectBundle({{Host.str(), ""},
                    {"hip-amdgcn-amd-amdhsa--gfx90a", "ANY"},
                    {"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "XNACK+"}});
  std::string Lib = write("conf.a", archive({{"conf.o", Conflict}}));
  std::string Out = path("out.a");
  std::vector<std::string> T = {"hip-amdgcn-amd-amdhsa--gfx90a:xnack+"};
  EXPECT_EQ(errorMessage(unbundle(Lib, T, {Out}, false, false, true)),
            "conflicting TargetIDs [hip-amdgcn-amd-amdhsa--gfx90a, "
            "hip-amdgcn-amd-amdhsa--gfx90a:xnack+] found in conf.o of " +
                Lib);
  EXPECT_FALSE(sys::fs::exists(Out));
  // Without the check both entries serve the request.
  ASSERT_TRUE(succeeded(unbundle(Lib, T, {Out})));
  EXPECT_EQ(memberNames(Out).size(), 2u);

  // Different features for one processor conflict too...
  std::string Conflict2 =
      binaryBundle({{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "X"},
                    {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc+", "S"}});
  std::string Lib2 = write("conf2.a", archive({{"conf2.bc", Conflict2}}));
  EXPECT_THAT(errorMessage(unbundle(Lib2, T, {Out}, false, false, true)),
              HasSubstr("conflicting TargetIDs "
                        "[hip-amdgcn-amd-amdhsa--gfx90a:sramecc+, "
                        "hip-amdgcn-amd-amdhsa--gfx90a:xnack+] found in "
                        "conf2.bc"));
  // ...but, as in clang-offload-bundler, only features missing from the
  // first ID count: sramecc+:xnack- then xnack+ passes.
  std::string Fine =
      binaryBundle({{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "X"},
                    {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "S"}});
  std::string Lib3 = write("fine.a", archive({{"fine.bc", Fine}}));
  EXPECT_TRUE(succeeded(unbundle(Lib3, T, {Out}, false, false, true)));
  // Different processors and members never conflict.
  std::string Lib4 = write(
      "sep.a",
      archive({{"x.bc",
                binaryBundle({{"hip-amdgcn-amd-amdhsa--gfx90a", "1"},
                              {"hip-amdgcn-amd-amdhsa--gfx942:xnack+", "2"}})},
               {"y.bc", binaryBundle({{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                                       "3"}})}}));
  EXPECT_TRUE(succeeded(unbundle(Lib4, T, {Out}, false, false, true)));
}

// Malformed inputs are errors naming the archive and member; an existing
// output is left as it was.
TEST_F(DeviceArchive, MalformedInputs) {
  std::string Out = write("out.a", "PREVIOUS");
  std::vector<std::string> T = {"hip-amdgcn-amd-amdhsa--gfx90a"};
  std::string Good = binaryBundle({{"hip-amdgcn-amd-amdhsa--gfx90a", "GOOD"}});

  // A binary bundle whose entry runs past its end.
  std::string BadBinary = Good;
  BadBinary.resize(BadBinary.size() - 2);
  std::string Lib1 =
      write("bad1.a", archive({{"good.bc", Good}, {"bad.bc", BadBinary}}));
  EXPECT_THAT(errorMessage(unbundle(Lib1, T, {Out})), HasSubstr("bad.bc"));

  // A binary bundle with a malformed entry ID.
  std::string Lib2 =
      write("bad2.a", archive({{"good.bc", Good},
                               {"id.bc", binaryBundle({{"garbage", "X"}})}}));
  std::string Msg2 = errorMessage(unbundle(Lib2, T, {Out}));
  EXPECT_THAT(Msg2, HasSubstr("id.bc"));
  EXPECT_THAT(Msg2, HasSubstr("garbage"));

  // An object bundle with a malformed entry ID.
  std::string BadObj = objectBundle({{"garbage", "X"}});
  std::string Lib3 =
      write("bad3.a", archive({{"good.bc", Good}, {"bad.o", BadObj}}));
  std::string Msg3 = errorMessage(unbundle(Lib3, T, {Out}));
  EXPECT_THAT(Msg3, HasSubstr("bad3.a(bad.o)"));
  EXPECT_THAT(Msg3, HasSubstr("garbage"));

  // A truncated object.
  std::string Obj = objectBundle({{"hip-amdgcn-amd-amdhsa--gfx90a", "X"}});
  std::vector<NewArchiveMember> New;
  std::string Cut = Obj.substr(0, Obj.size() / 2);
  New.emplace_back(MemoryBufferRef(Good, "good.bc"));
  New.emplace_back(MemoryBufferRef(Cut, "cut.o"));
  auto Buf = takeOrFail(writeArchiveToBuffer(
      New, SymtabWritingMode::NoSymtab, object::Archive::K_GNU, true, false));
  ASSERT_TRUE(Buf);
  std::string Lib4 = write("bad4.a", Buf->getBuffer());
  EXPECT_THAT(errorMessage(unbundle(Lib4, T, {Out})), HasSubstr("cut.o"));

  // A corrupt compressed bundle.
  std::string CCOB = compressedBundle({{"hip-amdgcn-amd-amdhsa--gfx90a", "X"}});
  CCOB.resize(CCOB.size() - 3);
  std::string Lib5 = write("bad5.a", archive({{"c.co", CCOB}}));
  EXPECT_THAT(errorMessage(unbundle(Lib5, T, {Out})),
              HasSubstr("Failed to decompress code object"));

  // Not an archive; no archive at all.
  std::string NotLib = write("notlib.a", "hello");
  EXPECT_THAT(errorMessage(unbundle(NotLib, T, {Out})), HasSubstr("notlib.a"));
  EXPECT_THAT(errorMessage(unbundle(path("missing.a"), T, {Out})),
              HasSubstr("missing.a"));

  auto Kept = MemoryBuffer::getFile(Out);
  ASSERT_TRUE(bool(Kept));
  EXPECT_EQ((*Kept)->getBuffer(), "PREVIOUS");
}

// The output is deterministic and overwrites an existing file.
TEST_F(DeviceArchive, Deterministic) {
  std::string Lib = makeLibrary();
  std::string O1 = path("o1.a"), O2 = write("o2.a", "OLD");
  std::vector<std::string> T = {"hip-amdgcn-amd-amdhsa--gfx90a:xnack+"};
  ASSERT_TRUE(succeeded(unbundle(Lib, T, {O1})));
  ASSERT_TRUE(succeeded(unbundle(Lib, T, {O2})));
  auto B1 = MemoryBuffer::getFile(O1), B2 = MemoryBuffer::getFile(O2);
  ASSERT_TRUE(B1 && B2);
  EXPECT_EQ((*B1)->getBuffer(), (*B2)->getBuffer());
}

TEST_F(DeviceArchive, MismatchedOutputs) {
  std::string Lib = makeLibrary();
  EXPECT_THAT(
      errorMessage(unbundle(Lib, {"hip-amdgcn-amd-amdhsa--gfx90a"}, {})),
      HasSubstr("do not match"));
}

} // namespace

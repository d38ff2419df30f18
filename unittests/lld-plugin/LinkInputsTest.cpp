//===- unittests/lld-plugin/LinkInputsTest.cpp ----------------------------===//
//
// Telling what a link loads from its command line and its inputs' section
// tables, and which static archives a CPU device link may leave out.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/DeviceLinkLibraries.h"
#include "lld-plugin/HostLinkInfo.h"
#include "unittests/format/ELFTestObjects.h"

#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;
using offload::testutil::makeX86ELF;
using offload::testutil::yamlToObject;

namespace {

/// LinkInputs::find() of \p Args, read as LLD reads them.
LinkInputs findIn(std::vector<std::string> Args,
                  LinkInputs::Reading Archives = LinkInputs::Reading::Now) {
  return LinkInputs::find(LLDCommandLine(std::move(Args)), Archives);
}

/// A relocatable object with one section of this name, type and flags.
std::string objectWithSection(StringRef Name, StringRef Type = "SHT_PROGBITS",
                              StringRef Flags = "[ ]") {
  return makeX86ELF(("  - Name: " + Name + "\n    Type: " + Type +
                     "\n    Flags: " + Flags + "\n    Content: \"00\"\n")
                        .str());
}

/// YAML symbols: \p Defined in .text, \p Undefined referred to.
std::string symbolsYaml(ArrayRef<StringRef> Defined,
                        ArrayRef<StringRef> Undefined) {
  std::string Yaml;
  for (StringRef Name : Defined)
    Yaml += ("  - Name: " + Name + "\n    Section: .text\n" +
             "    Binding: STB_GLOBAL\n")
                .str();
  for (StringRef Name : Undefined)
    Yaml += ("  - Name: " + Name + "\n    Binding: STB_GLOBAL\n").str();
  return Yaml;
}

constexpr StringLiteral TextYaml = "  - Name: .text\n    Type: SHT_PROGBITS\n"
                                   "    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]\n"
                                   "    Content: \"C3\"\n";

/// A relocatable object that defines \p Defined and refers to \p Undefined.
std::string objectWithSymbols(ArrayRef<StringRef> Defined,
                              ArrayRef<StringRef> Undefined) {
  return makeX86ELF(TextYaml.str() + "Symbols:\n" +
                    symbolsYaml(Defined, Undefined));
}

/// A shared object that defines \p Defined and refers to \p Undefined.
std::string sharedObject(ArrayRef<StringRef> Defined,
                         ArrayRef<StringRef> Undefined) {
  return yamlToObject("--- !ELF\nFileHeader:\n  Class: ELFCLASS64\n"
                      "  Data: ELFDATA2LSB\n  Type: ET_DYN\n"
                      "  Machine: EM_X86_64\nSections:\n" +
                      TextYaml.str() + "DynamicSymbols:\n" +
                      symbolsYaml(Defined, Undefined));
}

/// A fresh directory, removed with the test.
class LinkInputsTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("link-inputs-test", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) const {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return P.str().str();
  }
  std::string write(StringRef Name, StringRef Data) const {
    std::error_code EC;
    raw_fd_ostream OS(path(Name), EC);
    EXPECT_FALSE(EC);
    OS << Data;
    return path(Name);
  }
  /// An archive of the (name, contents) members, with a symbol table: GNU
  /// unless \p Kind says otherwise.
  std::string archive(StringRef Name,
                      ArrayRef<std::pair<StringRef, std::string>> Members,
                      bool Thin = false,
                      object::Archive::Kind Kind = object::Archive::K_GNU) {
    std::vector<NewArchiveMember> New;
    for (const auto &[MemberName, Data] : Members) {
      if (Thin) {
        Expected<NewArchiveMember> M =
            NewArchiveMember::getFile(write(MemberName, Data), true);
        EXPECT_TRUE(bool(M));
        New.push_back(std::move(*M));
        continue;
      }
      New.emplace_back(MemoryBufferRef(Data, MemberName));
    }
    EXPECT_FALSE(errorToBool(writeArchive(path(Name), New,
                                          SymtabWritingMode::NormalSymtab, Kind,
                                          /*Deterministic=*/true, Thin)));
    return path(Name);
  }

  SmallString<128> Dir;
};

/// A CPU device link's libraries of the host link's \p Libraries, searched
/// for in \p Search, as HostLinkInfo reads them.
static DeviceLinkLibraries omit(std::vector<std::string> Libraries,
                                std::vector<std::string> Search,
                                const LinkInputs *Host = nullptr) {
  LoadedInputs Loaded;
  for (const std::string &A : Libraries)
    if (!StringRef(A).starts_with("-"))
      Loaded.Files.push_back(A);
  return omitStaticArchives(
      getHostLinkInfo(LLDCommandLine(Libraries), Loaded).Libraries,
      getHostLinkInfo(LLDCommandLine(Search), LoadedInputs()).SearchArgs, Host);
}

TEST(DeviceCodeScanTest, SectionsThatHoldDeviceCode) {
  auto Scan = [](const std::string &Data) {
    return scanForDeviceCode(MemoryBufferRef(Data, "x.o"));
  };
  EXPECT_EQ(Scan(objectWithSection(".llvm.offloading")), DeviceCodeScan::Found);
  EXPECT_EQ(Scan(objectWithSection(".llvm.offloading.relocatable")),
            DeviceCodeScan::Found);
  // By type, whatever the name.
  EXPECT_EQ(Scan(objectWithSection(".other", "SHT_LLVM_OFFLOADING")),
            DeviceCodeScan::Found);
  EXPECT_EQ(Scan(objectWithSection(
                "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a")),
            DeviceCodeScan::Found);
  EXPECT_EQ(Scan(objectWithSection(".hipFatBinSegment")),
            DeviceCodeScan::Found);
  EXPECT_EQ(Scan(objectWithSection(".nvFatBinSegment")), DeviceCodeScan::Found);
  EXPECT_EQ(Scan(objectWithSection(".hip_fatbin")), DeviceCodeScan::Found);
  // Ordinary sections, and code whatever its name.
  EXPECT_EQ(Scan(objectWithSection(".data")), DeviceCodeScan::None);
  EXPECT_EQ(Scan(objectWithSection(".hip_fatbin_not")), DeviceCodeScan::None);
  EXPECT_EQ(Scan(objectWithSection(".llvm.offloading", "SHT_PROGBITS",
                                   "[ SHF_ALLOC, SHF_EXECINSTR ]")),
            DeviceCodeScan::None);
  // Bitcode must be read whole; other files hold none.
  EXPECT_EQ(Scan(std::string("BC\xC0\xDE", 4) + std::string(60, '\0')),
            DeviceCodeScan::Found);
  EXPECT_EQ(Scan("GROUP ( libc.so.6 )\n"), DeviceCodeScan::None);
  // A section table past the end of the file.
  std::string Cut = objectWithSection(".data");
  Cut.resize(Cut.size() / 2);
  EXPECT_EQ(Scan(Cut), DeviceCodeScan::Unknown);
}

TEST_F(LinkInputsTest, SearchLibraryAsLLDDoes) {
  ASSERT_FALSE(sys::fs::create_directories(path("a")));
  ASSERT_FALSE(sys::fs::create_directories(path("b")));
  write("a/libx.a", "!<arch>\n");
  write("b/libx.so", "");
  write("b/liby.a", "!<arch>\n");
  std::vector<std::string> Dirs = {path("a"), path("b")};
  // Each directory in turn, a shared object first within one.
  EXPECT_EQ(searchLibrary("x", Dirs, "", false), path("a/libx.a"));
  EXPECT_EQ(searchLibrary("y", Dirs, "", false), path("b/liby.a"));
  EXPECT_EQ(searchLibrary(":libx.so", Dirs, "", false), path("b/libx.so"));
  EXPECT_EQ(searchLibrary("x", {path("b")}, "", false), path("b/libx.so"));
  EXPECT_EQ(searchLibrary("x", {path("b")}, "", true), std::nullopt);
  EXPECT_EQ(searchLibrary("z", Dirs, "", false), std::nullopt);
  // '=' puts a directory under the sysroot.
  EXPECT_EQ(searchLibrary("y", {"=/b"}, Dir, false), path("b/liby.a"));
}

TEST_F(LinkInputsTest, ObjectsAreTheAnswerWhenNoMemberHoldsDeviceCode) {
  std::string Dev = write("dev.o", objectWithSection(".llvm.offloading"));
  std::string Host = write("host.o", objectWithSection(".data"));
  archive("libplain.a", {{"m.o", objectWithSection(".data")}});
  LinkInputs In = findIn(
      {Dev, "-L", Dir.str().str(), "-lplain", "-o", path("out"), Host});
  EXPECT_EQ(In.whyAskLLD(), "");
  LoadedInputs Loaded = In.commandLineLoads();
  EXPECT_EQ(Loaded.Files, (std::vector<std::string>{Dev, Host}));
  EXPECT_EQ(Loaded.Archives, (std::vector<std::string>{path("libplain.a")}));
  EXPECT_TRUE(In.mayHoldDeviceCode(Dev, 0));
  EXPECT_FALSE(In.mayHoldDeviceCode(Host, 0));
  EXPECT_FALSE(In.mayHoldDeviceCode(path("libplain.a") + "(m.o)", 0));
  EXPECT_FALSE(In.archiveMayHoldDeviceCode(path("libplain.a")));
  // What was not read may hold anything.
  EXPECT_TRUE(In.mayHoldDeviceCode(path("other.o"), 0));
  EXPECT_TRUE(In.archiveMayHoldDeviceCode(path("other.a")));
}

TEST_F(LinkInputsTest, MembersWithDeviceCodeAskLLD) {
  std::string Lib =
      archive("libfat.a", {{"a.o", objectWithSection(".data")},
                           {"b.o", objectWithSection(".llvm.offloading")}});
  LinkInputs In = findIn({path("x.o"), Lib});
  // x.o does not exist: LLD says so.
  EXPECT_NE(In.whyAskLLD().find("cannot be read"), std::string::npos);
  write("x.o", objectWithSection(".data"));
  In = findIn({path("x.o"), Lib});
  EXPECT_EQ(In.whyAskLLD(), "archive " + Lib + " has members with device code");
  EXPECT_TRUE(In.memberMayHoldDeviceCode(Lib, "b.o", 0));
  EXPECT_FALSE(In.memberMayHoldDeviceCode(Lib, "a.o", 0));
  // Thin archives: their members' files are read.
  std::string Thin = archive(
      "libthin.a", {{"t.o", objectWithSection(".llvm.offloading")}}, true);
  In = findIn({path("x.o"), Thin});
  EXPECT_EQ(In.whyAskLLD(),
            "archive " + Thin + " has members with device code");
  std::string ThinPlain =
      archive("libthinplain.a", {{"u.o", objectWithSection(".data")}}, true);
  In = findIn({path("x.o"), ThinPlain});
  EXPECT_EQ(In.whyAskLLD(), "");
}

TEST_F(LinkInputsTest, MembersOfOneNameAreToldApartByOccurrence) {
  // `ar q` keeps both m.o: only the second holds device code.
  std::string Lib =
      archive("librepeat.a", {{"m.o", objectWithSection(".data")},
                              {"m.o", objectWithSection(".llvm.offloading")}});
  write("x.o", objectWithSection(".data"));
  LinkInputs In = findIn({path("x.o"), Lib});
  EXPECT_EQ(In.whyAskLLD(), "archive " + Lib + " has members with device code");
  EXPECT_FALSE(In.memberMayHoldDeviceCode(Lib, "m.o", 0));
  EXPECT_TRUE(In.memberMayHoldDeviceCode(Lib, "m.o", 1));
  EXPECT_TRUE(In.mayHoldDeviceCode(Lib + "(m.o)", 1));
}

TEST_F(LinkInputsTest, ArchivesReadLaterAreAssumedWithoutDeviceCode) {
  std::string Host = write("host.o", objectWithSection(".data"));
  std::string Fat =
      archive("libfat.a", {{"a.o", objectWithSection(".data")},
                           {"b.o", objectWithSection(".llvm.offloading")}});
  std::string Plain =
      archive("libplain.a", {{"p.o", objectWithSection(".data")}});
  LinkInputs In =
      findIn({Host, Fat, Plain}, LinkInputs::Reading::Later);
  // Until read: objects answered, archives taken to hold none.
  EXPECT_TRUE(In.archivesPending());
  EXPECT_EQ(In.whyAskLLD(), "");
  EXPECT_FALSE(In.archiveMayHoldDeviceCode(Fat));
  EXPECT_FALSE(In.mayHoldDeviceCode(Fat + "(b.o)", 0));
  EXPECT_FALSE(In.mayHoldDeviceCode(Host, 0));
  EXPECT_EQ(In.archivesToRead(), (std::vector<std::string>{Fat, Plain}));
  // Read, on one thread or several: the same answer.
  LinkInputs::ArchiveScans One = LinkInputs::readArchives({Fat, Plain}, 1);
  LinkInputs::ArchiveScans Two = LinkInputs::readArchives({Fat, Plain}, 2);
  EXPECT_FALSE(One.holdNoDeviceCode());
  EXPECT_FALSE(Two.holdNoDeviceCode());
  EXPECT_TRUE(LinkInputs::readArchives({Plain}, 1).holdNoDeviceCode());
  In.addArchives(std::move(Two));
  EXPECT_FALSE(In.archivesPending());
  EXPECT_EQ(In.whyAskLLD(), "archive " + Fat + " has members with device code");
  EXPECT_TRUE(In.memberMayHoldDeviceCode(Fat, "b.o", 0));
  EXPECT_FALSE(In.memberMayHoldDeviceCode(Fat, "a.o", 0));
  EXPECT_FALSE(In.archiveMayHoldDeviceCode(Plain));
  // Already answered by the objects: nothing pending.
  EXPECT_FALSE(
      findIn({Host, "-lnosuch", Fat}, LinkInputs::Reading::Later)
          .archivesPending());
}

TEST_F(LinkInputsTest, MemberSectionTablesReadFromTheFile) {
  // Found by type, whatever the name.
  std::string Typed = archive(
      "libtyped.a", {{"pad.o", objectWithSection(".data")},
                     {"t.o", objectWithSection("odd", "SHT_LLVM_OFFLOADING")}});
  EXPECT_FALSE(LinkInputs::readArchives({Typed}, 1).holdNoDeviceCode());
  // A section table past the member's end: for LLD to report. (Written by
  // hand: LLVM's archive writer reads what it stores.)
  std::string Cut = objectWithSection(".data");
  Cut.resize(Cut.size() - 16);
  std::string Header = formatv("{0,-16}{1,-12}{2,-6}{3,-6}{4,-8}{5,-10}`\n",
                               "cut.o/", "0", "0", "0", "644", Cut.size());
  std::string Bad = write("libbad.a", "!<arch>\n" + Header + Cut);
  LinkInputs In = findIn({Bad});
  EXPECT_EQ(In.whyAskLLD(), Bad + " cannot be read, or is malformed");
}

TEST_F(LinkInputsTest, ArchiveMembersReadWithoutMapping) {
  // Long names, a symbol table, a member of odd size and one that is no
  // object.
  std::string Plain =
      archive("libplain.a",
              {{"a_member_with_a_long_name.o", objectWithSymbols({"a"}, {})},
               {"odd.txt", "odd"},
               {"b.o", objectWithSection(".data")}});
  EXPECT_EQ(scanArchiveMembers(Plain), DeviceCodeScan::None);
  // A member with device code after them is found where it is; LLVM's
  // reader names it.
  std::string Fat = archive(
      "libfat.a",
      {{"odd.txt", "odd"},
       {"another_long_member_name.o", objectWithSymbols({"c"}, {})},
       {"device_code_member.o", objectWithSection(".llvm.offloading")}});
  EXPECT_EQ(scanArchiveMembers(Fat), DeviceCodeScan::Found);
  LinkInputs::ArchiveScans Scans = LinkInputs::readArchives({Fat}, 1);
  EXPECT_EQ(
      Scans.Files[Fat].Archive.DeviceMembers.count({"device_code_member.o", 0}),
      1u);
  EXPECT_EQ(Scans.Files[Fat].Archive.DeviceMembers.size(), 1u);
  // Bitcode may hold anything.
  std::string Bitcode = archive(
      "libbc.a", {{"odd.txt", "odd"}, {"m.bc", std::string("BC\xC0\xDE\0\0")}});
  EXPECT_EQ(scanArchiveMembers(Bitcode), DeviceCodeScan::Found);

  // Left to LLVM's reader, which says the same as before: a thin archive,
  // BSD names, ...
  std::string Thin =
      archive("libthin.a", {{"t.o", objectWithSection(".data")}}, true);
  EXPECT_EQ(scanArchiveMembers(Thin), std::nullopt);
  EXPECT_TRUE(LinkInputs::readArchives({Thin}, 1).holdNoDeviceCode());
  std::string BSD = archive(
      "libbsd.a",
      {{"a name longer than sixteen.o", objectWithSection(".llvm.offloading")}},
      false, object::Archive::K_BSD);
  EXPECT_EQ(scanArchiveMembers(BSD), std::nullopt);
  EXPECT_FALSE(LinkInputs::readArchives({BSD}, 1).holdNoDeviceCode());
  // ... a long name outside the table of names, a member past the end of
  // the file, a header cut short, a file that is no archive.
  auto Header = [](StringRef Name, size_t Size) {
    return formatv("{0,-16}{1,-12}{2,-6}{3,-6}{4,-8}{5,-10}`\n", Name, "0", "0",
                   "0", "644", Size)
        .str();
  };
  std::string Object = objectWithSection(".data");
  std::string Names = "x_long_member_name.o/\n";
  std::string BadName =
      write("libbadname.a", "!<arch>\n" + Header("//", Names.size()) + Names +
                                Header("/99", Object.size()) + Object);
  EXPECT_EQ(scanArchiveMembers(BadName), std::nullopt);
  EXPECT_EQ(findIn({BadName}).whyAskLLD(),
            BadName + " cannot be read, or is malformed");
  std::string GoodName =
      write("libgoodname.a", "!<arch>\n" + Header("//", Names.size()) + Names +
                                 Header("/0", Object.size()) + Object);
  EXPECT_EQ(scanArchiveMembers(GoodName), DeviceCodeScan::None);
  std::string Past = write(
      "libpast.a", "!<arch>\n" + Header("p.o/", Object.size() + 1) + Object);
  EXPECT_EQ(scanArchiveMembers(Past), std::nullopt);
  std::string Cut =
      write("libcut.a", "!<arch>\n" + Header("c.o/", Object.size()).substr(30));
  EXPECT_EQ(scanArchiveMembers(Cut), std::nullopt);
  EXPECT_EQ(scanArchiveMembers(write("x.o", Object)), std::nullopt);
  EXPECT_EQ(scanArchiveMembers(path("nosuch.a")), std::nullopt);
}

TEST_F(LinkInputsTest, DeviceLinksTakeTheLibrariesTheHostLinkFound) {
  archive("libs.a", {{"s.o", objectWithSymbols({"s"}, {})}});
  write("libd.so", sharedObject({"d"}, {}));
  archive("libst.a", {{"st.o", objectWithSymbols({"st"}, {})}});
  write("libst.so", sharedObject({"st"}, {}));
  std::string L = "-L" + Dir.str().str();
  LinkInputs Host = findIn({L, "-ls", "-ld", "-Bstatic", "-lst"});
  ASSERT_EQ(Host.whyAskLLD(), "");
  SearchPaths Same = LLDCommandLine(std::vector<std::string>{L, "-L/elsewhere"}).searchPaths();
  std::optional<LinkInputs::FoundLibrary> S = Host.foundLibrary("s", Same);
  ASSERT_TRUE(S.has_value());
  EXPECT_EQ(S->Path, path("libs.a"));
  EXPECT_TRUE(S->IsArchive);
  std::optional<LinkInputs::FoundLibrary> D = Host.foundLibrary("d", Same);
  ASSERT_TRUE(D.has_value());
  EXPECT_EQ(D->Path, path("libd.so"));
  EXPECT_FALSE(D->IsArchive);
  // Found under -Bstatic, or not named: not known.
  EXPECT_FALSE(Host.foundLibrary("st", Same).has_value());
  EXPECT_FALSE(Host.foundLibrary("nosuch", Same).has_value());
  // Other directories first, or another sysroot: not known either.
  EXPECT_FALSE(
      Host.foundLibrary("s", LLDCommandLine(std::vector<std::string>{"-L/elsewhere", L}).searchPaths()).has_value());
  EXPECT_FALSE(
      Host.foundLibrary("s", LLDCommandLine(std::vector<std::string>{L, "--sysroot=/x"}).searchPaths()).has_value());

  // A device link takes what the host link found, without looking again
  // (libs.a is gone, and would not be found now); the rest it looks for.
  ASSERT_FALSE(sys::fs::remove(path("libs.a")));
  DeviceLinkLibraries Libs = omit({"-ls", "-ld", "-lst"}, {L}, &Host);
  ASSERT_EQ(Libs.Libraries.size(), 3u);
  EXPECT_EQ(Libs.Libraries[0].Path, path("libs.a"));
  EXPECT_TRUE(Libs.Libraries[0].Omitted);
  EXPECT_EQ(Libs.Libraries[1].Path, path("libd.so"));
  EXPECT_FALSE(Libs.Libraries[1].Omitted);
  EXPECT_EQ(Libs.Libraries[2].Path, path("libst.so"));
  EXPECT_FALSE(Libs.Libraries[2].Omitted);
  EXPECT_EQ(spell(Libs.Kept), (std::vector<std::string>{"-ld", "-lst"}));
  EXPECT_EQ(omit({"-ls"}, {L}).Libraries[0].Path, "");
}

TEST_F(LinkInputsTest, WhatLLDMustAnswer) {
  write("x.o", objectWithSection(".data"));
  std::string Dev = write("dev.o", objectWithSection(".llvm.offloading"));
  // A library not in the search path, an unknown option, a missing value.
  EXPECT_EQ(findIn({path("x.o"), "-lnosuch"}).whyAskLLD(),
            "library -lnosuch is not in the search path");
  EXPECT_EQ(findIn({path("x.o"), "--no-such-option"}).whyAskLLD(),
            "unknown option --no-such-option");
  EXPECT_EQ(findIn({path("x.o"), "-o"}).whyAskLLD(),
            "an option lacks its value");
  // A lazy object with device code: only LLD knows if it is taken.
  EXPECT_EQ(findIn({path("x.o"), "--start-lib", Dev, "--end-lib"})
                .whyAskLLD(),
            Dev + " is between --start-lib and --end-lib and has device code");
  EXPECT_EQ(findIn({Dev, "--start-lib", path("x.o"), "--end-lib"})
                .whyAskLLD(),
            "");
  // Values of options are not inputs; --format=binary inputs are data.
  LinkInputs In = findIn({"-soname", "libdoesnotexist.so", "-T",
                                    path("x.o"), "--format=binary", Dev});
  EXPECT_EQ(In.whyAskLLD(), "");
  EXPECT_TRUE(In.commandLineLoads().Files.empty());
}

TEST(OptionPrintingToStdoutTest, OptionsThatPrintWhereTheTraceGoes) {
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"a.o", "-o", "x"}).optionPrintingToStdout(), std::nullopt);
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"a.o", "--trace"}).optionPrintingToStdout(), std::nullopt);
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"a.o", "-Map", "x.map"}).optionPrintingToStdout(), std::nullopt);
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"a.o", "-y", "main"}).optionPrintingToStdout(), "-y main");
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"--print-gc-sections"}).optionPrintingToStdout(),
            "--print-gc-sections");
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"-M"}).optionPrintingToStdout(), "-M");
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"-Map=-"}).optionPrintingToStdout(), "-Map=-");
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"--why-extract=-"}).optionPrintingToStdout(), "--why-extract=-");
  EXPECT_EQ(LLDCommandLine(std::vector<std::string>{"--print-archive-stats=x"}).optionPrintingToStdout(),
            "--print-archive-stats=x");
}

TEST(ReleaseOptionsTest, TheLastSpellingDecides) {
  EXPECT_FALSE(LLDCommandLine(std::vector<std::string>{"a.o"}).collectsUnusedSections());
  EXPECT_TRUE(LLDCommandLine(std::vector<std::string>{"a.o", "--gc-sections"}).collectsUnusedSections());
  EXPECT_TRUE(LLDCommandLine(std::vector<std::string>{"-gc-sections", "a.o"}).collectsUnusedSections());
  EXPECT_FALSE(LLDCommandLine(std::vector<std::string>{"--gc-sections", "--no-gc-sections"}).collectsUnusedSections());
  EXPECT_TRUE(LLDCommandLine(std::vector<std::string>{"--no-gc-sections", "--gc-sections"}).collectsUnusedSections());
  // An option's value is not an option.
  EXPECT_FALSE(LLDCommandLine(std::vector<std::string>{"-o", "--gc-sections"}).collectsUnusedSections());

  EXPECT_FALSE(LLDCommandLine(std::vector<std::string>{"a.o"}).foldsAllIdenticalCode());
  EXPECT_TRUE(LLDCommandLine(std::vector<std::string>{"--icf=all"}).foldsAllIdenticalCode());
  EXPECT_TRUE(LLDCommandLine(std::vector<std::string>{"-icf=all"}).foldsAllIdenticalCode());
  EXPECT_FALSE(LLDCommandLine(std::vector<std::string>{"--icf=safe"}).foldsAllIdenticalCode());
  EXPECT_FALSE(LLDCommandLine(std::vector<std::string>{"--icf=all", "--icf=none"}).foldsAllIdenticalCode());
  EXPECT_TRUE(LLDCommandLine(std::vector<std::string>{"--icf=safe", "--icf=all"}).foldsAllIdenticalCode());
}

TEST_F(LinkInputsTest, DeviceLinksLeaveStaticArchivesOut) {
  archive("libs.a", {{"s.o", objectWithSymbols({"s"}, {})}});
  write("libd.so", sharedObject({"d"}, {}));
  std::string W = archive("w.a", {{"w.o", objectWithSymbols({"w"}, {})}});
  DeviceLinkLibraries Libs = omit({"-ls", "-ld", "-lnosuch", "--whole-archive",
                                   W, "--no-whole-archive", "-rpath=/r"},
                                  {"-L" + Dir.str().str()});
  EXPECT_EQ(spell(Libs.Kept),
            (std::vector<std::string>{"-ld", "-lnosuch", "--whole-archive", W,
                                      "--no-whole-archive", "-rpath=/r"}));
  ASSERT_EQ(Libs.Libraries.size(), 4u);
  EXPECT_EQ(Libs.Libraries[0].Path, path("libs.a"));
  EXPECT_TRUE(Libs.Libraries[0].Omitted);
  EXPECT_FALSE(Libs.Libraries[1].Omitted);
  EXPECT_EQ(Libs.Libraries[2].Path, "");
  EXPECT_FALSE(Libs.Libraries[3].Omitted); // --whole-archive
  EXPECT_TRUE(Libs.omitsAny());
}

TEST_F(LinkInputsTest, OmittedArchiveNeededWhenItWouldGiveAMember) {
  std::string Image = write("image.o", objectWithSymbols({"main"}, {"foo"}));
  archive("libfoo.a", {{"foo.o", objectWithSymbols({"foo"}, {})}});
  archive("libbar.a", {{"bar.o", objectWithSymbols({"bar"}, {})}});
  write("libdef.so", sharedObject({"foo"}, {}));
  write("libref.so", sharedObject({}, {"bar"}));
  std::vector<std::string> Search = {"-L" + Dir.str().str()};

  // image.o needs foo, which libfoo.a defines and nothing before it does.
  DeviceLinkLibraries Libs = omit({"-lfoo"}, Search);
  Libs.LeadingLines = 1;
  EXPECT_TRUE(omittedArchivesNeeded(Image + "\n", Libs));
  // libbar.a defines nothing anything needs.
  Libs = omit({"-lbar"}, Search);
  Libs.LeadingLines = 1;
  EXPECT_FALSE(omittedArchivesNeeded(Image + "\n", Libs));
  // A shared object before the archive defines foo: LLD takes it there.
  Libs = omit({"-ldef", "-lfoo"}, Search);
  Libs.LeadingLines = 1;
  EXPECT_FALSE(
      omittedArchivesNeeded(Image + "\n" + path("libdef.so") + "\n", Libs));
  // After it, the archive's member is taken first.
  Libs = omit({"-lfoo", "-ldef"}, Search);
  Libs.LeadingLines = 1;
  EXPECT_TRUE(
      omittedArchivesNeeded(Image + "\n" + path("libdef.so") + "\n", Libs));
  // A shared object's reference takes a member too.
  Libs = omit({"-lref", "-lbar"}, Search);
  Libs.LeadingLines = 1;
  EXPECT_TRUE(
      omittedArchivesNeeded(Image + "\n" + path("libref.so") + "\n", Libs));
  // What cannot be read counts as needed.
  Libs = omit({"-lbar"}, Search);
  EXPECT_TRUE(omittedArchivesNeeded(path("gone.o") + "\n", Libs));
  // Members of a kept archive, as the trace names them: b.o defines foo
  // before libfoo.a could; a member the archive lacks counts as needed.
  std::string W = archive("libw.a", {{"a.o", objectWithSymbols({"a"}, {})},
                                     {"b.o", objectWithSymbols({"foo"}, {})}});
  Libs =
      omit({"--whole-archive", "-lw", "--no-whole-archive", "-lfoo"}, Search);
  Libs.LeadingLines = 1;
  EXPECT_FALSE(omittedArchivesNeeded(
      Image + "\n" + W + "(a.o)\n" + W + "(b.o)\n", Libs));
  EXPECT_TRUE(omittedArchivesNeeded(Image + "\n" + W + "(a.o)\n", Libs));
  EXPECT_TRUE(omittedArchivesNeeded(Image + "\n" + W + "(c.o)\n", Libs));
}

TEST_F(LinkInputsTest, OmittedArchiveSymbolTablesOfEveryKind) {
  std::string Image = write("image.o", objectWithSymbols({"main"}, {"foo"}));
  std::vector<std::string> Search = {"-L" + Dir.str().str()};
  auto Needed = [&](StringRef Lib) {
    DeviceLinkLibraries Libs = omit({("-l" + Lib).str()}, Search);
    Libs.LeadingLines = 1;
    return omittedArchivesNeeded(Image + "\n", Libs);
  };
  // A thin archive's symbol table is read as a regular one's.
  archive("libthin.a", {{"foo.o", objectWithSymbols({"foo"}, {})}},
          /*Thin=*/true);
  EXPECT_TRUE(Needed("thin"));
  // A symbol table whose size runs past the file, or a file cut inside it,
  // is not read as one: the archive cannot be read, and so counts as needed.
  std::string Header = "/               0           0     0     0       ";
  write("libpast.a", "!<arch>\n" + Header + "999999    `\n" + "\0\0\0\0");
  EXPECT_TRUE(Needed("past"));
  write("libcut.a", "!<arch>\n/       ");
  EXPECT_TRUE(Needed("cut"));
  // An archive without a symbol table and without members gives nothing.
  write("libempty.a", "!<arch>\n");
  EXPECT_FALSE(Needed("empty"));
}

} // namespace

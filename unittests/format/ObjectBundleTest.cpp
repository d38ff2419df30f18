//===- ObjectBundleTest.cpp - Offload bundles inside objects --------------===//
//
// Object bundles written with the in-process ObjCopy library and read back:
// section names, flags and contents as clang-offload-bundler 22 makes them,
// host extraction, and malformed objects (which must give errors, never
// crashes).
//
//===----------------------------------------------------------------------===//

#include "format/ObjectBundle.h"

#include "ELFTestObjects.h"
#include "unittests/ErrorMatchers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <string>

using namespace llvm;
using namespace offload;
using ::testing::HasSubstr;

namespace {

constexpr StringLiteral HostID = "host-x86_64-unknown-linux-gnu-";
constexpr StringLiteral OpenMPID = "openmp-x86_64-pc-linux-gnu-";
constexpr StringLiteral HIPID = "hipv4-amdgcn-amd-amdhsa--gfx90a";

/// An x86-64 relocatable object with code, data, a symbol and the extra
/// sections \p Extra (YAML list items).
std::string makeHost(StringRef Extra = "") {
  std::string Yaml = "  - Name: .text\n"
                     "    Type: SHT_PROGBITS\n"
                     "    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]\n"
                     "    AddressAlign: 16\n"
                     "    Content: \"B82A000000C3\"\n"
                     "  - Name: .data\n"
                     "    Type: SHT_PROGBITS\n"
                     "    Flags: [ SHF_WRITE, SHF_ALLOC ]\n"
                     "    AddressAlign: 4\n"
                     "    Content: \"03000000\"\n";
  Yaml += Extra.str();
  Yaml += "Symbols:\n"
          "  - Name: foo\n"
          "    Type: STT_FUNC\n"
          "    Section: .text\n"
          "    Binding: STB_GLOBAL\n"
          "    Size: 6\n";
  return testutil::makeX86ELF(Yaml);
}

/// A YAML section item named \p Name holding \p Bytes.
std::string yamlSection(StringRef Name, StringRef Bytes) {
  return "  - Name: " + Name.str() +
         "\n    Type: SHT_PROGBITS\n    Flags: [ SHF_EXCLUDE ]\n"
         "    Content: \"" +
         toHex(Bytes) + "\"\n";
}

std::string str(const SmallVector<char, 0> &V) {
  return std::string(V.data(), V.size());
}

/// The bundle of makeHost() with a host, an OpenMP and a HIP entry.
std::string makeBundle(StringRef Host) {
  BundleEntryToWrite Entries[] = {{HostID.str(), "ignored"},
                                  {OpenMPID.str(), "DEV1DATA"},
                                  {HIPID.str(), "DEVICE-TWO-PAYLOAD!"}};
  return str(takeOrFail(
      writeObjectBundle(MemoryBufferRef(Host, "host.o"), HostID, Entries)));
}

using ELF64 = object::ELF64LEObjectFile;

/// The section headers of an x86-64 object, by name.
std::vector<std::pair<std::string, object::ELF64LE::Shdr>>
sectionHeaders(StringRef Obj) {
  std::vector<std::pair<std::string, object::ELF64LE::Shdr>> Result;
  Expected<ELF64> File = ELF64::create(MemoryBufferRef(Obj, "obj"));
  if (!File) {
    ADD_FAILURE() << toString(File.takeError());
    return Result;
  }
  auto Sections = File->getELFFile().sections();
  if (!Sections) {
    ADD_FAILURE() << toString(Sections.takeError());
    return Result;
  }
  for (const auto &Shdr : *Sections) {
    std::string Name =
        takeOrFail(File->getELFFile().getSectionName(Shdr)).str();
    Result.emplace_back(Name, Shdr);
  }
  return Result;
}

TEST(ObjectBundle, RoundTrip) {
  std::string Host = makeHost();
  std::string Bundle = makeBundle(Host);
  ASSERT_FALSE(Bundle.empty());

  EXPECT_TRUE(takeOrFail(hasBundleSections(MemoryBufferRef(Bundle, "b.o"))));
  EXPECT_FALSE(takeOrFail(hasBundleSections(MemoryBufferRef(Host, "h.o"))));

  std::vector<BundleEntry> Entries =
      takeOrFail(readObjectBundle(MemoryBufferRef(Bundle, "b.o")));
  ASSERT_EQ(Entries.size(), 3u);
  EXPECT_EQ(Entries[0].ID, HostID);
  EXPECT_EQ(Entries[0].Data, StringRef("\0", 1));
  EXPECT_EQ(Entries[1].ID, OpenMPID);
  EXPECT_EQ(Entries[1].Data, "DEV1DATA");
  EXPECT_EQ(Entries[2].ID, HIPID);
  EXPECT_EQ(Entries[2].Data, "DEVICE-TWO-PAYLOAD!");

  // An object without bundle sections has no entries.
  EXPECT_TRUE(
      takeOrFail(readObjectBundle(MemoryBufferRef(Host, "h.o"))).empty());
}

// The bundle sections are appended after the host's sections, in entry
// order, as SHT_PROGBITS with only SHF_EXCLUDE (readonly,exclude), alignment
// 1, and the host's sections keep their flags.
TEST(ObjectBundle, SectionNamesAndFlags) {
  std::string Bundle = makeBundle(makeHost());
  auto Headers = sectionHeaders(Bundle);
  ASSERT_GE(Headers.size(), 3u);
  std::vector<std::string> BundleNames;
  for (const auto &[Name, Shdr] : Headers) {
    if (Name == ".text") {
      EXPECT_EQ(Shdr.sh_flags, uint64_t(ELF::SHF_ALLOC | ELF::SHF_EXECINSTR));
    }
    if (Name == ".data") {
      EXPECT_EQ(Shdr.sh_flags, uint64_t(ELF::SHF_ALLOC | ELF::SHF_WRITE));
    }
    if (!StringRef(Name).starts_with("__CLANG_OFFLOAD_BUNDLE__"))
      continue;
    BundleNames.push_back(Name);
    EXPECT_EQ(Shdr.sh_type, uint32_t(ELF::SHT_PROGBITS)) << Name;
    EXPECT_EQ(Shdr.sh_flags, uint64_t(ELF::SHF_EXCLUDE)) << Name;
    EXPECT_EQ(Shdr.sh_addralign, 1u) << Name;
    EXPECT_EQ(Shdr.sh_addr, 0u) << Name;
  }
  EXPECT_THAT(BundleNames,
              ::testing::ElementsAre(
                  "__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu-",
                  "__CLANG_OFFLOAD_BUNDLE__openmp-x86_64-pc-linux-gnu-",
                  "__CLANG_OFFLOAD_BUNDLE__hipv4-amdgcn-amd-amdhsa--gfx90a"));
  // The bundle sections are the last ones, after the host's.
  EXPECT_EQ(Headers.back().first,
            "__CLANG_OFFLOAD_BUNDLE__hipv4-amdgcn-amd-amdhsa--gfx90a");
}

// Writing is deterministic.
TEST(ObjectBundle, Deterministic) {
  std::string Host = makeHost();
  EXPECT_EQ(makeBundle(Host), makeBundle(Host));
}

// Unbundling the host gives the object without the bundle sections: what
// objcopy makes of the host object itself, code and symbols intact.
TEST(ObjectBundle, HostObject) {
  std::string Host = makeHost();
  std::string Bundle = makeBundle(Host);
  std::string Extracted =
      str(takeOrFail(getHostObject(MemoryBufferRef(Bundle, "b.o"))));
  ASSERT_FALSE(Extracted.empty());
  EXPECT_FALSE(
      takeOrFail(hasBundleSections(MemoryBufferRef(Extracted, "x.o"))));
  EXPECT_EQ(Extracted,
            str(takeOrFail(getHostObject(MemoryBufferRef(Host, "h.o")))));

  auto File = takeOrFail(
      object::ObjectFile::createObjectFile(MemoryBufferRef(Extracted, "x.o")));
  ASSERT_TRUE(File);
  bool SawText = false;
  for (const object::SectionRef &Sec : File->sections())
    if (takeOrFail(Sec.getName()) == ".text") {
      SawText = true;
      EXPECT_EQ(toHex(takeOrFail(Sec.getContents())), "B82A000000C3");
    }
  EXPECT_TRUE(SawText);
  bool SawFoo = false;
  for (const object::SymbolRef &Sym : File->symbols())
    if (takeOrFail(Sym.getName()) == "foo")
      SawFoo = true;
  EXPECT_TRUE(SawFoo);

  // Bundling the extracted host again gives the same bundle.
  EXPECT_EQ(makeBundle(Extracted), makeBundle(Host));
}

// Only the entry whose ID is the host ID gets the placeholder; an empty
// device payload gives an empty section; no host entry at all is fine (HIP).
TEST(ObjectBundle, PlaceholderAndEmptyEntries) {
  std::string Host = makeHost();
  BundleEntryToWrite Entries[] = {{HIPID.str(), ""},
                                  {"hipv4-amdgcn-amd-amdhsa--gfx942", "X"}};
  std::string Bundle = str(takeOrFail(
      writeObjectBundle(MemoryBufferRef(Host, "h.o"), HostID, Entries)));
  std::vector<BundleEntry> Read =
      takeOrFail(readObjectBundle(MemoryBufferRef(Bundle, "b.o")));
  ASSERT_EQ(Read.size(), 2u);
  EXPECT_EQ(Read[0].ID, HIPID);
  EXPECT_EQ(Read[0].Data, "");
  EXPECT_EQ(Read[1].ID, "hipv4-amdgcn-amd-amdhsa--gfx942");
  EXPECT_EQ(Read[1].Data, "X");
}

TEST(ObjectBundle, DuplicateEntry) {
  std::string Host = makeHost();
  BundleEntryToWrite Entries[] = {{HIPID.str(), "A"}, {HIPID.str(), "B"}};
  EXPECT_THAT(errorMessage(writeObjectBundle(MemoryBufferRef(Host, "h.o"),
                                             HostID, Entries)),
              HasSubstr("more than once"));
}

// Inputs that are not objects, or objects cut short, are errors naming the
// file.
TEST(ObjectBundle, NotAnObject) {
  std::string Junk = "this is not an object file at all";
  MemoryBufferRef Ref(Junk, "junk.o");
  EXPECT_THAT(errorMessage(hasBundleSections(Ref)), HasSubstr("junk.o"));
  EXPECT_THAT(errorMessage(readObjectBundle(Ref)), HasSubstr("junk.o"));
  EXPECT_THAT(errorMessage(getHostObject(Ref)), HasSubstr("junk.o"));
  BundleEntryToWrite Entries[] = {{HIPID.str(), "A"}};
  EXPECT_THAT(errorMessage(writeObjectBundle(Ref, HostID, Entries)),
              HasSubstr("junk.o"));
  std::string Empty;
  EXPECT_THAT(errorMessage(readObjectBundle(MemoryBufferRef(Empty, "e.o"))),
              HasSubstr("e.o"));
}

TEST(ObjectBundle, TruncatedObject) {
  std::string Bundle = makeBundle(makeHost());
  // Every prefix of the bundle is either rejected or read without
  // crashing; the ones that cut off the section headers are rejected.
  for (size_t Size : {size_t(4), size_t(63), size_t(64), size_t(200),
                      Bundle.size() / 2, Bundle.size() - 1}) {
    std::string Cut = Bundle.substr(0, Size);
    MemoryBufferRef Ref(Cut, "cut.o");
    std::string Msg = errorMessage(readObjectBundle(Ref));
    EXPECT_THAT(Msg, HasSubstr("cut.o")) << "size " << Size;
    EXPECT_THAT(errorMessage(getHostObject(Ref)), HasSubstr("cut.o"))
        << "size " << Size;
  }
}

// A bundle section whose name after the magic is no entry ID is an error
// (clang-offload-bundler: "Invalid bundle id read from code object").
TEST(ObjectBundle, MalformedEntryID) {
  std::string Obj =
      makeHost(yamlSection("__CLANG_OFFLOAD_BUNDLE__garbage", "x"));
  MemoryBufferRef Ref(Obj, "bad.o");
  EXPECT_TRUE(takeOrFail(hasBundleSections(Ref)));
  std::string Msg = errorMessage(readObjectBundle(Ref));
  EXPECT_THAT(Msg, HasSubstr("bad.o"));
  EXPECT_THAT(Msg, HasSubstr("'garbage'"));
  // Stripping the bundle sections still works.
  std::string Extracted = str(takeOrFail(getHostObject(Ref)));
  EXPECT_FALSE(
      takeOrFail(hasBundleSections(MemoryBufferRef(Extracted, "x.o"))));
}

// A bundle section whose contents lie past the end of the file is an error.
TEST(ObjectBundle, SectionPastTheEnd) {
  std::string Obj = makeHost(
      yamlSection("__CLANG_OFFLOAD_BUNDLE__hipv4-amdgcn-amd-amdhsa--gfx90a",
                  "abcd") +
      "    ShOffset: 0xFFFFFF00\n");
  MemoryBufferRef Ref(Obj, "past.o");
  std::string Msg = errorMessage(readObjectBundle(Ref));
  EXPECT_THAT(Msg, HasSubstr("past.o"));
  EXPECT_THAT(Msg, HasSubstr("__CLANG_OFFLOAD_BUNDLE__hipv4"));
}

// A reader that walks an object's sections itself reads a bundle section
// with the two functions readObjectBundle() reads each with.
TEST(ObjectBundle, OneSectionRead) {
  std::string Bundle = makeBundle(makeHost());
  MemoryBufferRef Ref(Bundle, "b.o");
  std::vector<BundleEntry> Whole = takeOrFail(readObjectBundle(Ref));
  std::unique_ptr<object::ObjectFile> Obj =
      takeOrFail(object::ObjectFile::createObjectFile(Ref));
  std::vector<BundleEntry> OneByOne;
  for (const object::SectionRef &Sec : Obj->sections()) {
    StringRef Name = takeOrFail(Sec.getName());
    if (!Name.starts_with(BundleMagic))
      continue;
    BundleEntryID ID = takeOrFail(readBundleSectionID(Name));
    EXPECT_TRUE(ID.hasKnownKind());
    OneByOne.push_back({Name.drop_front(BundleMagic.size()),
                        takeOrFail(readBundleSectionContents(Sec, Ref))});
  }
  ASSERT_EQ(OneByOne.size(), Whole.size());
  for (size_t I = 0; I != Whole.size(); ++I) {
    EXPECT_EQ(OneByOne[I].ID, Whole[I].ID);
    EXPECT_EQ(OneByOne[I].Data, Whole[I].Data);
  }
  EXPECT_THAT(errorMessage(readBundleSectionID(
                  "__CLANG_OFFLOAD_BUNDLE__garbage")),
              HasSubstr("'garbage'"));
}

} // namespace

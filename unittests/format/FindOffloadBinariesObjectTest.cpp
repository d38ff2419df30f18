//===- FindOffloadBinariesObjectTest.cpp - Objects and bitcode ------------===//
//
// The finder on ELF and COFF objects made in memory with yaml2obj's library,
// and on bitcode whose !llvm.embedded.objects lists a global holding a
// binary, built with the IR API.
//
//===----------------------------------------------------------------------===//

#include "format/FindOffloadBinaries.h"

#include "ELFTestObjects.h"
#include "OffloadBinaryTestUtils.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Compression.h"

using namespace llvm;
using namespace offload;
using namespace offload::testutil;
using ::testing::HasSubstr;

namespace {

/// A section of an ELF object: the YAML lines after "- Name: <name>".
struct YamlSection {
  std::string Name;
  std::string Body;
};

std::string contentLine(StringRef Bytes) {
  return "    Content: \"" + toHex(Bytes) + "\"\n";
}

/// An x86-64 relocatable ELF object with a .text section and \p Sections.
std::string makeELF(ArrayRef<YamlSection> Sections) {
  std::string Yaml = RetTextSectionYaml.str();
  for (const YamlSection &S : Sections)
    Yaml += "  - Name: " + S.Name + "\n" + S.Body;
  return makeX86ELF(Yaml);
}

/// A .llvm.offloading-like section of type \p Type holding \p Bytes.
YamlSection offloadSection(StringRef Name, StringRef Bytes,
                           StringRef Type = "SHT_LLVM_OFFLOADING") {
  return {Name.str(), "    Type: " + Type.str() +
                          "\n    Flags: [ SHF_EXCLUDE ]\n"
                          "    AddressAlign: 8\n" +
                          contentLine(Bytes)};
}

/// The file offset of section \p Name in the object \p Obj.
uint64_t sectionOffset(StringRef Obj, StringRef Name) {
  Expected<std::unique_ptr<object::ObjectFile>> File =
      object::ObjectFile::createObjectFile(MemoryBufferRef(Obj, "obj"));
  if (!File) {
    ADD_FAILURE() << toString(File.takeError());
    return 0;
  }
  for (const object::SectionRef &Sec : (*File)->sections())
    if (takeOrFail(Sec.getName()) == Name)
      return takeOrFail(Sec.getContents()).data() - Obj.data();
  ADD_FAILURE() << "no section " << Name.str();
  return 0;
}

std::unique_ptr<MemoryBuffer> makeArchive(StringRef Name, StringRef Contents) {
  NewArchiveMember M(MemoryBufferRef(Contents, Name));
  M.MemberName = Name;
  std::unique_ptr<MemoryBuffer> Lib = takeOrFail(writeArchiveToBuffer(
      M, SymtabWritingMode::NoSymtab, object::Archive::K_GNU,
      /*Deterministic=*/true, /*Thin=*/false));
  return Lib ? std::move(Lib) : MemoryBuffer::getMemBuffer("");
}

// The binaries of an SHT_LLVM_OFFLOADING .llvm.offloading section are found,
// with the section named and offsets counted from the start of the object.
TEST(FindOffloadBinariesObject, ELFSection) {
  ImageToWrite Images[] = {makeImage("dev1"), makeImage("dev2")};
  std::string Bins = write(Images, version(1));
  std::string Obj = makeELF({offloadSection(".llvm.offloading", Bins)});
  uint64_t SecOffset = sectionOffset(Obj, ".llvm.offloading");
  ASSERT_NE(SecOffset, 0u);

  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(Obj, "a.o"), "a.o")));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 2u);
  EXPECT_EQ(Found[0].Origin.File, "a.o");
  EXPECT_EQ(Found[0].Origin.Section, ".llvm.offloading");
  EXPECT_EQ(Found[0].Origin.Offset, SecOffset);
  EXPECT_EQ(Found[0].Binary.Data.data(), Obj.data() + SecOffset);
  EXPECT_EQ(Found[0].Binary.Images[0].Image, "dev1");
  EXPECT_EQ(Found[1].Origin.Offset, SecOffset + get64(Bins, field::Size));
  EXPECT_EQ(Found[1].Origin.describe(),
            "a.o:.llvm.offloading+0x" +
                utohexstr(SecOffset + get64(Bins, field::Size)));
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "dev2");
}

// The section type is enough: another name is found too.
TEST(FindOffloadBinariesObject, ELFSectionTypeWithOtherName) {
  std::string Obj = makeELF({offloadSection(".my.images", writeOne())});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(Obj, "a.o"), "a.o")));
  ASSERT_EQ(Finder.binaries().size(), 1u);
  EXPECT_EQ(Finder.binaries()[0].Origin.Section, ".my.images");
}

// So is the name, with a prefix match, for sections of another type.
TEST(FindOffloadBinariesObject, ELFSectionNamePrefix) {
  std::string Obj = makeELF(
      {offloadSection(".llvm.offloading.extra", writeOne(), "SHT_PROGBITS")});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(Obj, "a.o"), "a.o")));
  ASSERT_EQ(Finder.binaries().size(), 1u);
  EXPECT_EQ(Finder.binaries()[0].Origin.Section, ".llvm.offloading.extra");
}

// Sections of neither the type nor the name are not looked at, even if they
// hold a binary.
TEST(FindOffloadBinariesObject, ELFOtherSectionsIgnored) {
  std::string Obj =
      makeELF({offloadSection(".data", writeOne(), "SHT_PROGBITS")});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(Obj, "a.o"), "a.o")));
  EXPECT_TRUE(Finder.binaries().empty());
}

// An SHT_NOBITS section named .llvm.offloading has no contents to read and
// is skipped. It is marked compressed so that scanning it would fail (an
// empty section has no compression header).
TEST(FindOffloadBinariesObject, ELFNoBitsIgnored) {
  std::string Obj =
      makeELF({{".llvm.offloading", "    Type: SHT_NOBITS\n"
                                    "    Flags: [ SHF_ALLOC, SHF_COMPRESSED ]\n"
                                    "    Size: 64\n"}});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(Obj, "a.o"), "a.o")));
  EXPECT_TRUE(Finder.binaries().empty());
}

// A section compressed with zlib (ld --compress-sections) is inflated;
// offsets then count from the inflated section.
TEST(FindOffloadBinariesObject, ELFCompressedSection) {
  if (!compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  ImageToWrite Images[] = {makeImage("c1"), makeImage("c2")};
  std::string Bins = write(Images, version(1));
  SmallVector<uint8_t, 0> Compressed;
  compression::zlib::compress(arrayRefFromStringRef(Bins), Compressed);
  std::string Contents(24, '\0'); // Elf64_Chdr
  put32(Contents, 0, ELF::ELFCOMPRESS_ZLIB);
  put64(Contents, 8, Bins.size());
  put64(Contents, 16, 8);
  Contents += toStringRef(Compressed).str();
  std::string Obj = makeELF(
      {{".llvm.offloading", "    Type: SHT_LLVM_OFFLOADING\n"
                            "    Flags: [ SHF_EXCLUDE, SHF_COMPRESSED ]\n"
                            "    AddressAlign: 8\n" +
                                contentLine(Contents)}});
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(Obj, "a.o"), "a.o")));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 2u);
  EXPECT_EQ(Found[0].Origin.Section, ".llvm.offloading (inflated)");
  EXPECT_EQ(Found[0].Origin.Offset, 0u);
  EXPECT_EQ(Found[1].Origin.Offset, get64(Bins, field::Size));
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "c2");
}

// A malformed binary in an object in an archive is reported as
// "archive(member):section" with the offset within the member.
TEST(FindOffloadBinariesObject, MalformedInArchivedObject) {
  std::string Bin = writeOne();
  put32(Bin, field::Version, 9);
  std::string Obj = makeELF({offloadSection(".llvm.offloading", Bin)});
  uint64_t SecOffset = sectionOffset(Obj, ".llvm.offloading");
  std::unique_ptr<MemoryBuffer> Lib = makeArchive("obj.o", Obj);
  OffloadBinaryFinder Finder;
  std::string Msg = errorMessage(Finder.addBuffer(*Lib, "libdev.a"));
  EXPECT_THAT(Msg, HasSubstr("libdev.a(obj.o):.llvm.offloading: offset 0x" +
                             utohexstr(SecOffset) +
                             ": unsupported offload binary version 9"));
}

// An ELF object cut short is an error naming the file.
TEST(FindOffloadBinariesObject, TruncatedELF) {
  std::string Obj = makeELF({offloadSection(".llvm.offloading", writeOne())});
  Obj.resize(70); // Past e_ident, short of the section headers.
  OffloadBinaryFinder Finder;
  std::string Msg =
      errorMessage(Finder.addBuffer(MemoryBufferRef(Obj, "cut.o"), "cut.o"));
  EXPECT_EQ(Msg.rfind("cut.o: ", 0), 0u) << Msg;
  EXPECT_TRUE(Finder.binaries().empty());
}

// An object in an archive: member and section both named.
TEST(FindOffloadBinariesObject, ArchivedObject) {
  std::string Obj = makeELF({offloadSection(".llvm.offloading", writeOne())});
  uint64_t SecOffset = sectionOffset(Obj, ".llvm.offloading");
  std::unique_ptr<MemoryBuffer> Lib = makeArchive("obj.o", Obj);
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(*Lib, "libdev.a")));
  ASSERT_EQ(Finder.binaries().size(), 1u);
  EXPECT_EQ(Finder.binaries()[0].Origin.describe(),
            "libdev.a(obj.o):.llvm.offloading+0x" + utohexstr(SecOffset));
}

// COFF objects are searched by section name.
TEST(FindOffloadBinariesObject, COFFSection) {
  std::string Yaml = "--- !COFF\n"
                     "header:\n"
                     "  Machine: IMAGE_FILE_MACHINE_AMD64\n"
                     "  Characteristics: [ ]\n"
                     "sections:\n"
                     "  - Name: .llvm.offloading\n"
                     "    Characteristics: [ IMAGE_SCN_CNT_INITIALIZED_DATA, "
                     "IMAGE_SCN_LNK_REMOVE, IMAGE_SCN_MEM_READ ]\n"
                     "    Alignment: 8\n"
                     "    SectionData: \"" +
                     toHex(writeOne()) +
                     "\"\n"
                     "symbols: [ ]\n";
  std::string Obj = yamlToObject(Yaml);
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(
      succeeded(Finder.addBuffer(MemoryBufferRef(Obj, "a.obj"), "a.obj")));
  ASSERT_EQ(Finder.binaries().size(), 1u);
  EXPECT_EQ(Finder.binaries()[0].Origin.Section, ".llvm.offloading");
  EXPECT_EQ(Finder.binaries()[0].Binary.Images[0].Image, "IMAGE-BYTES");
}

/// Bitcode of a module with a global @Name holding \p Bytes, listed in
/// !llvm.embedded.objects with section \p Section.
std::string makeBitcode(StringRef Bytes, StringRef Name = "embedded",
                        StringRef Section = ".llvm.offloading") {
  LLVMContext Ctx;
  Module M("m", Ctx);
  Constant *Init = ConstantDataArray::getString(Ctx, Bytes, /*AddNull=*/false);
  auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, Init, Name);
  GV->setSection(".llvm.offloading");
  GV->setAlignment(Align(8));
  M.getOrInsertNamedMetadata("llvm.embedded.objects")
      ->addOperand(MDNode::get(
          Ctx, {ValueAsMetadata::get(GV), MDString::get(Ctx, Section)}));
  std::string Out;
  raw_string_ostream OS(Out);
  WriteBitcodeToFile(M, OS);
  return Out;
}

// A global listed in !llvm.embedded.objects is read; the origin names it.
TEST(FindOffloadBinariesObject, Bitcode) {
  ImageToWrite Images[] = {makeImage("bc1"), makeImage("bc2")};
  std::string Bins = write(Images, version(1));
  std::string BC = makeBitcode(Bins);
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(BC, "k.bc"), "k.bc")));
  ArrayRef<FoundOffloadBinary> Found = Finder.binaries();
  ASSERT_EQ(Found.size(), 2u);
  EXPECT_EQ(Found[0].Origin.Section, "@embedded");
  EXPECT_EQ(Found[0].Origin.describe(), "k.bc:@embedded+0x0");
  EXPECT_EQ(Found[1].Origin.Offset, get64(Bins, field::Size));
  EXPECT_EQ(Found[0].Binary.Images[0].Image, "bc1");
  EXPECT_EQ(Found[1].Binary.Images[0].Image, "bc2");
}

// Entries of !llvm.embedded.objects for other sections are not offload
// binaries.
TEST(FindOffloadBinariesObject, BitcodeOtherSectionIgnored) {
  std::string BC = makeBitcode(writeOne(), "other", ".llvm.lto");
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(BC, "k.bc"), "k.bc")));
  EXPECT_TRUE(Finder.binaries().empty());
}

// Bitcode without !llvm.embedded.objects holds no binaries.
TEST(FindOffloadBinariesObject, BitcodeWithoutEmbeddedObjects) {
  LLVMContext Ctx;
  Module M("plain", Ctx);
  new GlobalVariable(M, Type::getInt32Ty(Ctx), /*isConstant=*/false,
                     GlobalValue::ExternalLinkage,
                     ConstantInt::get(Type::getInt32Ty(Ctx), 1), "x");
  std::string BC;
  raw_string_ostream OS(BC);
  WriteBitcodeToFile(M, OS);
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(MemoryBufferRef(BC, "p.bc"), "p.bc")));
  EXPECT_TRUE(Finder.binaries().empty());
}

// Bytes with the bitcode magic that are not bitcode are an error naming the
// file.
TEST(FindOffloadBinariesObject, BrokenBitcode) {
  std::string BC = std::string("BC\xC0\xDE") + std::string(60, '\x5A');
  OffloadBinaryFinder Finder;
  std::string Msg =
      errorMessage(Finder.addBuffer(MemoryBufferRef(BC, "bad.bc"), "bad.bc"));
  EXPECT_EQ(Msg.rfind("bad.bc: ", 0), 0u) << Msg;
}

// A malformed binary in bitcode names the file and the global.
TEST(FindOffloadBinariesObject, MalformedBitcode) {
  std::string Bin = writeOne();
  put64(Bin, field::EntriesOffset, 8);
  std::string BC = makeBitcode(Bin, "g");
  OffloadBinaryFinder Finder;
  std::string Msg =
      errorMessage(Finder.addBuffer(MemoryBufferRef(BC, "k.bc"), "k.bc"));
  EXPECT_THAT(Msg,
              HasSubstr("k.bc:@g: offset 0x10: entries offset 8 overlaps the "
                        "header"));
}

// Bitcode in an archive: the views outlive the module they were read from.
TEST(FindOffloadBinariesObject, ArchivedBitcode) {
  std::string BC = makeBitcode(writeOne(), "g");
  std::unique_ptr<MemoryBuffer> Lib = makeArchive("k.bc", BC);
  OffloadBinaryFinder Finder;
  ASSERT_TRUE(succeeded(Finder.addBuffer(*Lib, "libk.a")));
  ASSERT_EQ(Finder.binaries().size(), 1u);
  EXPECT_EQ(Finder.binaries()[0].Origin.describe(), "libk.a(k.bc):@g+0x0");
  EXPECT_EQ(Finder.binaries()[0].Binary.Images[0].Image, "IMAGE-BYTES");
  EXPECT_EQ(Finder.binaries()[0].Binary.Images[0].getTriple(),
            "x86_64-pc-linux-gnu");
}

} // namespace

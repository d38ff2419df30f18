//===- CubinResourcesTest.cpp - Cubin kernel resources, hand-made cubins --===//
//
// Small cubins made by yaml2obj's library, shaped like ptxas's output (see
// format/CubinResources.h), then broken one field at a time: every malformed
// input must give an error naming the file, the offset and the problem.
// CubinResourcesPtxasTest.cpp checks the figures against ptxas itself.
//
//===----------------------------------------------------------------------===//

#include "format/CubinResources.h"

#include "../ErrorMatchers.h"
#include "ELFTestObjects.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace offload;

namespace {

// Record bytes, as hex: {u8 format, u8 attribute, u16 value or size}.
constexpr const char *RegCount72 = "042f0800"
                                   "02000000"
                                   "48000000";
constexpr const char *FrameSize1024 = "04110800"
                                      "02000000"
                                      "00040000";
constexpr const char *MinStack1280 = "04120800"
                                     "02000000"
                                     "00050000";
// A device function's record (symbol 1, f) and records not read here.
constexpr const char *OtherRecords = "04110800"
                                     "01000000"
                                     "20000000"
                                     "04230800"
                                     "02000000"
                                     "00000000"
                                     "01350000";
constexpr const char *MaxRegs128 = "031b8000";
constexpr const char *Barriers2 = "024c0200";
constexpr const char *MaxThreads128x2 = "04050c00"
                                        "80000000"
                                        "02000000"
                                        "01000000";
constexpr const char *ExitOffsets = "041c0400"
                                    "10000000";

/// What a test changes in the model cubin: kernel k (symbol 2, .text.k is
/// section 4) and device function f (symbol 1, .text.f is section 5).
struct CubinSpec {
  std::string Type = "ET_EXEC";
  unsigned ABIVersion = 8;
  uint32_t Flags = 0x6005a04; // sm_90, as CUDA 13.0's ptxas writes it.
  std::string GlobalInfo =
      std::string(RegCount72) + FrameSize1024 + MinStack1280 + OtherRecords;
  std::string KernelInfo =
      std::string(MaxRegs128) + Barriers2 + MaxThreads128x2 + ExitOffsets;
  std::string FunctionInfo = ExitOffsets;
  std::string KernelTextInfo = "0";
  std::string FunctionInfoLink = "5";
  std::string SharedSize = "0x500";
  std::string KernelSymbolExtra = "    Section: .text.k\n";
  /// Extra keys of the .nv.info section (ShOffset, ShSize).
  std::string GlobalInfoExtra;
};

std::string makeCubin(const CubinSpec &S) {
  std::string Yaml = "--- !ELF\n"
                     "FileHeader:\n"
                     "  Class: ELFCLASS64\n"
                     "  Data: ELFDATA2LSB\n"
                     "  OSABI: 0x41\n"
                     "  ABIVersion: " +
                     std::to_string(S.ABIVersion) +
                     "\n"
                     "  Type: " +
                     S.Type +
                     "\n"
                     "  Machine: EM_CUDA\n"
                     "Sections:\n"
                     "  - Name: .nv.info\n"
                     "    Type: 0x70000000\n"
                     "    Link: .symtab\n"
                     "    AddressAlign: 4\n"
                     "    Content: \"" +
                     S.GlobalInfo + "\"\n" + S.GlobalInfoExtra +
                     "  - Name: .nv.info.k\n"
                     "    Type: 0x70000000\n"
                     "    Flags: [ SHF_INFO_LINK ]\n"
                     "    Link: .symtab\n"
                     "    Info: 4\n"
                     "    AddressAlign: 4\n"
                     "    Content: \"" +
                     S.KernelInfo +
                     "\"\n"
                     "  - Name: .nv.info.f\n"
                     "    Type: 0x70000000\n"
                     "    Flags: [ SHF_INFO_LINK ]\n"
                     "    Link: .symtab\n"
                     "    Info: " +
                     S.FunctionInfoLink +
                     "\n"
                     "    AddressAlign: 4\n"
                     "    Content: \"" +
                     S.FunctionInfo +
                     "\"\n"
                     "  - Name: .text.k\n"
                     "    Type: SHT_PROGBITS\n"
                     "    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]\n"
                     "    Info: " +
                     S.KernelTextInfo +
                     "\n"
                     "    Content: \"00000000\"\n"
                     "  - Name: .text.f\n"
                     "    Type: SHT_PROGBITS\n"
                     "    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]\n"
                     "    Content: \"00000000\"\n"
                     // SHT_NOBITS as in executables; a raw section in the
                     // YAML, as only those take an sh_info.
                     "  - Name: .nv.shared.k\n"
                     "    Type: 0x7000000a\n"
                     "    ShType: SHT_NOBITS\n"
                     "    Flags: [ SHF_ALLOC, SHF_WRITE, SHF_INFO_LINK ]\n"
                     "    Info: 4\n"
                     "    Size: " +
                     S.SharedSize +
                     "\n"
                     "  - Name: .nv.constant0.k\n"
                     "    Type: SHT_PROGBITS\n"
                     "    Flags: [ SHF_ALLOC, SHF_INFO_LINK ]\n"
                     "    Info: 4\n"
                     "    Size: 0x168\n"
                     "Symbols:\n"
                     "  - Name: f\n"
                     "    Type: STT_FUNC\n"
                     "    Section: .text.f\n"
                     "  - Name: k\n"
                     "    Type: STT_FUNC\n"
                     "    Binding: STB_GLOBAL\n"
                     "    Other: [ 0x10 ]\n" +
                     S.KernelSymbolExtra;
  std::string Obj = testutil::yamlToObject(Yaml);
  // yaml2obj knows no CUDA e_flags by number: set them in place.
  if (Obj.size() >= 0x34)
    support::endian::write32le(&Obj[0x30], S.Flags);
  return Obj;
}

Expected<std::vector<CubinKernelResources>> read(StringRef Bytes) {
  return readCubinResources(MemoryBufferRef(Bytes, "test.cubin"));
}

/// Where section \p Name's bytes, or (\p Header) its header, are in \p Obj.
uint64_t sectionOffset(StringRef Obj, StringRef Name, bool Header = false) {
  auto File = cantFail(object::ELFFile<object::ELF64LE>::create(Obj));
  auto Sections = cantFail(File.sections());
  StringRef Names = cantFail(File.getSectionStringTable(Sections));
  for (size_t I = 0; I < Sections.size(); ++I)
    if (cantFail(File.getSectionName(Sections[I], Names)) == Name)
      return Header ? File.getHeader().e_shoff + I * 64
                    : uint64_t(Sections[I].sh_offset);
  ADD_FAILURE() << "no section " << Name.str();
  return 0;
}

std::string at(uint64_t Offset, StringRef Msg) {
  return ("test.cubin: offset 0x" + utohexstr(Offset) + ": " + Msg).str();
}

TEST(CubinResourcesTest, ReadsEveryFieldOfAKernel) {
  std::string Obj = makeCubin({});
  EXPECT_TRUE(isCubin(Obj));
  auto Kernels = takeOrFail(read(Obj));
  ASSERT_EQ(Kernels.size(), 1u) << "f has no STO_CUDA_ENTRY: not a kernel";
  const CubinKernelResources &K = Kernels[0];
  EXPECT_EQ(K.Name, "k");
  EXPECT_EQ(K.Arch, "sm_90");
  EXPECT_EQ(K.Registers, 72u);
  EXPECT_EQ(K.Barriers, 2u);
  // 0x500 less the 1 KiB that sm_90 executables reserve.
  EXPECT_EQ(K.SharedBytes, 256u);
  EXPECT_EQ(K.LocalBytes, 1024u);
  EXPECT_EQ(K.StackBytes, 1280u);
  EXPECT_EQ(K.ConstantBytes, 0x168u);
  EXPECT_EQ(K.MaxRegisters, std::optional<uint32_t>(128));
  EXPECT_EQ(K.MaxThreadsPerBlock, std::optional<uint32_t>(256));
}

TEST(CubinResourcesTest, AbsentAttributesLeaveDefaults) {
  CubinSpec S;
  S.GlobalInfo = RegCount72;
  S.KernelInfo = "";
  auto Kernels = takeOrFail(read(makeCubin(S)));
  ASSERT_EQ(Kernels.size(), 1u);
  EXPECT_EQ(Kernels[0].Barriers, 0u);
  EXPECT_EQ(Kernels[0].LocalBytes, 0u);
  EXPECT_EQ(Kernels[0].StackBytes, 0u);
  EXPECT_FALSE(Kernels[0].MaxRegisters);
  EXPECT_FALSE(Kernels[0].MaxThreadsPerBlock);
}

TEST(CubinResourcesTest, ReservedSharedMemoryOnlyInSm90Executables) {
  CubinSpec Rel;
  Rel.Type = "ET_REL";
  EXPECT_EQ(takeOrFail(read(makeCubin(Rel))).at(0).SharedBytes, 0x500u);
  CubinSpec Sm80;
  Sm80.Flags = 0x6005004;
  EXPECT_EQ(takeOrFail(read(makeCubin(Sm80))).at(0).SharedBytes, 0x500u);
  CubinSpec Sm100;
  Sm100.Flags = 0x6006402;
  EXPECT_EQ(takeOrFail(read(makeCubin(Sm100))).at(0).SharedBytes, 0x100u);
}

TEST(CubinResourcesTest, RequiredBlockSizeBoundsThreads) {
  CubinSpec S;
  S.KernelInfo = "04100c00"
                 "20000000"
                 "04000000"
                 "01000000"; // .reqntid 32,4
  EXPECT_EQ(takeOrFail(read(makeCubin(S))).at(0).MaxThreadsPerBlock,
            std::optional<uint32_t>(128));
}

TEST(CubinResourcesTest, RegistersFromTextSectionWithoutRegCount) {
  // Cubins older than EIATTR_REGCOUNT keep the count in the top byte of the
  // .text section's sh_info (the rest is the symbol's index).
  CubinSpec S;
  S.GlobalInfo = FrameSize1024;
  S.KernelTextInfo = "0x2a000002";
  EXPECT_EQ(takeOrFail(read(makeCubin(S))).at(0).Registers, 42u);
}

TEST(CubinResourcesTest, ArchFromEitherLayoutOfEFlags) {
  struct Case {
    unsigned ABIVersion;
    uint32_t Flags;
    const char *Arch;
  } Cases[] = {
      // CUDA ELF ABI version 8: the SM in bits 8-15, 0x8 for "a".
      {8, 0x6005a04, "sm_90"},
      {8, 0x6005a0c, "sm_90a"},
      {8, 0x6004b04, "sm_75"},
      {8, 0x6006402, "sm_100"},
      {8, 0x6007902, "sm_121"},
      // Version 7: the SM in bits 0-7, 0x800 for "a".
      {7, 0x5a055a, "sm_90"},
      {7, 0x5a0d5a, "sm_90a"},
      {7, 0x500550, "sm_80"},
      {7, 0x340534, "sm_52"},
  };
  for (const Case &C : Cases) {
    CubinSpec S;
    S.ABIVersion = C.ABIVersion;
    S.Flags = C.Flags;
    std::string Obj = makeCubin(S);
    EXPECT_EQ(takeOrFail(readCubinArch(MemoryBufferRef(Obj, "t"))), C.Arch)
        << utohexstr(C.Flags);
    EXPECT_EQ(takeOrFail(read(Obj)).at(0).Arch, C.Arch);
  }
}

TEST(CubinResourcesTest, LinksToNoSectionAreIgnored) {
  // Found by fuzz-cubin-resources: an sh_info of ~0U, DenseMap's empty key,
  // was looked up as a section index.
  for (const char *Link : {"0xffffffff", "0xfffffffe", "0x50", "0"}) {
    CubinSpec S;
    S.FunctionInfoLink = Link;
    auto Kernels = takeOrFail(read(makeCubin(S)));
    ASSERT_EQ(Kernels.size(), 1u);
    EXPECT_EQ(Kernels[0].MaxRegisters, std::optional<uint32_t>(128)) << Link;
  }
}

TEST(CubinResourcesTest, ReadsFromAnUnalignedBuffer) {
  std::string Obj = makeCubin({});
  std::string Shifted = "x" + Obj;
  auto Kernels = takeOrFail(read(StringRef(Shifted).drop_front()));
  ASSERT_EQ(Kernels.size(), 1u);
  EXPECT_EQ(Kernels[0].Registers, 72u);
}

TEST(CubinResourcesTest, NoSymbolTableMeansNoKernels) {
  std::string Obj = testutil::yamlToObject("--- !ELF\n"
                                           "FileHeader:\n"
                                           "  Class: ELFCLASS64\n"
                                           "  Data: ELFDATA2LSB\n"
                                           "  ABIVersion: 8\n"
                                           "  Type: ET_EXEC\n"
                                           "  Machine: EM_CUDA\n");
  support::endian::write32le(&Obj[0x30], 0x6005a04);
  EXPECT_TRUE(takeOrFail(read(Obj)).empty());
}

TEST(CubinResourcesTest, NotACubin) {
  EXPECT_FALSE(isCubin("hello"));
  EXPECT_EQ(errorMessage(read("hello, world")),
            at(0, "not a cubin: no ELF magic"));
  std::string X86 = testutil::makeX86ELF(testutil::RetTextSectionYaml);
  EXPECT_FALSE(isCubin(X86));
  EXPECT_EQ(errorMessage(read(X86)),
            at(0x12, "not a cubin: e_machine is 62, not EM_CUDA (190)"));
}

TEST(CubinResourcesTest, TruncatedOrForeignHeader) {
  std::string Obj = makeCubin({});
  EXPECT_EQ(errorMessage(read(StringRef(Obj).take_front(40))),
            at(0, "truncated ELF header (40 bytes, need 64)"));
  std::string Class32 = Obj;
  Class32[4] = 1;
  EXPECT_TRUE(isCubin(Class32));
  EXPECT_EQ(errorMessage(read(Class32)),
            at(4, "only 64-bit little-endian cubins are supported"));
}

TEST(CubinResourcesTest, UnknownABIOrNoSM) {
  CubinSpec S;
  S.ABIVersion = 9;
  EXPECT_EQ(errorMessage(read(makeCubin(S))),
            at(8, "unknown CUDA ELF ABI version 9 (expected 8 or less)"));
  S.ABIVersion = 8;
  S.Flags = 0x6000004;
  EXPECT_EQ(errorMessage(read(makeCubin(S))),
            at(0x30, "e_flags 0x6000004 hold no SM version (CUDA ELF ABI "
                     "version 8)"));
  // The same bits read under the first layout.
  S.ABIVersion = 7;
  S.Flags = 0x5a00;
  EXPECT_EQ(errorMessage(readCubinArch(MemoryBufferRef(makeCubin(S), "t"))),
            "t: offset 0x30: e_flags 0x5A00 hold no SM version (CUDA ELF ABI "
            "version 7)");
}

TEST(CubinResourcesTest, SectionTablePastTheEnd) {
  std::string Obj = makeCubin({});
  uint64_t ShOff = support::endian::read64le(&Obj[0x28]);
  std::string Msg = errorMessage(read(StringRef(Obj).take_front(ShOff + 10)));
  EXPECT_EQ(Msg.rfind(at(0x28, "cannot read the section headers: "), 0), 0u)
      << Msg;
}

TEST(CubinResourcesTest, TruncatedRecord) {
  CubinSpec S;
  S.GlobalInfo = std::string(RegCount72) + "0411";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.info") + 12,
               "truncated record in .nv.info (2 bytes left, need 4)"));
}

TEST(CubinResourcesTest, RecordPayloadPastSectionEnd) {
  CubinSpec S;
  S.KernelInfo = std::string(MaxRegs128) + "04050c00"
                                           "80000000";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.info.k") + 6,
               "record payload of 12 bytes runs past the end of .nv.info.k "
               "(4 bytes left)"));
}

TEST(CubinResourcesTest, UnknownRecordFormat) {
  CubinSpec S;
  S.GlobalInfo = std::string(RegCount72) + "072f0000";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.info") + 12,
               "unknown record format 7 in .nv.info (expected 1 to 4)"));
}

TEST(CubinResourcesTest, AttributeOfTheWrongShape) {
  struct Case {
    const char *Global;
    const char *Kernel;
    uint64_t At;
    const char *Msg;
  } Cases[] = {
      {"042f0400"
       "02000000",
       "", 2, "EIATTR_REGCOUNT record holds 4 bytes, expected 8"},
      {"032f0800", "", 0, "EIATTR_REGCOUNT record has format 3, expected 4"},
      {"04110c00"
       "02000000"
       "00000000"
       "00000000",
       "", 2, "EIATTR_FRAME_SIZE record holds 12 bytes, expected 8"},
      {"",
       "04050800"
       "80000000"
       "01000000",
       2, "EIATTR_MAX_THREADS record holds 8 bytes, expected 12"},
      {"",
       "041b0400"
       "ff000000",
       0, "EIATTR_MAXREG_COUNT record has format 4, expected 3"},
      {"", "034c0100", 0,
       "EIATTR_NUM_BARRIERS record has format 3, expected 2"},
  };
  for (const Case &C : Cases) {
    CubinSpec S;
    S.GlobalInfo = C.Global;
    S.KernelInfo = C.Kernel;
    std::string Obj = makeCubin(S);
    uint64_t Base = sectionOffset(Obj, *C.Global ? ".nv.info" : ".nv.info.k");
    EXPECT_EQ(errorMessage(read(Obj)), at(Base + C.At, C.Msg));
  }
}

TEST(CubinResourcesTest, DeviceFunctionSectionsAreChecked) {
  CubinSpec S;
  S.FunctionInfo = "041c0800"
                   "10000000";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.info.f") + 2,
               "record payload of 8 bytes runs past the end of .nv.info.f "
               "(4 bytes left)"));
}

TEST(CubinResourcesTest, SymbolIndexOutOfRange) {
  CubinSpec S;
  S.GlobalInfo = "042f0800"
                 "63000000"
                 "20000000";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.info") + 4,
               "EIATTR_REGCOUNT record names symbol 99, but the symbol table "
               "has 3 entries"));
}

TEST(CubinResourcesTest, KernelInNoSection) {
  CubinSpec S;
  S.KernelSymbolExtra = "    Index: 0x50\n";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".symtab") + 2 * 24,
               "kernel k has section index 80, not one of the 11 sections"));
}

TEST(CubinResourcesTest, SectionPastTheEndOfTheFile) {
  CubinSpec S;
  S.GlobalInfoExtra = "    ShSize: 0x100000\n";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.info", /*Header=*/true),
               "section .nv.info (offset 0x40, 1048576 bytes) runs past the "
               "end of the file (" +
                   std::to_string(Obj.size()) + " bytes)"));
  // An offset so large that offset + size wraps around.
  S.GlobalInfoExtra = "    ShOffset: 0xfffffffffffffff0\n";
  Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.info", /*Header=*/true),
               "section .nv.info (offset 0xFFFFFFFFFFFFFFF0, 64 bytes) runs "
               "past the end of the file (" +
                   std::to_string(Obj.size()) + " bytes)"));
}

TEST(CubinResourcesTest, SharedSectionSmallerThanTheReservedPart) {
  CubinSpec S;
  S.SharedSize = "0x10";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.shared.k", /*Header=*/true) + 0x20,
               "shared memory section of kernel k holds 16 bytes, less than "
               "the 1024 that sm_90 executables reserve at its start"));
}

TEST(CubinResourcesTest, BlockSizeOverflow) {
  CubinSpec S;
  S.KernelInfo = "04050c00"
                 "00000100"
                 "00000100"
                 "01000000";
  std::string Obj = makeCubin(S);
  EXPECT_EQ(errorMessage(read(Obj)),
            at(sectionOffset(Obj, ".nv.info.k") + 4,
               "EIATTR_MAX_THREADS block of 65536 x 65536 x 1 threads does "
               "not fit in 32 bits"));
}

TEST(CubinResourcesTest, EveryTruncationIsAnError) {
  // The section headers come last: every prefix misses some of them.
  std::string Obj = makeCubin({});
  for (size_t Size = 0; Size < Obj.size(); ++Size)
    EXPECT_EQ(errorMessage(read(StringRef(Obj).take_front(Size)))
                  .rfind("test.cubin: offset 0x", 0),
              0u)
        << Size;
}

} // namespace

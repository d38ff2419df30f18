//===- AMDGPUResourcesTest.cpp - Kernel resources of AMDGPU code objects --===//
//
// Code objects made in memory (yaml2obj, with a metadata note written by
// LLVM's msgpack document and a kernel descriptor laid out by hand), read
// back whole and then broken one field at a time: every malformed note,
// descriptor or header must give an error naming the code object, the offset
// and the problem, never a crash. (Real code objects, compared with clang's
// own report, are in test/offload-inspect/resources*.test.)
//
//===----------------------------------------------------------------------===//

#include "format/AMDGPUOccupancy.h"
#include "format/KernelResourceTable.h"
#include "format/KernelResources.h"

#include "ELFTestObjects.h"
#include "unittests/ErrorMatchers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/AMDHSAKernelDescriptor.h"
#include "llvm/Support/Endian.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <functional>

using namespace llvm;
using namespace offload;
using ::testing::HasSubstr;

namespace {

/// What the made code object's one kernel says of itself.
struct Kernel {
  std::function<void(msgpack::MapDocNode &)> EditMetadata;
  uint32_t GroupSegment = 1024, PrivateSegment = 16;
  uint16_t Properties = amdhsa::KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK;
  std::string SymbolName = "_Z6kernelPi.kd";
  uint64_t SymbolValue = 0x1000;
};

/// The msgpack note of one kernel, as LLVM writes it, then \p K's edits.
std::string makeMetadata(const Kernel &K) {
  msgpack::Document Doc;
  msgpack::MapDocNode Root = Doc.getRoot().getMap(/*Convert=*/true);
  Root["amdhsa.target"] = "amdgcn-amd-amdhsa--gfx90a:xnack-";
  msgpack::ArrayDocNode Kernels = Root["amdhsa.kernels"].getArray(true);
  msgpack::MapDocNode Map = Kernels[0].getMap(true);
  Map[".name"] = "_Z6kernelPi";
  Map[".symbol"] = "_Z6kernelPi.kd";
  Map[".sgpr_count"] = 20u;
  Map[".vgpr_count"] = 128u;
  Map[".agpr_count"] = 0u;
  Map[".sgpr_spill_count"] = 1u;
  Map[".vgpr_spill_count"] = 2u;
  Map[".group_segment_fixed_size"] = 1024u;
  Map[".private_segment_fixed_size"] = 16u;
  Map[".uses_dynamic_stack"] = true;
  Map[".wavefront_size"] = 64u;
  Map[".max_flat_workgroup_size"] = 256u;
  if (K.EditMetadata)
    K.EditMetadata(Map);
  std::string Blob;
  Doc.writeToBlob(Blob);
  return Blob;
}

/// A 64-byte kernel descriptor with \p K's segment sizes and properties.
std::string makeDescriptor(const Kernel &K) {
  std::string KD(sizeof(amdhsa::kernel_descriptor_t), '\0');
  auto *At = reinterpret_cast<uint8_t *>(KD.data());
  support::endian::write32le(At + amdhsa::GROUP_SEGMENT_FIXED_SIZE_OFFSET,
                             K.GroupSegment);
  support::endian::write32le(At + amdhsa::PRIVATE_SEGMENT_FIXED_SIZE_OFFSET,
                             K.PrivateSegment);
  support::endian::write16le(At + amdhsa::KERNEL_CODE_PROPERTIES_OFFSET,
                             K.Properties);
  return KD;
}

/// The file header of a gfx90a:xnack- code object v5, after its class and
/// byte order.
constexpr StringLiteral HSAv5Header =
    "  OSABI: ELFOSABI_AMDGPU_HSA\n"
    "  ABIVersion: 3\n"
    "  Flags: [ EF_AMDGPU_MACH_AMDGCN_GFX90A, EF_AMDGPU_FEATURE_XNACK_OFF_V4 "
    "]\n";

/// A code object with one kernel; \p Note replaces the metadata note's
/// bytes, \p HeaderYaml the file header's OS ABI, ABI version and flags.
std::string makeCodeObject(const Kernel &K = Kernel(),
                           std::optional<std::string> Note = std::nullopt,
                           StringRef HeaderYaml = HSAv5Header,
                           StringRef NoteName = "AMDGPU") {
  std::string Desc = Note ? *Note : makeMetadata(K);
  std::string Yaml = "--- !ELF\n"
                     "FileHeader:\n"
                     "  Class: ELFCLASS64\n"
                     "  Data: ELFDATA2LSB\n" +
                     HeaderYaml.str() +
                     "  Type: ET_DYN\n"
                     "  Machine: EM_AMDGPU\n"

                     "Sections:\n"
                     "  - Name: .note\n"
                     "    Type: SHT_NOTE\n"
                     "    AddressAlign: 4\n"
                     "    Notes:\n"
                     "      - Name: " +
                     NoteName.str() +
                     "\n"
                     "        Type: 32\n"
                     "        Desc: \"" +
                     toHex(Desc) +
                     "\"\n"
                     "  - Name: .rodata\n"
                     "    Type: SHT_PROGBITS\n"
                     "    Flags: [ SHF_ALLOC ]\n"
                     "    Address: 0x1000\n"
                     "    AddressAlign: 64\n"
                     "    Content: \"" +
                     toHex(makeDescriptor(K)) +
                     "\"\n"
                     "Symbols:\n"
                     "  - Name: " +
                     K.SymbolName +
                     "\n"
                     "    Type: STT_OBJECT\n"
                     "    Section: .rodata\n"
                     "    Binding: STB_GLOBAL\n"
                     "    Value: 0x" +
                     utohexstr(K.SymbolValue) +
                     "\n"
                     "    Size: 64\n";
  return testutil::yamlToObject(Yaml);
}

std::string readError(StringRef CodeObject) {
  return errorMessage(readKernelResources(CodeObject, "co"));
}

TEST(AMDGPUResources, ReadsNoteAndDescriptor) {
  std::vector<KernelResources> Rows =
      takeOrFail(readKernelResources(makeCodeObject(), "app:co"));
  ASSERT_EQ(Rows.size(), 1u);
  const KernelResources &R = Rows[0];
  EXPECT_EQ(R.Container, "app:co");
  EXPECT_EQ(R.Triple, "amdgcn-amd-amdhsa");
  EXPECT_EQ(R.Arch, "gfx90a:xnack-");
  EXPECT_EQ(R.Name, "_Z6kernelPi");
  EXPECT_EQ(R.SGPRs, 20u);
  EXPECT_EQ(R.VGPRs, 128u);
  EXPECT_EQ(R.AGPRs, 0u);
  EXPECT_EQ(R.SGPRSpills, 1u);
  EXPECT_EQ(R.VGPRSpills, 2u);
  EXPECT_EQ(R.LDSBytes, 1024u);
  EXPECT_EQ(R.ScratchBytes, 16u);
  EXPECT_EQ(R.DynamicStack, true);
  EXPECT_EQ(R.WavefrontSize, 64u);
  EXPECT_EQ(R.MaxWorkgroupSize, 256u);
  // 128 of gfx90a's 512 unified registers per lane: 4 waves per SIMD.
  EXPECT_EQ(R.WavesPerSIMD, 4u);
}

// A code object anywhere in a buffer (inside a bundle, say) is read as one
// at the start of its own.
TEST(AMDGPUResources, ReadsACodeObjectAtAnyAlignment) {
  std::string Shifted = "x" + makeCodeObject();
  std::vector<KernelResources> Rows =
      takeOrFail(readKernelResources(StringRef(Shifted).drop_front(1), "co"));
  ASSERT_EQ(Rows.size(), 1u);
  EXPECT_EQ(Rows[0].VGPRs, 128u);
}

// What the note leaves out stays empty; the descriptor still gives the
// segment sizes.
TEST(AMDGPUResources, OptionalEntriesMayBeMissing) {
  Kernel K;
  K.EditMetadata = [](msgpack::MapDocNode &Map) {
    for (StringRef Key : {".agpr_count", ".sgpr_spill_count",
                          ".vgpr_spill_count", ".group_segment_fixed_size",
                          ".uses_dynamic_stack", ".max_flat_workgroup_size"})
      Map.erase(Map.find(Key));
  };
  std::vector<KernelResources> Rows =
      takeOrFail(readKernelResources(makeCodeObject(K), "co"));
  ASSERT_EQ(Rows.size(), 1u);
  EXPECT_FALSE(Rows[0].AGPRs);
  EXPECT_FALSE(Rows[0].SGPRSpills);
  EXPECT_EQ(Rows[0].LDSBytes, 1024u);
  // Code object v5: the descriptor says whether the stack is dynamic.
  EXPECT_EQ(Rows[0].DynamicStack, true);
  // Without the largest work-group, no occupancy.
  EXPECT_FALSE(Rows[0].WavesPerSIMD);
}

// A processor LLVM 22 does not name (a reserved or newer e_flags value):
// the kernels without occupancy. LLVM's own name lookup must not be asked
// (found by fuzz-kernel-resources: it reached llvm_unreachable).
TEST(AMDGPUResources, UnknownProcessor) {
  // No processor, and one of the values ELF.h reserves (e_flags is at 0x30).
  for (uint32_t Mach : {0x00, 0x40}) {
    std::string CO = makeCodeObject();
    support::endian::write32le(&CO[0x30], Mach);
    std::vector<KernelResources> Rows =
        takeOrFail(readKernelResources(CO, "co"));
    ASSERT_EQ(Rows.size(), 1u);
    EXPECT_EQ(Rows[0].Arch,
              "unknown processor (e_flags 0x" + utohexstr(Mach) + ")");
    EXPECT_EQ(Rows[0].VGPRs, 128u);
    EXPECT_FALSE(Rows[0].WavesPerSIMD);
  }
}

TEST(AMDGPUResources, OtherCodeObjectsHaveNoKernels) {
  EXPECT_TRUE(takeOrFail(readKernelResources("not an ELF file", "f")).empty());
  std::string X86 = testutil::makeX86ELF(testutil::RetTextSectionYaml);
  EXPECT_TRUE(takeOrFail(readKernelResources(X86, "x86.o")).empty());
}

TEST(AMDGPUResources, MalformedMsgpack) {
  std::string Error = readError(makeCodeObject(Kernel(), "\xde\xad\xbe"));
  EXPECT_THAT(Error, HasSubstr("co: offset 0x"));
  EXPECT_THAT(Error, HasSubstr("are not one msgpack document"));
  Error = readError(makeCodeObject(Kernel(), std::string("\x93\x01\x02\x03")));
  EXPECT_THAT(Error, HasSubstr("not a msgpack map"));
}

// LLVM's msgpack document cannot compare map keys that are arrays (found by
// fuzz-kernel-resources: it reached llvm_unreachable): refused before.
TEST(AMDGPUResources, MapKeysThatAreArrays) {
  // {[1]: 1, [2]: 2}, inside the root map and as the root.
  std::string Nested("\x81\xa1x\x82\x91\x01\x01\x91\x02\x02", 10);
  std::string Root("\x82\x91\x01\x01\x91\x02\x02", 7);
  for (const std::string &Note : {Nested, Root})
    EXPECT_THAT(readError(makeCodeObject(Kernel(), Note)),
                HasSubstr("a map key is an array, a map or an extension"));
  // Arrays as values are fine.
  std::string Values("\x82\xa1x\x91\x01\xa1y\x91\x02", 9);
  EXPECT_TRUE(
      takeOrFail(readKernelResources(makeCodeObject(Kernel(), Values), "co"))
          .empty());
}

TEST(AMDGPUResources, EntriesOfTheWrongType) {
  Kernel K;
  K.EditMetadata = [](msgpack::MapDocNode &Map) {
    Map[".vgpr_count"] = "many";
  };
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("kernel '_Z6kernelPi': '.vgpr_count' is not an "
                        "unsigned integer"));
  K.EditMetadata = [](msgpack::MapDocNode &Map) {
    Map[".uses_dynamic_stack"] = 1u;
  };
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("'.uses_dynamic_stack' is not a boolean"));
  K.EditMetadata = [](msgpack::MapDocNode &Map) {
    Map[".sgpr_count"] = uint64_t(1) << 40;
  };
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("more than 32 bits hold"));
  K.EditMetadata = [](msgpack::MapDocNode &Map) {
    Map[".wavefront_size"] = 48u;
  };
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("'.wavefront_size' is 48, not 32 or 64"));
  K.EditMetadata = [](msgpack::MapDocNode &Map) {
    Map.erase(Map.find(".name"));
  };
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("kernel 0 has no '.name'"));
  K.EditMetadata = [](msgpack::MapDocNode &Map) { Map[".name"] = 7u; };
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("kernel 0: '.name' is not a string"));
}

TEST(AMDGPUResources, KernelsThatAreNoList) {
  msgpack::Document Doc;
  Doc.getRoot().getMap(true)["amdhsa.kernels"] = "none";
  std::string Blob;
  Doc.writeToBlob(Blob);
  EXPECT_THAT(readError(makeCodeObject(Kernel(), Blob)),
              HasSubstr("'amdhsa.kernels' is not an array"));
}

TEST(AMDGPUResources, DescriptorMissingOrOutOfPlace) {
  Kernel K;
  K.SymbolName = "other.kd";
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("its descriptor '_Z6kernelPi.kd' is not in the "
                        "symbol table"));
  // 64 bytes from 0x1008 run past .rodata's end.
  K = Kernel();
  K.SymbolValue = 0x1008;
  std::string Error = readError(makeCodeObject(K));
  EXPECT_THAT(
      Error,
      HasSubstr("kernel descriptor '_Z6kernelPi.kd' at 0x1008: its 64 bytes "
                "are not within the contents of section 2"));
  EXPECT_THAT(Error, HasSubstr("co: offset 0x"));
  K.SymbolValue = 0xFFFFFFFFFFFFFFF0;
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("its 64 bytes are not within"));
}

TEST(AMDGPUResources, DescriptorDisagreesWithTheNote) {
  Kernel K;
  K.GroupSegment = 4096;
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("group_segment_fixed_size is 4096 but the metadata "
                        "note's '.group_segment_fixed_size' is 1024"));
  K = Kernel();
  K.PrivateSegment = 0;
  EXPECT_THAT(readError(makeCodeObject(K)),
              HasSubstr("private_segment_fixed_size is 0"));
}

TEST(AMDGPUResources, NoMetadataNote) {
  EXPECT_THAT(readError(makeCodeObject(Kernel(), std::nullopt, HSAv5Header,
                                       "NOTAMDGPU")),
              HasSubstr("co: offset 0x0: AMDGPU code object without an "
                        "NT_AMDGPU_METADATA note"));
}

TEST(AMDGPUResources, HeadersThisReaderDoesNotRead) {
  EXPECT_THAT(
      readError(makeCodeObject(Kernel(), std::nullopt,
                               "  OSABI: ELFOSABI_AMDGPU_PAL\n"
                               "  Flags: [ EF_AMDGPU_MACH_AMDGCN_GFX90A ]\n")),
      HasSubstr("offset 0x7: AMDGPU code object for OS ABI 65, not AMD HSA"));
  EXPECT_THAT(
      readError(makeCodeObject(Kernel(), std::nullopt,
                               "  OSABI: ELFOSABI_AMDGPU_HSA\n"
                               "  ABIVersion: 0\n"
                               "  Flags: [ EF_AMDGPU_MACH_AMDGCN_GFX90A ]\n")),
      HasSubstr("offset 0x8: AMDGPU code object v2"));
}

// A note whose size field says more than its section holds: LLVM's note
// reader stops, and the error names the section.
TEST(AMDGPUResources, NoteSizeBeyondItsSection) {
  std::string CO = makeCodeObject();
  size_t Name = CO.find("AMDGPU\0", 0, 7);
  ASSERT_NE(Name, std::string::npos);
  // The note header (namesz, descsz, type) is just before its name.
  support::endian::write32le(&CO[Name - 8], 0x7FFFFFF0);
  EXPECT_THAT(readError(CO), HasSubstr("co: offset 0x"));
  EXPECT_THAT(readError(CO), HasSubstr("note section: "));
}

TEST(AMDGPUResources, TruncatedCodeObject) {
  std::string CO = makeCodeObject();
  EXPECT_THAT(readError(StringRef(CO).take_front(CO.size() / 2)),
              HasSubstr("co: offset 0x"));
}

TEST(AMDGPUOccupancy, LimitsOfTheProcessor) {
  AMDGPUKernelUsage Usage;
  Usage.SGPRs = 10;
  Usage.VGPRs = 128;
  // gfx90a: 512 unified registers; gfx900: 256; gfx1100 (wave32): 1536,
  // gfx1102: 1024; gfx1100 in wave64 sees half.
  EXPECT_EQ(getAMDGPUWavesPerSIMD("gfx90a", Usage), 4u);
  EXPECT_EQ(getAMDGPUWavesPerSIMD("gfx900", Usage), 2u);
  Usage.WavefrontSize = 32;
  EXPECT_EQ(getAMDGPUWavesPerSIMD("gfx1100", Usage), 10u);
  EXPECT_EQ(getAMDGPUWavesPerSIMD("gfx1102", Usage), 8u);
  Usage.WavefrontSize = 64;
  EXPECT_EQ(getAMDGPUWavesPerSIMD("gfx1100", Usage), 5u);
  // More LDS than a CU has counts as one wave; an unknown processor or
  // wavefront size has no occupancy.
  Usage.VGPRs = 1;
  Usage.LDSBytes = 1 << 20;
  EXPECT_EQ(getAMDGPUWavesPerSIMD("gfx90a", Usage), 1u);
  EXPECT_FALSE(getAMDGPUWavesPerSIMD("gfx9999", Usage));
  Usage.WavefrontSize = 48;
  EXPECT_FALSE(getAMDGPUWavesPerSIMD("gfx90a", Usage));
  // A largest work-group of 0 (a bad note) is one work-item.
  Usage.WavefrontSize = 64;
  Usage.LDSBytes = 0;
  Usage.MaxWorkgroupSize = 0;
  EXPECT_EQ(getAMDGPUWavesPerSIMD("gfx90a", Usage), 8u);
}

TEST(KernelResourceTable, AlignsColumnsAndLeavesOutEmptyOnes) {
  KernelResources A;
  A.Container = "app:gfx90a";
  A.Arch = "gfx90a";
  A.Name = "_Z6kernelPi";
  A.SGPRs = 10;
  A.VGPRs = 128;
  A.LDSBytes = 65536;
  KernelResources B = A;
  B.Name = "plain";
  B.VGPRs = 3;
  B.LDSBytes = std::nullopt;
  std::string Out;
  raw_string_ostream OS(Out);
  printKernelResourceTable(OS, {A, B}, /*Demangle=*/true);
  EXPECT_EQ(Out, "app:gfx90a\n"
                 "  ARCH    SGPRS  VGPRS    LDS  KERNEL\n"
                 "  gfx90a     10    128  65536  kernel(int*)\n"
                 "  gfx90a     10      3      -  plain\n");
  Out.clear();
  printKernelResourceTable(OS, {A}, /*Demangle=*/false);
  EXPECT_THAT(Out, HasSubstr("  _Z6kernelPi\n"));
}

TEST(KernelResourceTable, JSONHasEveryKeyForEveryRow) {
  KernelResources Row;
  Row.Name = "_Z6kernelPi";
  Row.SGPRs = 10;
  std::string Out;
  raw_string_ostream OS(Out);
  json::OStream J(OS);
  writeKernelResourcesJSON(J, Row, /*Demangle=*/true);
  EXPECT_EQ(Out, "{\"container\":\"\",\"triple\":\"\",\"arch\":\"\","
                 "\"kernel\":\"kernel(int*)\",\"mangled_name\":\"_Z6kernelPi\","
                 "\"registers\":null,"
                 "\"sgprs\":10,\"vgprs\":null,\"agprs\":null,"
                 "\"sgpr_spills\":null,\"vgpr_spills\":null,"
                 "\"lds_bytes\":null,\"scratch_bytes\":null,"
                 "\"constant_bytes\":null,\"dynamic_stack\":null,\"wavefront_size\":null,"
                 "\"max_workgroup_size\":null,\"waves_per_simd\":null}");
}

} // namespace

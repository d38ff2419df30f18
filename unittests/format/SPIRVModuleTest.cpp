//===- unittests/format/SPIRVModuleTest.cpp -------------------------------===//
//
// readSPIRVModule() on hand-built modules: the header, the instruction
// stream, the declarations it collects, in either byte order, and the errors
// of malformed modules (file, byte offset, problem).
//
//===----------------------------------------------------------------------===//

#include "format/SPIRVModule.h"

#include "../ErrorMatchers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace offload;

namespace {

using Words = std::vector<uint32_t>;

/// \p S as a SPIR-V literal string: UTF-8, nul-terminated, four bytes to a
/// word with the first in the lowest-order bits, padded with nuls.
Words str(StringRef S) {
  Words Out((S.size() + 4) / 4, 0);
  for (size_t I = 0; I != S.size(); ++I)
    Out[I / 4] |= uint32_t(uint8_t(S[I])) << (8 * (I % 4));
  return Out;
}

/// An instruction: its first word, then \p Operands.
Words inst(uint16_t Opcode, Words Operands) {
  Words Out{uint32_t(Operands.size() + 1) << 16 | Opcode};
  Out.insert(Out.end(), Operands.begin(), Operands.end());
  return Out;
}

Words operator+(Words A, const Words &B) {
  A.insert(A.end(), B.begin(), B.end());
  return A;
}

/// The header of a SPIR-V 1.4 module from the LLVM/SPIR-V Translator (6),
/// version 14, bound 20.
Words header() { return {SPIRVMagic, 0x00010400, 0x0006000e, 20, 0}; }

/// A kernel module as compilers begin one: capabilities, an extension, an
/// extended instruction set import, the memory model, two entry points and
/// an execution mode.
Words goodModule() {
  return header() + inst(17, {6}) + inst(17, {4}) + inst(17, {11}) +
         inst(17, {5892}) + inst(17, {12345}) +
         inst(10, str("SPV_INTEL_kernel_attributes")) +
         inst(11, Words{1} + str("OpenCL.std")) + inst(14, {2, 2}) +
         inst(15, Words{6, 2} + str("_Z6kernelPi") + Words{3, 4}) +
         inst(15, Words{5, 7} + str("main")) + inst(16, {2, 17, 1, 1, 1}) +
         inst(21, {8, 32, 0});
}

std::string bytes(const Words &W, bool BigEndian = false) {
  std::string Out(W.size() * 4, '\0');
  for (size_t I = 0; I != W.size(); ++I) {
    if (BigEndian)
      support::endian::write32be(&Out[I * 4], W[I]);
    else
      support::endian::write32le(&Out[I * 4], W[I]);
  }
  return Out;
}

/// SPIRVModuleReader on \p Data in pieces of \p Piece bytes.
Expected<SPIRVModuleInfo> readInPieces(StringRef Data, StringRef Name,
                                       size_t Piece) {
  SPIRVModuleReader Reader(Name);
  for (size_t At = 0; At < Data.size(); At += Piece)
    if (Error E = Reader.add(Data.substr(At, Piece)))
      return std::move(E);
  return Reader.finish();
}

void expectGood(const SPIRVModuleInfo &Info) {
  EXPECT_EQ(Info.Major, 1);
  EXPECT_EQ(Info.Minor, 4);
  EXPECT_EQ(Info.Generator, 0x0006000eu);
  EXPECT_EQ(Info.getGeneratorTool(), 6);
  EXPECT_EQ(Info.getGeneratorVersion(), 14);
  EXPECT_EQ(getSPIRVGeneratorName(Info.getGeneratorTool()),
            "LLVM/SPIR-V Translator");
  EXPECT_EQ(Info.Bound, 20u);
  EXPECT_EQ(Info.Schema, 0u);
  EXPECT_EQ(Info.Capabilities, (std::vector<uint32_t>{6, 4, 11, 5892, 12345}));
  std::vector<std::string> Names;
  for (uint32_t C : Info.Capabilities)
    Names.push_back(describeSPIRVValue(C, getSPIRVCapabilityName));
  EXPECT_EQ(Names,
            (std::vector<std::string>{"Kernel", "Addresses", "Int64",
                                      "KernelAttributesINTEL", "12345"}));
  EXPECT_EQ(Info.Extensions,
            std::vector<std::string>{"SPV_INTEL_kernel_attributes"});
  ASSERT_TRUE(Info.AddressingModel && Info.MemoryModel);
  EXPECT_EQ(getSPIRVAddressingModelName(*Info.AddressingModel), "Physical64");
  EXPECT_EQ(getSPIRVMemoryModelName(*Info.MemoryModel), "OpenCL");
  ASSERT_EQ(Info.EntryPoints.size(), 2u);
  EXPECT_EQ(getSPIRVExecutionModelName(Info.EntryPoints[0].ExecutionModel),
            "Kernel");
  EXPECT_EQ(Info.EntryPoints[0].Name, "_Z6kernelPi");
  EXPECT_EQ(getSPIRVExecutionModelName(Info.EntryPoints[1].ExecutionModel),
            "GLCompute");
  // A name of a whole number of words: its nul takes a word of its own.
  EXPECT_EQ(Info.EntryPoints[1].Name, "main");
  EXPECT_EQ(Info.InstructionCount, 12u);
}

TEST(SPIRVModuleTest, GoodModule) {
  std::string Data = bytes(goodModule());
  EXPECT_TRUE(isSPIRVModule(Data));
  SPIRVModuleInfo Info = takeOrFail(readSPIRVModule(Data, "k.spv"));
  EXPECT_FALSE(Info.BigEndian);
  expectGood(Info);
}

TEST(SPIRVModuleTest, BigEndian) {
  // Every word, strings' too, byte-swapped: the same module.
  std::string Data = bytes(goodModule(), /*BigEndian=*/true);
  EXPECT_EQ(Data.substr(0, 4), "\x07\x23\x02\x03");
  EXPECT_TRUE(isSPIRVModule(Data));
  SPIRVModuleInfo Info = takeOrFail(readSPIRVModule(Data, "k.spv"));
  EXPECT_TRUE(Info.BigEndian);
  expectGood(Info);
}

TEST(SPIRVModuleTest, HeaderOnly) {
  SPIRVModuleInfo Info = takeOrFail(readSPIRVModule(bytes(header()), "h.spv"));
  EXPECT_EQ(Info.InstructionCount, 0u);
  EXPECT_TRUE(Info.Capabilities.empty());
  EXPECT_FALSE(Info.MemoryModel);
}

TEST(SPIRVModuleTest, NotSPIRV) {
  EXPECT_FALSE(isSPIRVModule("\x03\x02\x23"));
  EXPECT_FALSE(isSPIRVModule("\x7f"
                             "ELF\x02\x01\x01"));
  EXPECT_EQ(errorMessage(readSPIRVModule(std::string(20, 'x'), "x.bin")),
            "x.bin: offset 0x0: bad magic: not a SPIR-V module (expected "
            "0x07230203 in either byte order)");
}

TEST(SPIRVModuleTest, TruncatedHeader) {
  std::string Data = bytes(header()).substr(0, 12);
  EXPECT_TRUE(isSPIRVModule(Data));
  EXPECT_EQ(errorMessage(readSPIRVModule(Data, "t.spv")),
            "t.spv: offset 0x0: truncated SPIR-V header: 12 bytes, the "
            "header needs 20");
}

TEST(SPIRVModuleTest, PartialWord) {
  std::string Data = bytes(goodModule()) + "\x01\x02";
  EXPECT_EQ(errorMessage(readSPIRVModule(Data, "p.spv")),
            "p.spv: offset 0x" + utohexstr(Data.size() - 2) +
                ": SPIR-V module of " + std::to_string(Data.size()) +
                " bytes is not a whole number of 4-byte words");
}

TEST(SPIRVModuleTest, BadVersionWord) {
  Words W = header();
  W[1] = 0x01010000;
  EXPECT_EQ(errorMessage(readSPIRVModule(bytes(W), "v.spv")),
            "v.spv: offset 0x4: SPIR-V version word 0x01010000 is not of the "
            "form 0x00MMmm00");
}

TEST(SPIRVModuleTest, WordCountZero) {
  // Header (20 bytes), OpCapability (8), then a word that says 0 words.
  Words W = header() + inst(17, {6}) + Words{0x0000000e, 2, 2};
  EXPECT_EQ(errorMessage(readSPIRVModule(bytes(W), "z.spv")),
            "z.spv: offset 0x1C: SPIR-V OpMemoryModel has a word count of 0");
  W = header() + Words{0x00001234};
  EXPECT_EQ(errorMessage(readSPIRVModule(bytes(W, true), "z.spv")),
            "z.spv: offset 0x14: SPIR-V instruction with opcode 4660 has a "
            "word count of 0");
}

TEST(SPIRVModuleTest, InstructionPastTheEnd) {
  // An OpEntryPoint that says 9 words; 4 are left.
  Words W = header() + inst(17, {6}) + Words{9u << 16 | 15, 6, 2, 0x6e69616d};
  EXPECT_EQ(errorMessage(readSPIRVModule(bytes(W), "e.spv")),
            "e.spv: offset 0x1C: SPIR-V OpEntryPoint of 9 words runs past "
            "the end of the module (4 words left)");
}

TEST(SPIRVModuleTest, StringWithoutTerminator) {
  // "main" fills its word; the nul word the instruction needs is missing.
  Words W = header() + inst(15, {6, 2, 0x6e69616d}) + inst(17, {6});
  EXPECT_EQ(
      errorMessage(readSPIRVModule(bytes(W), "s.spv")),
      "s.spv: offset 0x20: SPIR-V OpEntryPoint: string operand has no nul "
      "terminator before the end of the instruction");
  // The extension's name runs into the next instruction: not its string.
  W = header() + Words{2u << 16 | 10, 0x5f565053} + str("KHR");
  EXPECT_EQ(errorMessage(readSPIRVModule(bytes(W), "s.spv")),
            "s.spv: offset 0x18: SPIR-V OpExtension: string operand has no nul "
            "terminator before the end of the instruction");
}

TEST(SPIRVModuleTest, StringNotUTF8) {
  Words W = header() + inst(10, {0x00ff41c3});
  EXPECT_EQ(
      errorMessage(readSPIRVModule(bytes(W), "u.spv")),
      "u.spv: offset 0x18: SPIR-V OpExtension: string operand is not valid "
      "UTF-8");
}

TEST(SPIRVModuleTest, OperandCounts) {
  EXPECT_EQ(
      errorMessage(readSPIRVModule(bytes(header() + inst(17, {})), "c.spv")),
      "c.spv: offset 0x14: SPIR-V OpCapability has a word count of 1, expected "
      "2");
  EXPECT_EQ(
      errorMessage(readSPIRVModule(bytes(header() + inst(14, {2})), "c.spv")),
      "c.spv: offset 0x14: SPIR-V OpMemoryModel has a word count of 2, "
      "expected 3");
  EXPECT_EQ(
      errorMessage(
          readSPIRVModule(bytes(header() + inst(15, {6, 2})), "c.spv")),
      "c.spv: offset 0x14: SPIR-V OpEntryPoint has a word count of 3, expected "
      "at least 4");
  EXPECT_EQ(
      errorMessage(readSPIRVModule(
          bytes(header() + inst(14, {2, 2}) + inst(14, {0, 1})), "c.spv")),
      "c.spv: offset 0x20: SPIR-V OpMemoryModel again: a module has one");
}

TEST(SPIRVModuleTest, InPieces) {
  // Pieces that end inside the header, inside words, inside instructions
  // and strings, or hold several instructions.
  for (bool BigEndian : {false, true})
    for (size_t Piece : {1, 2, 3, 5, 7, 8, 13, 64, 4096}) {
      SCOPED_TRACE("piece of " + std::to_string(Piece) +
                   (BigEndian ? ", big-endian" : ""));
      expectGood(takeOrFail(
          readInPieces(bytes(goodModule(), BigEndian), "k.spv", Piece)));
    }
}

TEST(SPIRVModuleTest, ErrorsInPieces) {
  // The same error, wherever the pieces end.
  Words NotUTF8 = header() + inst(10, {0x00ff41c3});
  std::vector<std::string> Bad = {
      std::string("\x03\x02"),
      bytes(header()).substr(0, 12),
      std::string(24, 'x'),
      bytes(goodModule()) + "\x01\x02",
      bytes(header() + inst(17, {6}) + Words{0x0000000e, 2, 2}),
      bytes(header() + inst(17, {6}) + Words{9u << 16 | 15, 6, 2}),
      bytes(header() + inst(15, {6, 2, 0x6e69616d}) + inst(17, {6})),
      bytes(NotUTF8),
      bytes(header() + inst(14, {2, 2}) + inst(14, {0, 1})),
  };
  for (const std::string &Data : Bad) {
    std::string Whole = errorMessage(readSPIRVModule(Data, "b.spv"));
    for (size_t Piece : {1, 3, 4, 6, 9}) {
      SCOPED_TRACE(Whole + ", pieces of " + std::to_string(Piece));
      EXPECT_EQ(errorMessage(readInPieces(Data, "b.spv", Piece)), Whole);
    }
  }
}

TEST(SPIRVModuleTest, StopsAtTheFirstError) {
  // A word count of 0 is an error as soon as its word comes, not at the end
  // of what may be a large stream of junk.
  SPIRVModuleReader Reader("j.spv");
  ASSERT_TRUE(succeeded(Reader.add(bytes(header()))));
  EXPECT_EQ(errorMessage(Reader.add(std::string(4096, '\0'))),
            "j.spv: offset 0x14: SPIR-V instruction with opcode 0 has a word "
            "count of 0");
}

} // namespace

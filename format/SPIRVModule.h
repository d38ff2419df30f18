//===- format/SPIRVModule.h - What a SPIR-V module declares -----*- C++ -*-===//
//
// The header and the module-level declarations of a SPIR-V binary module
// (the Khronos SPIR-V specification, section 2.3 "Physical Layout"), as
// HIP's amdgcnspirv images, SYCL images and OpenCL kernels carry it:
//
//   header        five words: magic 0x07230203, version 0x00MMmm00,
//                 generator (tool ID in the high 16 bits, its version in
//                 the low 16), bound (every ID is below it), schema (0).
//   instructions  back to back to the end of the module: a first word with
//                 the instruction's word count (itself included) in the
//                 high 16 bits and its opcode in the low 16, then operands.
//
// Words are in the byte order of the module, which the magic tells (either
// order is valid). A literal string is UTF-8, nul-terminated, packed four
// bytes to a word, the first byte in the word's lowest-order bits, and
// padded with nuls to a whole word.
//
// The whole instruction stream is walked, so that a module that ends inside
// an instruction is an error; only OpCapability, OpExtension, OpMemoryModel
// and OpEntryPoint are decoded.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_SPIRVMODULE_H
#define LLD_OFFLOAD_FORMAT_SPIRVMODULE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace offload {

/// The SPIR-V magic number, as the first word reads in the module's order.
constexpr uint32_t SPIRVMagic = 0x07230203;

/// An OpEntryPoint.
struct SPIRVEntryPoint {
  /// The execution model (6 Kernel, 5 GLCompute, ...).
  uint32_t ExecutionModel = 0;
  /// The entry point's name (a kernel's mangled name), decoded.
  std::string Name;
};

/// What a module's header and module-level instructions say. Owns its
/// strings: a big-endian module's strings are not its bytes in order.
struct SPIRVModuleInfo {
  bool BigEndian = false;
  uint8_t Major = 0, Minor = 0;
  /// The generator word as stored: tool ID << 16 | the tool's version.
  uint32_t Generator = 0;
  uint32_t Bound = 0;
  uint32_t Schema = 0;
  /// Operands of the OpCapability instructions, in module order.
  std::vector<uint32_t> Capabilities;
  /// The names of the OpExtension instructions, in module order.
  std::vector<std::string> Extensions;
  /// OpMemoryModel's operands; none when the module has no OpMemoryModel.
  std::optional<uint32_t> AddressingModel, MemoryModel;
  std::vector<SPIRVEntryPoint> EntryPoints;
  /// Instructions in the module.
  uint64_t InstructionCount = 0;

  uint16_t getGeneratorTool() const { return Generator >> 16; }
  uint16_t getGeneratorVersion() const { return Generator & 0xffff; }
};

/// True if \p Data starts with the SPIR-V magic number in either byte order.
/// Says nothing about the rest: readSPIRVModule() checks it.
bool isSPIRVModule(llvm::StringRef Data);

/// Reads the SPIR-V module \p Data. Errors name \p Name, the byte offset
/// of the fault in \p Data and the problem (see format/FormatError.h).
llvm::Expected<SPIRVModuleInfo> readSPIRVModule(llvm::StringRef Data,
                                                llvm::StringRef Name);

/// readSPIRVModule() on a module that comes in pieces (inflated from
/// compressed data): it keeps no more than the header or one instruction
/// (at most 65535 words) that a piece ends inside. The same module gives the
/// same answer, in whatever pieces it comes.
class SPIRVModuleReader {
public:
  explicit SPIRVModuleReader(llvm::StringRef Name) : Name(Name.str()) {}

  /// The module's next bytes. After an error, nothing more may be added.
  llvm::Error add(llvm::StringRef Bytes);
  /// After the last piece: what the module declares.
  llvm::Expected<SPIRVModuleInfo> finish();

private:
  /// The size of the header or instruction that starts with \p Head; 0
  /// while \p Head is too short to tell.
  llvm::Expected<uint64_t> unitSize(llvm::StringRef Head) const;
  /// The header or the instruction \p Unit, whole, at offset Offset.
  llvm::Error readUnit(llvm::StringRef Unit);
  llvm::Error readInstruction(llvm::StringRef Inst);
  llvm::Expected<std::string> readString(llvm::StringRef Inst, uint64_t First,
                                         uint16_t Opcode) const;
  uint32_t word(llvm::StringRef Words, uint64_t Index) const;
  /// "<Name>: offset 0x<Offset + At>: SPIR-V <Msg>".
  llvm::Error fail(uint64_t At, const llvm::Twine &Msg) const;

  std::string Name;
  SPIRVModuleInfo Info;
  bool HeaderRead = false;
  /// The offset of the first byte not read yet; Pending's bytes start there.
  uint64_t Offset = 0;
  /// The bytes added so far.
  uint64_t Size = 0;
  /// The start of a header or an instruction that the pieces so far end in.
  std::string Pending;
};

/// The specification's names of capabilities ("Kernel", "Int64"), addressing
/// models ("Physical64"), memory models ("OpenCL") and execution models
/// ("Kernel", "GLCompute") for the values compilers commonly emit; "" for
/// other values.
llvm::StringRef getSPIRVCapabilityName(uint32_t Capability);
llvm::StringRef getSPIRVAddressingModelName(uint32_t Model);
llvm::StringRef getSPIRVMemoryModelName(uint32_t Model);
llvm::StringRef getSPIRVExecutionModelName(uint32_t Model);

/// The name the Khronos registry of SPIR-V generators gives a tool ID
/// ("LLVM/SPIR-V Translator"), for a few common ones; "" for others.
llvm::StringRef getSPIRVGeneratorName(uint16_t Tool);

/// The name of a value as the getSPIRV*Name() function \p GetName gives it,
/// or the value in decimal where it has none.
std::string describeSPIRVValue(uint32_t Value,
                               llvm::StringRef (*GetName)(uint32_t));

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_SPIRVMODULE_H

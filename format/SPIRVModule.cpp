//===- format/SPIRVModule.cpp - What a SPIR-V module declares -------------===//

#include "format/SPIRVModule.h"
#include "format/FormatError.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace llvm;

namespace offload {

static constexpr uint64_t HeaderBytes = 20;

// The opcodes decoded (the specification's section 3.52).
static constexpr uint16_t OpExtension = 10;
static constexpr uint16_t OpMemoryModel = 14;
static constexpr uint16_t OpEntryPoint = 15;
static constexpr uint16_t OpCapability = 17;

static StringRef getOpcodeName(uint16_t Opcode) {
  switch (Opcode) {
  case OpExtension:
    return "OpExtension";
  case OpMemoryModel:
    return "OpMemoryModel";
  case OpEntryPoint:
    return "OpEntryPoint";
  case OpCapability:
    return "OpCapability";
  }
  return "";
}

/// "OpCapability" or "instruction with opcode 123", for messages.
static std::string describeOpcode(uint16_t Opcode) {
  StringRef Name = getOpcodeName(Opcode);
  return Name.empty() ? "instruction with opcode " + std::to_string(Opcode)
                      : Name.str();
}

static Error badMagic(StringRef Name) {
  return formatError(Name, 0,
                     "bad magic: not a SPIR-V module (expected 0x07230203 in "
                     "either byte order)");
}

bool isSPIRVModule(StringRef Data) {
  if (Data.size() < 4)
    return false;
  return support::endian::read32le(Data.data()) == SPIRVMagic ||
         support::endian::read32be(Data.data()) == SPIRVMagic;
}

Error SPIRVModuleReader::fail(uint64_t At, const Twine &Msg) const {
  return formatError(Name, Offset + At, "SPIR-V " + Msg);
}

uint32_t SPIRVModuleReader::word(StringRef Words, uint64_t Index) const {
  const char *P = Words.data() + Index * 4;
  return Info.BigEndian ? support::endian::read32be(P)
                        : support::endian::read32le(P);
}

Expected<uint64_t> SPIRVModuleReader::unitSize(StringRef Head) const {
  if (!HeaderRead)
    return HeaderBytes;
  if (Head.size() < 4)
    return 0;
  uint32_t First = word(Head, 0);
  if ((First >> 16) == 0)
    return fail(0, describeOpcode(First & 0xffff) + " has a word count of 0");
  return uint64_t(First >> 16) * 4;
}

Error SPIRVModuleReader::add(StringRef Bytes) {
  Size += Bytes.size();
  while (!Bytes.empty()) {
    if (Pending.empty()) {
      // Whole units straight from the piece; the start of one it ends in
      // is kept.
      Expected<uint64_t> Need = unitSize(Bytes);
      if (!Need)
        return Need.takeError();
      if (*Need == 0 || *Need > Bytes.size()) {
        Pending.assign(Bytes.begin(), Bytes.end());
        return Error::success();
      }
      if (Error E = readUnit(Bytes.take_front(*Need)))
        return E;
      Offset += *Need;
      Bytes = Bytes.drop_front(*Need);
      continue;
    }
    // Complete the kept unit: its first word, then the rest.
    Expected<uint64_t> Need = unitSize(Pending);
    if (!Need)
      return Need.takeError();
    uint64_t Want = *Need ? *Need : 4;
    size_t Take = std::min<uint64_t>(Bytes.size(), Want - Pending.size());
    Pending.append(Bytes.data(), Take);
    Bytes = Bytes.drop_front(Take);
    if (*Need == 0 || Pending.size() < *Need)
      continue;
    if (Error E = readUnit(Pending))
      return E;
    Offset += *Need;
    Pending.clear();
  }
  return Error::success();
}

Expected<SPIRVModuleInfo> SPIRVModuleReader::finish() {
  if (!HeaderRead) {
    if (!isSPIRVModule(Pending))
      return badMagic(Name);
    return formatError(Name, 0,
                       "truncated SPIR-V header: " + Twine(Size) +
                           " bytes, the header needs " + Twine(HeaderBytes));
  }
  if (Size % 4 != 0)
    return formatError(Name, Size & ~uint64_t(3),
                       "SPIR-V module of " + Twine(Size) +
                           " bytes is not a whole number of 4-byte words");
  if (!Pending.empty()) {
    uint32_t First = word(Pending, 0);
    return fail(0, describeOpcode(First & 0xffff) + " of " +
                       Twine(First >> 16) +
                       " words runs past the end of the module (" +
                       Twine(Pending.size() / 4) + " words left)");
  }
  return std::move(Info);
}

Error SPIRVModuleReader::readUnit(StringRef Unit) {
  if (HeaderRead)
    return readInstruction(Unit);
  if (!isSPIRVModule(Unit))
    return badMagic(Name);
  Info.BigEndian = support::endian::read32le(Unit.data()) != SPIRVMagic;
  uint32_t Version = word(Unit, 1);
  if ((Version & 0xff0000ff) != 0) {
    std::string Hex = utohexstr(Version);
    Hex.insert(0, 8 - Hex.size(), '0');
    return fail(4, "version word 0x" + Hex + " is not of the form 0x00MMmm00");
  }
  Info.Major = (Version >> 16) & 0xff;
  Info.Minor = (Version >> 8) & 0xff;
  Info.Generator = word(Unit, 2);
  Info.Bound = word(Unit, 3);
  Info.Schema = word(Unit, 4);
  HeaderRead = true;
  return Error::success();
}

Expected<std::string> SPIRVModuleReader::readString(StringRef Inst,
                                                    uint64_t First,
                                                    uint16_t Opcode) const {
  std::string S;
  for (uint64_t I = First, E = Inst.size() / 4; I != E; ++I) {
    uint32_t W = word(Inst, I);
    for (int Byte = 0; Byte != 4; ++Byte) {
      char C = char((W >> (8 * Byte)) & 0xff);
      if (C != '\0') {
        S.push_back(C);
        continue;
      }
      if (!json::isUTF8(S))
        return fail(First * 4, getOpcodeName(Opcode) +
                                   ": string operand is not valid UTF-8");
      return S;
    }
  }
  return fail(First * 4, getOpcodeName(Opcode) +
                             ": string operand has no nul terminator before "
                             "the end of the instruction");
}

Error SPIRVModuleReader::readInstruction(StringRef Inst) {
  uint32_t Count = Inst.size() / 4;
  uint16_t Opcode = word(Inst, 0) & 0xffff;
  ++Info.InstructionCount;
  auto CheckCount = [&](uint32_t Expected, bool AtLeast) -> Error {
    if (Count == Expected || (AtLeast && Count > Expected))
      return Error::success();
    return fail(0, getOpcodeName(Opcode) + " has a word count of " +
                       Twine(Count) + ", expected " +
                       (AtLeast ? "at least " : "") + Twine(Expected));
  };
  switch (Opcode) {
  case OpCapability:
    if (Error E = CheckCount(2, false))
      return E;
    Info.Capabilities.push_back(word(Inst, 1));
    break;
  case OpExtension: {
    if (Error E = CheckCount(2, true))
      return E;
    Expected<std::string> S = readString(Inst, 1, Opcode);
    if (!S)
      return S.takeError();
    Info.Extensions.push_back(std::move(*S));
    break;
  }
  case OpMemoryModel:
    if (Error E = CheckCount(3, false))
      return E;
    if (Info.MemoryModel)
      return fail(0, "OpMemoryModel again: a module has one");
    Info.AddressingModel = word(Inst, 1);
    Info.MemoryModel = word(Inst, 2);
    break;
  case OpEntryPoint: {
    // Execution model, function ID, name, then interface IDs.
    if (Error E = CheckCount(4, true))
      return E;
    SPIRVEntryPoint Entry;
    Entry.ExecutionModel = word(Inst, 1);
    Expected<std::string> S = readString(Inst, 3, Opcode);
    if (!S)
      return S.takeError();
    Entry.Name = std::move(*S);
    Info.EntryPoints.push_back(std::move(Entry));
    break;
  }
  default:
    break;
  }
  return Error::success();
}

Expected<SPIRVModuleInfo> readSPIRVModule(StringRef Data, StringRef Name) {
  SPIRVModuleReader Reader(Name);
  if (Error E = Reader.add(Data))
    return std::move(E);
  return Reader.finish();
}

StringRef getSPIRVCapabilityName(uint32_t Capability) {
  // Checked against Debian 12's spirv-as (SPIRV-Tools 2023.1).
  switch (Capability) {
  case 0:
    return "Matrix";
  case 1:
    return "Shader";
  case 2:
    return "Geometry";
  case 3:
    return "Tessellation";
  case 4:
    return "Addresses";
  case 5:
    return "Linkage";
  case 6:
    return "Kernel";
  case 7:
    return "Vector16";
  case 8:
    return "Float16Buffer";
  case 9:
    return "Float16";
  case 10:
    return "Float64";
  case 11:
    return "Int64";
  case 12:
    return "Int64Atomics";
  case 13:
    return "ImageBasic";
  case 14:
    return "ImageReadWrite";
  case 15:
    return "ImageMipmap";
  case 17:
    return "Pipes";
  case 18:
    return "Groups";
  case 19:
    return "DeviceEnqueue";
  case 20:
    return "LiteralSampler";
  case 21:
    return "AtomicStorage";
  case 22:
    return "Int16";
  case 38:
    return "GenericPointer";
  case 39:
    return "Int8";
  case 58:
    return "SubgroupDispatch";
  case 59:
    return "NamedBarrier";
  case 60:
    return "PipeStorage";
  case 61:
    return "GroupNonUniform";
  case 62:
    return "GroupNonUniformVote";
  case 63:
    return "GroupNonUniformArithmetic";
  case 64:
    return "GroupNonUniformBallot";
  case 65:
    return "GroupNonUniformShuffle";
  case 66:
    return "GroupNonUniformShuffleRelative";
  case 67:
    return "GroupNonUniformClustered";
  case 68:
    return "GroupNonUniformQuad";
  case 4423:
    return "SubgroupBallotKHR";
  case 4433:
    return "StorageBuffer16BitAccess";
  case 4434:
    return "UniformAndStorageBuffer16BitAccess";
  case 4441:
    return "VariablePointersStorageBuffer";
  case 4442:
    return "VariablePointers";
  case 4448:
    return "StorageBuffer8BitAccess";
  case 4449:
    return "UniformAndStorageBuffer8BitAccess";
  case 4464:
    return "DenormPreserve";
  case 4465:
    return "DenormFlushToZero";
  case 4466:
    return "SignedZeroInfNanPreserve";
  case 4467:
    return "RoundingModeRTE";
  case 4468:
    return "RoundingModeRTZ";
  case 5008:
    return "Float16ImageAMD";
  case 5016:
    return "Int64ImageEXT";
  case 5055:
    return "ShaderClockKHR";
  case 5345:
    return "VulkanMemoryModel";
  case 5347:
    return "PhysicalStorageBufferAddresses";
  case 5568:
    return "SubgroupShuffleINTEL";
  case 5569:
    return "SubgroupBufferBlockIOINTEL";
  case 5570:
    return "SubgroupImageBlockIOINTEL";
  case 5603:
    return "FunctionPointersINTEL";
  case 5604:
    return "IndirectReferencesINTEL";
  case 5606:
    return "AsmINTEL";
  case 5612:
    return "AtomicFloat32MinMaxEXT";
  case 5613:
    return "AtomicFloat64MinMaxEXT";
  case 5616:
    return "AtomicFloat16MinMaxEXT";
  case 5617:
    return "VectorComputeINTEL";
  case 5629:
    return "ExpectAssumeKHR";
  case 5817:
    return "VariableLengthArrayINTEL";
  case 5821:
    return "FunctionFloatControlINTEL";
  case 5837:
    return "FPFastMathModeINTEL";
  case 5844:
    return "ArbitraryPrecisionIntegersINTEL";
  case 5892:
    return "KernelAttributesINTEL";
  case 5897:
    return "FPGAKernelAttributesINTEL";
  case 6018:
    return "DotProductInput4x8BitPacked";
  case 6019:
    return "DotProduct";
  case 6026:
    return "GroupNonUniformRotateKHR";
  case 6033:
    return "AtomicFloat32AddEXT";
  case 6034:
    return "AtomicFloat64AddEXT";
  case 6094:
    return "OptNoneINTEL";
  case 6095:
    return "AtomicFloat16AddEXT";
  case 6141:
    return "SplitBarrierINTEL";
  case 6400:
    return "GroupUniformArithmeticKHR";
  }
  return "";
}

StringRef getSPIRVAddressingModelName(uint32_t Model) {
  switch (Model) {
  case 0:
    return "Logical";
  case 1:
    return "Physical32";
  case 2:
    return "Physical64";
  case 5348:
    return "PhysicalStorageBuffer64";
  }
  return "";
}

StringRef getSPIRVMemoryModelName(uint32_t Model) {
  switch (Model) {
  case 0:
    return "Simple";
  case 1:
    return "GLSL450";
  case 2:
    return "OpenCL";
  case 3:
    return "Vulkan";
  }
  return "";
}

StringRef getSPIRVExecutionModelName(uint32_t Model) {
  switch (Model) {
  case 0:
    return "Vertex";
  case 1:
    return "TessellationControl";
  case 2:
    return "TessellationEvaluation";
  case 3:
    return "Geometry";
  case 4:
    return "Fragment";
  case 5:
    return "GLCompute";
  case 6:
    return "Kernel";
  case 5267:
    return "TaskNV";
  case 5268:
    return "MeshNV";
  case 5313:
    return "RayGenerationKHR";
  case 5314:
    return "IntersectionKHR";
  case 5315:
    return "AnyHitKHR";
  case 5316:
    return "ClosestHitKHR";
  case 5317:
    return "MissKHR";
  case 5318:
    return "CallableKHR";
  case 5364:
    return "TaskEXT";
  case 5365:
    return "MeshEXT";
  }
  return "";
}

StringRef getSPIRVGeneratorName(uint16_t Tool) {
  // Khronos's registry of generator IDs (SPIRV-Headers' spir-v.xml).
  switch (Tool) {
  case 6:
    return "LLVM/SPIR-V Translator";
  case 7:
    return "SPIR-V Tools Assembler";
  case 8:
    return "Glslang Reference Front End";
  case 17:
    return "SPIR-V Tools Linker";
  case 21:
    return "Clspv";
  case 22:
    return "MLIR SPIR-V Serializer";
  case 43:
    return "LLVM SPIR-V Backend";
  }
  return "";
}

std::string describeSPIRVValue(uint32_t Value, StringRef (*GetName)(uint32_t)) {
  StringRef Name = GetName(Value);
  return Name.empty() ? std::to_string(Value) : Name.str();
}

} // namespace offload

//===- format/CubinResources.cpp - Per-kernel resources of a cubin --------===//

#include "format/CubinResources.h"
#include "format/ELFMachine.h"
#include "format/FormatError.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

using namespace llvm;
using namespace llvm::object;

namespace offload {
namespace {

using ELFT = ELF64LE;
using Shdr = ELFT::Shdr;
using Sym = ELFT::Sym;

// The CUDA ELF ABI's own values; LLVM's ELF.h has none of them.
constexpr uint32_t SHT_CUDA_INFO = 0x70000000;
constexpr uint8_t STO_CUDA_ENTRY = 0x10;
/// What executable cubins for sm_90 and later put at the start of every
/// kernel's shared memory section: the shared memory that the system keeps
/// for itself (CUDA's "reserved shared memory per block").
constexpr uint64_t ReservedSharedBytes = 1024;

// Offsets of ELF64 header and section header fields, for messages.
constexpr uint64_t EFlagsOffset = 0x30;
constexpr uint64_t EShoffOffset = 0x28;
constexpr uint64_t EShstrndxOffset = 0x3e;
constexpr uint64_t ShSizeOffset = 0x20;

enum : uint8_t { EIFMT_NVAL = 1, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL };

enum : uint8_t {
  EIATTR_MAX_THREADS = 0x05,
  EIATTR_REQNTID = 0x10,
  EIATTR_FRAME_SIZE = 0x11,
  EIATTR_MIN_STACK_SIZE = 0x12,
  EIATTR_MAXREG_COUNT = 0x1b,
  EIATTR_REGCOUNT = 0x2f,
  EIATTR_NUM_BARRIERS = 0x4c,
};

const char *attributeName(uint8_t Attr) {
  switch (Attr) {
  case EIATTR_MAX_THREADS:
    return "EIATTR_MAX_THREADS";
  case EIATTR_REQNTID:
    return "EIATTR_REQNTID";
  case EIATTR_FRAME_SIZE:
    return "EIATTR_FRAME_SIZE";
  case EIATTR_MIN_STACK_SIZE:
    return "EIATTR_MIN_STACK_SIZE";
  case EIATTR_MAXREG_COUNT:
    return "EIATTR_MAXREG_COUNT";
  case EIATTR_REGCOUNT:
    return "EIATTR_REGCOUNT";
  case EIATTR_NUM_BARRIERS:
    return "EIATTR_NUM_BARRIERS";
  }
  return "attribute";
}

Error cubinError(StringRef Name, uint64_t Offset, const Twine &Msg) {
  return formatError(Name, Offset, Msg);
}

/// One .nv.info record; Offset is its place in the file.
struct InfoRecord {
  uint8_t Format = 0;
  uint8_t Attribute = 0;
  /// The value of NVAL, BVAL and HVAL records; the payload size of SVAL ones.
  uint16_t Value = 0;
  StringRef Payload;
  uint64_t Offset = 0;

  uint32_t word(size_t I) const {
    return support::endian::read32le(Payload.data() + 4 * I);
  }
};

/// Calls \p Fn on each record of \p Contents, the section \p SecName at file
/// offset \p Base.
Error forEachRecord(StringRef Name, StringRef SecName, StringRef Contents,
                    uint64_t Base, function_ref<Error(const InfoRecord &)> Fn) {
  for (uint64_t At = 0; At < Contents.size();) {
    uint64_t Left = Contents.size() - At;
    if (Left < 4)
      return cubinError(Name, Base + At,
                        "truncated record in " + SecName + " (" + Twine(Left) +
                            " bytes left, need 4)");
    InfoRecord R;
    R.Offset = Base + At;
    R.Format = Contents[At];
    R.Attribute = Contents[At + 1];
    R.Value = support::endian::read16le(Contents.data() + At + 2);
    At += 4;
    switch (R.Format) {
    case EIFMT_NVAL:
    case EIFMT_BVAL:
    case EIFMT_HVAL:
      break;
    case EIFMT_SVAL:
      if (R.Value > Contents.size() - At)
        return cubinError(Name, R.Offset + 2,
                          "record payload of " + Twine(R.Value) +
                              " bytes runs past the end of " + SecName + " (" +
                              Twine(Contents.size() - At) + " bytes left)");
      R.Payload = Contents.substr(At, R.Value);
      At += R.Value;
      break;
    default:
      // Without knowing the format there is no knowing where the next record
      // starts.
      return cubinError(Name, R.Offset,
                        "unknown record format " + Twine(unsigned(R.Format)) +
                            " in " + SecName + " (expected 1 to 4)");
    }
    if (Error E = Fn(R))
      return E;
  }
  return Error::success();
}

/// Checks that \p R, an attribute read here, has the format and payload size
/// that ptxas writes for it.
Error checkShape(StringRef Name, const InfoRecord &R, uint8_t Format,
                 size_t PayloadSize = 0) {
  if (R.Format != Format)
    return cubinError(Name, R.Offset,
                      Twine(attributeName(R.Attribute)) +
                          " record has format " + Twine(unsigned(R.Format)) +
                          ", expected " + Twine(unsigned(Format)));
  if (Format == EIFMT_SVAL && R.Payload.size() != PayloadSize)
    return cubinError(Name, R.Offset + 2,
                      Twine(attributeName(R.Attribute)) + " record holds " +
                          Twine(R.Payload.size()) + " bytes, expected " +
                          Twine(PayloadSize));
  return Error::success();
}

/// The SM a cubin is for, as its ELF header says.
struct SMVersion {
  unsigned SM = 0;
  /// The "a" variant (sm_90a), where e_flags mark it.
  bool Accelerated = false;

  std::string str() const {
    return ("sm_" + Twine(SM) + (Accelerated ? "a" : "")).str();
  }
};

Expected<SMVersion> decodeArch(StringRef Name, StringRef Data) {
  uint8_t ABIVersion = Data[ELF::EI_ABIVERSION];
  uint32_t Flags = support::endian::read32le(Data.data() + EFlagsOffset);
  SMVersion V;
  if (ABIVersion == ELF::ELFABIVERSION_CUDA_V2) {
    V.SM = (Flags & ELF::EF_CUDA_SM_MASK) >> ELF::EF_CUDA_SM_OFFSET;
    V.Accelerated = Flags & ELF::EF_CUDA_ACCELERATORS;
  } else if (ABIVersion < ELF::ELFABIVERSION_CUDA_V2) {
    V.SM = Flags & ELF::EF_CUDA_SM;
    V.Accelerated = Flags & ELF::EF_CUDA_ACCELERATORS_V1;
  } else {
    return cubinError(Name, ELF::EI_ABIVERSION,
                      "unknown CUDA ELF ABI version " +
                          Twine(unsigned(ABIVersion)) +
                          " (expected 8 or less)");
  }
  if (V.SM == 0)
    return cubinError(Name, EFlagsOffset,
                      "e_flags 0x" + utohexstr(Flags) +
                          " hold no SM version (CUDA ELF ABI version " +
                          Twine(unsigned(ABIVersion)) + ")");
  return V;
}

/// Checks what the ELFFile reader takes for granted: a 64-bit little-endian
/// EM_CUDA file with a whole header.
Error checkHeader(StringRef Name, StringRef Data) {
  if (!Data.starts_with(ELF::ElfMagic))
    return cubinError(Name, 0, "not a cubin: no ELF magic");
  if (Data.size() < sizeof(ELFT::Ehdr))
    return cubinError(Name, 0,
                      "truncated ELF header (" + Twine(Data.size()) +
                          " bytes, need 64)");
  if (Data[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      Data[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return cubinError(Name, ELF::EI_CLASS,
                      "only 64-bit little-endian cubins are supported");
  uint16_t Machine = support::endian::read16le(Data.data() + ELFMachineOffset);
  if (Machine != ELF::EM_CUDA)
    return cubinError(Name, ELFMachineOffset,
                      "not a cubin: e_machine is " + Twine(Machine) +
                          ", not EM_CUDA (190)");
  return Error::success();
}

/// A kernel being read, and what is needed to finish it.
struct Kernel {
  CubinKernelResources Res;
  uint32_t TextSection = 0;
  bool HasRegCount = false;
  /// The .nv.shared.<kernel> section, if any: its size and header offset.
  std::optional<uint64_t> SharedSectionSize;
  uint64_t SharedHeaderOffset = 0;
  std::optional<uint32_t> ReqThreads;
};

class Reader {
public:
  Reader(StringRef Name, StringRef Data, const ELFFile<ELFT> &Obj)
      : Name(Name), Data(Data), Obj(Obj) {}

  Expected<std::vector<CubinKernelResources>> read();

private:
  uint64_t headerOffset(size_t Index) const {
    return Obj.getHeader().e_shoff + Index * sizeof(Shdr);
  }
  Expected<StringRef> contents(size_t Index, StringRef SecName) const;
  Error findKernels(const Shdr &Symtab, size_t SymtabIndex);
  Error readGlobalInfo(StringRef SecName, StringRef Contents, uint64_t Base);
  Error readKernelInfo(Kernel &K, StringRef SecName, StringRef Contents,
                       uint64_t Base);
  Expected<uint32_t> threadCount(const InfoRecord &R) const;
  /// The kernel whose .text section is \p TextSection, an sh_info from the
  /// file.
  Kernel *kernelOfSection(uint32_t TextSection) {
    // DenseMap keeps ~0U and ~0U - 1 for itself: look up section indices
    // only.
    if (TextSection >= Sections.size())
      return nullptr;
    auto It = ByTextSection.find(TextSection);
    return It == ByTextSection.end() ? nullptr : &Kernels[It->second];
  }

  StringRef Name;
  StringRef Data;
  const ELFFile<ELFT> &Obj;
  ArrayRef<Shdr> Sections;
  SMVersion Arch;
  size_t NumSymbols = 0;
  std::vector<Kernel> Kernels;
  DenseMap<uint32_t, size_t> BySymbol;
  DenseMap<uint32_t, size_t> ByTextSection;
};

Expected<StringRef> Reader::contents(size_t Index, StringRef SecName) const {
  const Shdr &Sec = Sections[Index];
  if (Sec.sh_type == ELF::SHT_NOBITS)
    return StringRef();
  uint64_t Offset = Sec.sh_offset, Size = Sec.sh_size;
  // Compare against what is left so that the sum cannot overflow.
  if (Offset > Data.size() || Size > Data.size() - Offset)
    return cubinError(Name, headerOffset(Index),
                      "section " + SecName + " (offset 0x" + utohexstr(Offset) +
                          ", " + Twine(Size) +
                          " bytes) runs past the end of the file (" +
                          Twine(Data.size()) + " bytes)");
  return Data.substr(Offset, Size);
}

Error Reader::findKernels(const Shdr &Symtab, size_t SymtabIndex) {
  Expected<ELFFile<ELFT>::Elf_Sym_Range> Syms = Obj.symbols(&Symtab);
  if (!Syms)
    return cubinError(Name, headerOffset(SymtabIndex),
                      "cannot read the symbol table: " +
                          toString(Syms.takeError()));
  Expected<StringRef> StrTab = Obj.getStringTableForSymtab(Symtab, Sections);
  if (!StrTab)
    return cubinError(Name, headerOffset(SymtabIndex),
                      "cannot read the symbol names: " +
                          toString(StrTab.takeError()));
  NumSymbols = Syms->size();
  for (size_t I = 0; I < Syms->size(); ++I) {
    const Sym &S = (*Syms)[I];
    if (S.getType() != ELF::STT_FUNC || !(S.st_other & STO_CUDA_ENTRY))
      continue;
    uint64_t SymOffset = Symtab.sh_offset + I * sizeof(Sym);
    Expected<StringRef> SymName = S.getName(*StrTab);
    if (!SymName)
      return cubinError(Name, SymOffset,
                        "cannot read the name of symbol " + Twine(I) + ": " +
                            toString(SymName.takeError()));
    uint32_t Shndx = S.st_shndx;
    if (Shndx == ELF::SHN_UNDEF || Shndx >= ELF::SHN_LORESERVE ||
        Shndx >= Sections.size())
      return cubinError(Name, SymOffset,
                        "kernel " + *SymName + " has section index " +
                            Twine(Shndx) + ", not one of the " +
                            Twine(Sections.size()) + " sections");
    Kernel K;
    K.Res.Name = SymName->str();
    K.Res.Arch = Arch.str();
    K.TextSection = Shndx;
    BySymbol[I] = Kernels.size();
    ByTextSection[Shndx] = Kernels.size();
    Kernels.push_back(std::move(K));
  }
  return Error::success();
}

Error Reader::readGlobalInfo(StringRef SecName, StringRef Contents,
                             uint64_t Base) {
  return forEachRecord(
      Name, SecName, Contents, Base, [&](const InfoRecord &R) -> Error {
        if (R.Attribute != EIATTR_REGCOUNT &&
            R.Attribute != EIATTR_FRAME_SIZE &&
            R.Attribute != EIATTR_MIN_STACK_SIZE)
          return Error::success();
        // {u32 symbol index, u32 value}; device functions have records too.
        if (Error E = checkShape(Name, R, EIFMT_SVAL, 8))
          return E;
        uint32_t Symbol = R.word(0), Value = R.word(1);
        if (Symbol >= NumSymbols)
          return cubinError(Name, R.Offset + 4,
                            Twine(attributeName(R.Attribute)) +
                                " record names symbol " + Twine(Symbol) +
                                ", but the symbol table has " +
                                Twine(NumSymbols) + " entries");
        auto It = BySymbol.find(Symbol);
        if (It == BySymbol.end())
          return Error::success();
        Kernel &K = Kernels[It->second];
        if (R.Attribute == EIATTR_REGCOUNT) {
          K.Res.Registers = Value;
          K.HasRegCount = true;
        } else if (R.Attribute == EIATTR_FRAME_SIZE) {
          K.Res.LocalBytes = Value;
        } else {
          K.Res.StackBytes = Value;
        }
        return Error::success();
      });
}

Expected<uint32_t> Reader::threadCount(const InfoRecord &R) const {
  // Each factor fits in 32 bits, so no product of two overflows 64.
  uint64_t Count = 1;
  for (size_t I = 0; I < 3; ++I) {
    Count *= R.word(I);
    if (Count > UINT32_MAX)
      return cubinError(Name, R.Offset + 4,
                        Twine(attributeName(R.Attribute)) + " block of " +
                            Twine(R.word(0)) + " x " + Twine(R.word(1)) +
                            " x " + Twine(R.word(2)) +
                            " threads does not fit in 32 bits");
  }
  return uint32_t(Count);
}

Error Reader::readKernelInfo(Kernel &K, StringRef SecName, StringRef Contents,
                             uint64_t Base) {
  return forEachRecord(Name, SecName, Contents, Base,
                       [&](const InfoRecord &R) -> Error {
                         switch (R.Attribute) {
                         case EIATTR_MAX_THREADS:
                         case EIATTR_REQNTID: {
                           if (Error E = checkShape(Name, R, EIFMT_SVAL, 12))
                             return E;
                           Expected<uint32_t> Count = threadCount(R);
                           if (!Count)
                             return Count.takeError();
                           if (R.Attribute == EIATTR_MAX_THREADS)
                             K.Res.MaxThreadsPerBlock = *Count;
                           else
                             K.ReqThreads = *Count;
                           return Error::success();
                         }
                         case EIATTR_MAXREG_COUNT:
                           if (Error E = checkShape(Name, R, EIFMT_HVAL))
                             return E;
                           K.Res.MaxRegisters = R.Value;
                           return Error::success();
                         case EIATTR_NUM_BARRIERS:
                           // A byte value in the low half of the record's 16
                           // bits.
                           if (Error E = checkShape(Name, R, EIFMT_BVAL))
                             return E;
                           K.Res.Barriers = R.Value & 0xff;
                           return Error::success();
                         default:
                           return Error::success();
                         }
                       });
}

Expected<std::vector<CubinKernelResources>> Reader::read() {
  Expected<SMVersion> ArchOrErr = decodeArch(Name, Data);
  if (!ArchOrErr)
    return ArchOrErr.takeError();
  Arch = *ArchOrErr;

  Expected<ArrayRef<Shdr>> SectionsOrErr = Obj.sections();
  if (!SectionsOrErr)
    return cubinError(Name, EShoffOffset,
                      "cannot read the section headers: " +
                          toString(SectionsOrErr.takeError()));
  Sections = *SectionsOrErr;
  Expected<StringRef> SecNames = Obj.getSectionStringTable(Sections);
  if (!SecNames)
    return cubinError(Name, EShstrndxOffset,
                      "cannot read the section names: " +
                          toString(SecNames.takeError()));

  // Kernels first: the sections below refer to them.
  for (size_t I = 0; I < Sections.size(); ++I)
    if (Sections[I].sh_type == ELF::SHT_SYMTAB) {
      if (Error E = findKernels(Sections[I], I))
        return std::move(E);
      break;
    }

  for (size_t I = 0; I < Sections.size(); ++I) {
    const Shdr &Sec = Sections[I];
    Expected<StringRef> SecNameOrErr = Obj.getSectionName(Sec, *SecNames);
    if (!SecNameOrErr)
      return cubinError(Name, headerOffset(I),
                        "cannot read the name of section " + Twine(I) + ": " +
                            toString(SecNameOrErr.takeError()));
    StringRef SecName = *SecNameOrErr;
    bool IsInfo = Sec.sh_type == SHT_CUDA_INFO;
    if (IsInfo && SecName == ".nv.info") {
      Expected<StringRef> Contents = contents(I, SecName);
      if (!Contents)
        return Contents.takeError();
      if (Error E = readGlobalInfo(SecName, *Contents, Sec.sh_offset))
        return std::move(E);
    } else if (IsInfo && SecName.starts_with(".nv.info.")) {
      Expected<StringRef> Contents = contents(I, SecName);
      if (!Contents)
        return Contents.takeError();
      // The sections of device functions are checked, not used.
      Kernel Unused;
      Kernel *K = kernelOfSection(Sec.sh_info);
      if (Error E = readKernelInfo(K ? *K : Unused, SecName, *Contents,
                                   Sec.sh_offset))
        return std::move(E);
    } else if (SecName.starts_with(".nv.shared.")) {
      // Only the size: executables make these SHT_NOBITS, relocatable
      // cubins SHT_CUDA_SHARED, neither with bytes in the file.
      if (Kernel *K = kernelOfSection(Sec.sh_info)) {
        K->SharedSectionSize = Sec.sh_size;
        K->SharedHeaderOffset = headerOffset(I);
      }
    } else if (SecName.starts_with(".nv.constant0.")) {
      if (Kernel *K = kernelOfSection(Sec.sh_info)) {
        if (Expected<StringRef> Contents = contents(I, SecName); !Contents)
          return Contents.takeError();
        K->Res.ConstantBytes = Sec.sh_size;
      }
    }
  }

  bool ReservesShared = Obj.getHeader().e_type == ELF::ET_EXEC && Arch.SM >= 90;
  std::vector<CubinKernelResources> Result;
  Result.reserve(Kernels.size());
  for (Kernel &K : Kernels) {
    // Before EIATTR_REGCOUNT, the count sat in the top byte of the .text
    // section's sh_info; CUDA 13 still puts it there for SMs before sm_90.
    if (!K.HasRegCount)
      K.Res.Registers = Sections[K.TextSection].sh_info >> 24;
    if (!K.Res.MaxThreadsPerBlock)
      K.Res.MaxThreadsPerBlock = K.ReqThreads;
    if (K.SharedSectionSize) {
      uint64_t Size = *K.SharedSectionSize;
      if (ReservesShared) {
        if (Size < ReservedSharedBytes)
          return cubinError(
              Name, K.SharedHeaderOffset + ShSizeOffset,
              "shared memory section of kernel " + K.Res.Name + " holds " +
                  Twine(Size) + " bytes, less than the " +
                  Twine(ReservedSharedBytes) + " that " + Arch.str() +
                  " executables reserve at its start");
        Size -= ReservedSharedBytes;
      }
      K.Res.SharedBytes = Size;
    }
    Result.push_back(std::move(K.Res));
  }
  return std::move(Result);
}

} // namespace

bool isCubin(StringRef Bytes) { return readELFMachine(Bytes) == ELF::EM_CUDA; }

Expected<std::string> readCubinArch(MemoryBufferRef Cubin) {
  StringRef Name = Cubin.getBufferIdentifier();
  if (Error E = checkHeader(Name, Cubin.getBuffer()))
    return std::move(E);
  Expected<SMVersion> V = decodeArch(Name, Cubin.getBuffer());
  if (!V)
    return V.takeError();
  return V->str();
}

Expected<std::vector<CubinKernelResources>>
readCubinResources(MemoryBufferRef Cubin) {
  StringRef Name = Cubin.getBufferIdentifier();
  StringRef Data = Cubin.getBuffer();
  if (Error E = checkHeader(Name, Data))
    return std::move(E);
  // ELFFile reads its structures in place, which needs 8-byte alignment; a
  // cubin at an odd place in a container is read from a copy.
  std::unique_ptr<MemoryBuffer> Copy;
  if (reinterpret_cast<uintptr_t>(Data.data()) % alignof(ELFT::Shdr)) {
    Copy = MemoryBuffer::getMemBufferCopy(Data, Name);
    Data = Copy->getBuffer();
  }
  Expected<ELFFile<ELFT>> Obj = ELFFile<ELFT>::create(Data);
  if (!Obj)
    return cubinError(
        Name, 0, "cannot read the ELF header: " + toString(Obj.takeError()));
  return Reader(Name, Data, *Obj).read();
}

} // namespace offload

//===- format/AMDGPUResources.cpp - Kernels of an AMDGPU code object ------===//

#include "format/AMDGPUResources.h"
#include "format/FormatError.h"

#include "format/AMDGPUOccupancy.h"
#include "format/BundleEntryID.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/AMDHSAKernelDescriptor.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/TargetParser.h"

using namespace llvm;
using namespace llvm::object;

namespace offload {

namespace {

using ELFT = ELF64LE;

/// Errors about one code object, each naming it and an offset in it.
class Problems {
public:
  explicit Problems(StringRef Location) : Location(Location) {}
  Error at(uint64_t Offset, const Twine &What) const {
    return formatError(Location, Offset, What);
  }

private:
  StringRef Location;
};

/// The NT_AMDGPU_METADATA note's msgpack bytes and their file offset.
struct MetadataNote {
  StringRef Desc;
  uint64_t Offset = 0;
};

/// What the note says of one kernel.
struct KernelMetadata {
  std::string Name, Symbol;
  std::optional<uint32_t> SGPRs, VGPRs, AGPRs, SGPRSpills, VGPRSpills;
  std::optional<uint32_t> GroupSegment, PrivateSegment;
  std::optional<uint32_t> WavefrontSize, MaxWorkgroupSize;
  std::optional<bool> DynamicStack;
};

/// The fields of a kernel descriptor this reader uses.
struct KernelDescriptor {
  uint64_t Offset = 0;
  uint32_t GroupSegment = 0, PrivateSegment = 0, Rsrc1 = 0;
  uint16_t Properties = 0;
};

/// Reads the entries of one kernel's map, with errors that name the key.
class KernelMap {
public:
  KernelMap(msgpack::MapDocNode &Map, const Twine &Kernel,
            const Problems &Report, uint64_t NoteOffset)
      : Map(Map), Kernel(Kernel.str()), Report(Report), NoteOffset(NoteOffset) {
  }

  Expected<std::optional<std::string>> string(StringRef Key) {
    msgpack::DocNode *N = find(Key);
    if (!N)
      return std::nullopt;
    if (!N->isString())
      return wrongType(Key, "a string");
    return N->getString().str();
  }

  Expected<std::optional<uint32_t>> uint32(StringRef Key) {
    msgpack::DocNode *N = find(Key);
    if (!N)
      return std::nullopt;
    uint64_t Value;
    if (N->getKind() == msgpack::Type::UInt)
      Value = N->getUInt();
    else if (N->getKind() == msgpack::Type::Int && N->getInt() >= 0)
      Value = N->getInt();
    else
      return wrongType(Key, "an unsigned integer");
    if (Value > UINT32_MAX)
      return Report.at(NoteOffset, "AMDGPU metadata: " + Kernel + ": '" + Key +
                                       "' is " + Twine(Value) +
                                       ", more than 32 bits hold");
    return static_cast<uint32_t>(Value);
  }

  Expected<std::optional<bool>> boolean(StringRef Key) {
    msgpack::DocNode *N = find(Key);
    if (!N)
      return std::nullopt;
    if (N->getKind() != msgpack::Type::Boolean)
      return wrongType(Key, "a boolean");
    return N->getBool();
  }

private:
  msgpack::DocNode *find(StringRef Key) {
    auto It = Map.find(Key);
    if (It == Map.end() || It->second.isEmpty())
      return nullptr;
    return &It->second;
  }

  Error wrongType(StringRef Key, StringRef Expected) const {
    return Report.at(NoteOffset, "AMDGPU metadata: " + Kernel + ": '" + Key +
                                     "' is not " + Expected);
  }

  msgpack::MapDocNode &Map;
  std::string Kernel;
  const Problems &Report;
  uint64_t NoteOffset;
};

} // namespace

/// True if LLVM 22 names the AMDGCN processor \p Mach (e_flags &
/// EF_AMDGPU_MACH): ELFObjectFile's getAMDGPUCPUName() reaches
/// llvm_unreachable, and returns garbage in a release build, for any other
/// value (found by fuzz-kernel-resources), so it is asked only about these.
static bool isNamedAMDGCNMach(unsigned Mach) {
  if (Mach < ELF::EF_AMDGPU_MACH_AMDGCN_FIRST ||
      Mach > ELF::EF_AMDGPU_MACH_AMDGCN_LAST)
    return false;
  // The gap between the last processor and the last generic target.
  if (Mach > ELF::EF_AMDGPU_MACH_AMDGCN_GFX1251 &&
      Mach < ELF::EF_AMDGPU_MACH_AMDGCN_GFX9_4_GENERIC)
    return false;
  return !is_contained({ELF::EF_AMDGPU_MACH_AMDGCN_RESERVED_0X27,
                        ELF::EF_AMDGPU_MACH_AMDGCN_RESERVED_0X40,
                        ELF::EF_AMDGPU_MACH_AMDGCN_RESERVED_0X4B,
                        ELF::EF_AMDGPU_MACH_AMDGCN_RESERVED_0X4D,
                        ELF::EF_AMDGPU_MACH_AMDGCN_RESERVED_0X50,
                        ELF::EF_AMDGPU_MACH_AMDGCN_RESERVED_0X56,
                        ELF::EF_AMDGPU_MACH_AMDGCN_RESERVED_0X57},
                       Mach);
}

/// The processor and the target-ID features that the ELF header's flags fix:
/// "gfx90a:sramecc+:xnack-". Code object v3 marks a feature on or nothing;
/// v4 and later say on, off or either ("any", left out, as in target IDs).
static std::string getTargetID(StringRef Processor, uint32_t Flags,
                               unsigned ABIVersion) {
  TargetID ID;
  ID.Processor = Processor.str();
  if (ABIVersion == ELF::ELFABIVERSION_AMDGPU_HSA_V3) {
    if (Flags & ELF::EF_AMDGPU_FEATURE_SRAMECC_V3)
      ID.setFeature("sramecc", true);
    if (Flags & ELF::EF_AMDGPU_FEATURE_XNACK_V3)
      ID.setFeature("xnack", true);
    return ID.str();
  }
  switch (Flags & ELF::EF_AMDGPU_FEATURE_SRAMECC_V4) {
  case ELF::EF_AMDGPU_FEATURE_SRAMECC_ON_V4:
    ID.setFeature("sramecc", true);
    break;
  case ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4:
    ID.setFeature("sramecc", false);
    break;
  }
  switch (Flags & ELF::EF_AMDGPU_FEATURE_XNACK_V4) {
  case ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4:
    ID.setFeature("xnack", true);
    break;
  case ELF::EF_AMDGPU_FEATURE_XNACK_OFF_V4:
    ID.setFeature("xnack", false);
    break;
  }
  return ID.str();
}

/// The NT_AMDGPU_METADATA notes, in the note sections or, for a file without
/// section headers, the PT_NOTE segments. A code object linked with LTO in
/// partitions (clang's HIP default, --lto-partitions=8) has one per
/// partition, each listing its own kernels; the runtime (comgr) merges them.
static Expected<std::vector<MetadataNote>>
findMetadataNotes(const ELFFile<ELFT> &File, const Problems &Report) {
  std::vector<MetadataNote> Found;
  auto Look = [&](auto Notes, uint64_t HeaderOffset, size_t Align,
                  Error &Err) -> Error {
    for (const ELFT::Note &Note : Notes) {
      if (Note.getName() != "AMDGPU" ||
          Note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      StringRef Desc = Note.getDescAsStringRef(Align);
      Found.push_back(MetadataNote{
          Desc,
          static_cast<uint64_t>(reinterpret_cast<const uint8_t *>(Desc.data()) -
                                File.base())});
    }
    if (Err)
      return Report.at(HeaderOffset,
                       "note section: " + toString(std::move(Err)));
    return Error::success();
  };
  Expected<ELFT::ShdrRange> Sections = File.sections();
  if (!Sections)
    return Report.at(File.getHeader().e_shoff,
                     "section headers: " + toString(Sections.takeError()));
  for (const ELFT::Shdr &Sec : *Sections) {
    if (Sec.sh_type != ELF::SHT_NOTE)
      continue;
    Error Err = Error::success();
    auto Notes = File.notes(Sec, Err);
    if (Error E = Look(Notes, Sec.sh_offset,
                       std::max<size_t>(Sec.sh_addralign, 4), Err))
      return std::move(E);
  }
  if (Sections->empty()) {
    Expected<ELFT::PhdrRange> Segments = File.program_headers();
    if (!Segments)
      return Report.at(File.getHeader().e_phoff,
                       "program headers: " + toString(Segments.takeError()));
    for (const ELFT::Phdr &Seg : *Segments) {
      if (Seg.p_type != ELF::PT_NOTE)
        continue;
      Error Err = Error::success();
      auto Notes = File.notes(Seg, Err);
      if (Error E =
              Look(Notes, Seg.p_offset, std::max<size_t>(Seg.p_align, 4), Err))
        return std::move(E);
    }
  }
  if (!Found.empty())
    return std::move(Found);
  return Report.at(0, "AMDGPU code object without an NT_AMDGPU_METADATA "
                      "note (its kernels' resources are described there)");
}

/// Checks that every map key in \p Blob is a scalar. LLVM's msgpack
/// document keeps a map in a std::map and cannot compare two keys that are
/// arrays, maps or extensions (it reaches llvm_unreachable): such a note
/// must be refused before it is read into one.
static bool hasOnlyScalarMapKeys(StringRef Blob) {
  msgpack::Reader Reader(Blob);
  // For each open array or map, the items still to come (two per map
  // entry) and whether it is a map: in a map, an even count left means the
  // next item is a key.
  struct Open {
    uint64_t ItemsLeft;
    bool IsMap;
  };
  std::vector<Open> Stack;
  msgpack::Object Obj;
  while (true) {
    Expected<bool> Read = Reader.read(Obj);
    if (!Read) {
      consumeError(Read.takeError());
      return true; // malformed: readFromBlob() says so
    }
    if (!*Read)
      return true;
    bool IsKey =
        !Stack.empty() && Stack.back().IsMap && Stack.back().ItemsLeft % 2 == 0;
    bool IsCollection =
        Obj.Kind == msgpack::Type::Array || Obj.Kind == msgpack::Type::Map;
    if (IsKey && (IsCollection || Obj.Kind == msgpack::Type::Extension))
      return false;
    // A collection is an item of the one it is in, counted before its own
    // items are.
    if (!Stack.empty() && --Stack.back().ItemsLeft == 0)
      Stack.pop_back();
    if (IsCollection && Obj.Length != 0)
      Stack.push_back({Obj.Kind == msgpack::Type::Map ? 2 * uint64_t(Obj.Length)
                                                      : uint64_t(Obj.Length),
                       Obj.Kind == msgpack::Type::Map});
  }
}

/// The kernels the note lists, in its order.
static Expected<std::vector<KernelMetadata>>
readMetadata(const MetadataNote &Note, const Problems &Report) {
  if (!hasOnlyScalarMapKeys(Note.Desc))
    return Report.at(Note.Offset,
                     "AMDGPU metadata: a map key is an array, a map or an "
                     "extension; the note's keys are strings");
  msgpack::Document Doc;
  if (!Doc.readFromBlob(Note.Desc, /*Multi=*/false))
    return Report.at(Note.Offset, "AMDGPU metadata: the note's " +
                                      Twine(Note.Desc.size()) +
                                      " bytes are not one msgpack document");
  msgpack::DocNode &Root = Doc.getRoot();
  if (!Root.isMap())
    return Report.at(Note.Offset, "AMDGPU metadata: not a msgpack map");
  auto It = Root.getMap().find("amdhsa.kernels");
  std::vector<KernelMetadata> Kernels;
  if (It == Root.getMap().end())
    return Kernels;
  if (!It->second.isArray())
    return Report.at(Note.Offset,
                     "AMDGPU metadata: 'amdhsa.kernels' is not an array");
  for (auto [I, Node] : enumerate(It->second.getArray())) {
    if (!Node.isMap())
      return Report.at(Note.Offset,
                       "AMDGPU metadata: kernel " + Twine(I) + " is not a map");
    KernelMetadata K;
    KernelMap Map(Node.getMap(), "kernel " + Twine(I), Report, Note.Offset);
    // Each entry read in turn; the first error is the one reported.
    Error Err = Error::success();
    auto Take = [&](auto Value, auto &Into) {
      if (Value)
        Into = std::move(*Value);
      else if (Err)
        consumeError(Value.takeError());
      else
        Err = Value.takeError();
    };
    std::optional<std::string> Name, Symbol;
    Take(Map.string(".name"), Name);
    Take(Map.string(".symbol"), Symbol);
    if (Err)
      return std::move(Err);
    if (!Name || !Symbol)
      return Report.at(Note.Offset, "AMDGPU metadata: kernel " + Twine(I) +
                                        " has no " +
                                        (Name ? "'.symbol'" : "'.name'"));
    K.Name = std::move(*Name);
    K.Symbol = std::move(*Symbol);
    KernelMap Named(Node.getMap(), "kernel '" + K.Name + "'", Report,
                    Note.Offset);
    Take(Named.uint32(".sgpr_count"), K.SGPRs);
    Take(Named.uint32(".vgpr_count"), K.VGPRs);
    Take(Named.uint32(".agpr_count"), K.AGPRs);
    Take(Named.uint32(".sgpr_spill_count"), K.SGPRSpills);
    Take(Named.uint32(".vgpr_spill_count"), K.VGPRSpills);
    Take(Named.uint32(".group_segment_fixed_size"), K.GroupSegment);
    Take(Named.uint32(".private_segment_fixed_size"), K.PrivateSegment);
    Take(Named.uint32(".wavefront_size"), K.WavefrontSize);
    Take(Named.uint32(".max_flat_workgroup_size"), K.MaxWorkgroupSize);
    Take(Named.boolean(".uses_dynamic_stack"), K.DynamicStack);
    if (Err)
      return std::move(Err);
    if (K.WavefrontSize && *K.WavefrontSize != 32 && *K.WavefrontSize != 64)
      return Report.at(Note.Offset, "AMDGPU metadata: kernel '" + K.Name +
                                        "': '.wavefront_size' is " +
                                        Twine(*K.WavefrontSize) +
                                        ", not 32 or 64");
    Kernels.push_back(std::move(K));
  }
  return Kernels;
}

/// Where each of \p Wanted's symbols lies in the file: the file offset of
/// its 64 bytes, which must lie within its section and the file.
static Expected<StringMap<uint64_t>> findDescriptors(const ELFFile<ELFT> &File,
                                                     const StringSet<> &Wanted,
                                                     const Problems &Report) {
  StringMap<uint64_t> Offsets;
  Expected<ELFT::ShdrRange> Sections = File.sections();
  if (!Sections)
    return Report.at(File.getHeader().e_shoff,
                     "section headers: " + toString(Sections.takeError()));
  bool Relocatable = File.getHeader().e_type == ELF::ET_REL;
  for (const ELFT::Shdr &Table : *Sections) {
    if (Table.sh_type != ELF::SHT_SYMTAB && Table.sh_type != ELF::SHT_DYNSYM)
      continue;
    Expected<ELFT::SymRange> Symbols = File.symbols(&Table);
    if (!Symbols)
      return Report.at(Table.sh_offset,
                       "symbol table: " + toString(Symbols.takeError()));
    Expected<StringRef> Strings = File.getStringTableForSymtab(Table);
    if (!Strings)
      return Report.at(Table.sh_offset,
                       "symbol table: " + toString(Strings.takeError()));
    for (auto [I, Sym] : enumerate(*Symbols)) {
      Expected<StringRef> Name = Sym.getName(*Strings);
      if (!Name) {
        consumeError(Name.takeError());
        continue;
      }
      if (!Wanted.contains(*Name) || Offsets.contains(*Name))
        continue;
      uint64_t SymOffset = Table.sh_offset + I * sizeof(ELFT::Sym);
      auto Bad = [&](const Twine &Why) {
        return Report.at(SymOffset, "kernel descriptor '" + *Name + "' " + Why);
      };
      if (Sym.st_shndx == ELF::SHN_UNDEF ||
          Sym.st_shndx >= ELF::SHN_LORESERVE ||
          Sym.st_shndx >= Sections->size())
        return Bad("is in no section of the file (section index " +
                   Twine(unsigned(Sym.st_shndx)) + ")");
      const ELFT::Shdr &Sec = (*Sections)[Sym.st_shndx];
      uint64_t Base = Relocatable ? 0 : uint64_t(Sec.sh_addr);
      uint64_t Value = Sym.st_value;
      if (Sec.sh_type == ELF::SHT_NOBITS || Value < Base ||
          Value - Base > Sec.sh_size ||
          Sec.sh_size - (Value - Base) < sizeof(amdhsa::kernel_descriptor_t) ||
          Sec.sh_offset > File.getBufSize() ||
          File.getBufSize() - Sec.sh_offset < Sec.sh_size)
        return Bad("at 0x" + utohexstr(Value) +
                   ": its 64 bytes are not within the contents of section " +
                   Twine(unsigned(Sym.st_shndx)) + " in the file");
      Offsets[*Name] = Sec.sh_offset + (Value - Base);
    }
  }
  return Offsets;
}

static KernelDescriptor readDescriptor(const ELFFile<ELFT> &File,
                                       uint64_t Offset) {
  const uint8_t *At = File.base() + Offset;
  KernelDescriptor KD;
  KD.Offset = Offset;
  KD.GroupSegment =
      support::endian::read32le(At + amdhsa::GROUP_SEGMENT_FIXED_SIZE_OFFSET);
  KD.PrivateSegment =
      support::endian::read32le(At + amdhsa::PRIVATE_SEGMENT_FIXED_SIZE_OFFSET);
  KD.Rsrc1 = support::endian::read32le(At + amdhsa::COMPUTE_PGM_RSRC1_OFFSET);
  KD.Properties =
      support::endian::read16le(At + amdhsa::KERNEL_CODE_PROPERTIES_OFFSET);
  return KD;
}

/// One kernel's row: the note's counts, the descriptor's segment sizes and
/// modes, and the occupancy they give on \p Processor.
static Expected<KernelResources>
makeRow(const KernelMetadata &K, const KernelDescriptor &KD,
        StringRef Processor, unsigned ABIVersion, const Problems &Report) {
  KernelResources Row;
  Row.Name = K.Name;
  Row.SGPRs = K.SGPRs;
  Row.VGPRs = K.VGPRs;
  Row.AGPRs = K.AGPRs;
  Row.SGPRSpills = K.SGPRSpills;
  Row.VGPRSpills = K.VGPRSpills;
  Row.MaxWorkgroupSize = K.MaxWorkgroupSize;
  auto Disagree = [&](StringRef Field, uint64_t InDescriptor, StringRef Key,
                      uint64_t InNote) {
    return Report.at(
        KD.Offset, "kernel descriptor of '" + K.Name + "': " + Field + " is " +
                       Twine(InDescriptor) + " but the metadata note's '" +
                       Key + "' is " + Twine(InNote));
  };
  if (K.GroupSegment && *K.GroupSegment != KD.GroupSegment)
    return Disagree("group_segment_fixed_size", KD.GroupSegment,
                    ".group_segment_fixed_size", *K.GroupSegment);
  if (K.PrivateSegment && *K.PrivateSegment != KD.PrivateSegment)
    return Disagree("private_segment_fixed_size", KD.PrivateSegment,
                    ".private_segment_fixed_size", *K.PrivateSegment);
  Row.LDSBytes = KD.GroupSegment;
  Row.ScratchBytes = KD.PrivateSegment;

  // GFX10 and later choose the wavefront size and WGP mode per kernel, in
  // the descriptor; earlier processors run wave64 only.
  AMDGPU::IsaVersion ISA = AMDGPU::getIsaVersion(Processor);
  bool GFX10Plus = ISA.Major >= 10;
  std::optional<uint32_t> WaveSize = K.WavefrontSize;
  if (GFX10Plus) {
    uint32_t InDescriptor =
        (KD.Properties & amdhsa::KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32)
            ? 32
            : 64;
    if (WaveSize && *WaveSize != InDescriptor)
      return Disagree("the wavefront size", InDescriptor, ".wavefront_size",
                      *WaveSize);
    WaveSize = InDescriptor;
  }
  Row.WavefrontSize = WaveSize;
  bool WGPMode =
      GFX10Plus && (KD.Rsrc1 & amdhsa::COMPUTE_PGM_RSRC1_GFX10_PLUS_WGP_MODE);
  // The descriptor's bit exists from code object v5.
  Row.DynamicStack = K.DynamicStack;
  if (!Row.DynamicStack && ABIVersion >= ELF::ELFABIVERSION_AMDGPU_HSA_V5)
    Row.DynamicStack =
        (KD.Properties & amdhsa::KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK) != 0;

  if (WaveSize && K.SGPRs && K.VGPRs && K.MaxWorkgroupSize) {
    AMDGPUKernelUsage Usage;
    Usage.WavefrontSize = *WaveSize;
    Usage.WGPMode = WGPMode;
    Usage.SGPRs = *K.SGPRs;
    Usage.VGPRs = *K.VGPRs;
    Usage.LDSBytes = KD.GroupSegment;
    Usage.MaxWorkgroupSize = *K.MaxWorkgroupSize;
    if (std::optional<unsigned> Waves = getAMDGPUWavesPerSIMD(Processor, Usage))
      Row.WavesPerSIMD = *Waves;
  }
  return Row;
}

Expected<std::vector<KernelResources>>
readAMDGPUKernelResources(StringRef Data, StringRef Location) {
  Problems Report(Location);
  // ELF headers are read in place: an image inside a container may sit at
  // any offset, so read a copy then.
  std::unique_ptr<MemoryBuffer> Copy;
  if (!isAddrAligned(Align(8), Data.data())) {
    Copy = MemoryBuffer::getMemBufferCopy(Data, Location);
    Data = Copy->getBuffer();
  }
  if (Data.size() > ELF::EI_CLASS && Data[ELF::EI_CLASS] != ELF::ELFCLASS64)
    return Report.at(ELF::EI_CLASS,
                     "32-bit AMDGPU code object (R600): only 64-bit AMDHSA "
                     "code objects describe their kernels");
  Expected<ELFObjectFile<ELFT>> Obj =
      ELFObjectFile<ELFT>::create(MemoryBufferRef(Data, Location));
  if (!Obj)
    return Report.at(0, "AMDGPU code object: " + toString(Obj.takeError()));
  const ELFFile<ELFT> &File = Obj->getELFFile();
  const ELFT::Ehdr &Header = File.getHeader();
  uint8_t OSABI = Header.e_ident[ELF::EI_OSABI];
  uint8_t ABIVersion = Header.e_ident[ELF::EI_ABIVERSION];
  if (OSABI != ELF::ELFOSABI_AMDGPU_HSA)
    return Report.at(ELF::EI_OSABI,
                     "AMDGPU code object for OS ABI " + Twine(unsigned(OSABI)) +
                         ", not AMD HSA (64): only HSA code objects describe "
                         "their kernels in an NT_AMDGPU_METADATA note");
  if (ABIVersion < ELF::ELFABIVERSION_AMDGPU_HSA_V3)
    return Report.at(ELF::EI_ABIVERSION,
                     "AMDGPU code object v2, whose metadata is YAML in an "
                     "older note: only code objects v3 and later are read");
  unsigned Mach = Header.e_flags & ELF::EF_AMDGPU_MACH;
  StringRef Processor;
  if (isNamedAMDGCNMach(Mach))
    Processor = Obj->tryGetCPUName().value_or(StringRef());
  std::string Arch =
      Processor.empty()
          ? "unknown processor (e_flags 0x" + utohexstr(Mach) + ")"
          : getTargetID(Processor, Header.e_flags, ABIVersion);

  Expected<std::vector<MetadataNote>> Notes = findMetadataNotes(File, Report);
  if (!Notes)
    return Notes.takeError();
  // Each kernel, and the offset of the note that lists it.
  std::vector<std::pair<KernelMetadata, uint64_t>> Kernels;
  for (const MetadataNote &Note : *Notes) {
    Expected<std::vector<KernelMetadata>> Listed = readMetadata(Note, Report);
    if (!Listed)
      return Listed.takeError();
    for (KernelMetadata &K : *Listed)
      Kernels.emplace_back(std::move(K), Note.Offset);
  }
  StringSet<> Symbols;
  for (const auto &[K, NoteOffset] : Kernels)
    Symbols.insert(K.Symbol);
  Expected<StringMap<uint64_t>> Descriptors =
      findDescriptors(File, Symbols, Report);
  if (!Descriptors)
    return Descriptors.takeError();

  std::vector<KernelResources> Rows;
  for (const auto &[K, NoteOffset] : Kernels) {
    auto It = Descriptors->find(K.Symbol);
    if (It == Descriptors->end())
      return Report.at(NoteOffset, "AMDGPU metadata: kernel '" + K.Name +
                                         "': its descriptor '" + K.Symbol +
                                         "' is not in the symbol table");
    Expected<KernelResources> Row = makeRow(K, readDescriptor(File, It->second),
                                            Processor, ABIVersion, Report);
    if (!Row)
      return Row.takeError();
    Row->Container = Location.str();
    Row->Triple = "amdgcn-amd-amdhsa";
    Row->Arch = Arch;
    Rows.push_back(std::move(*Row));
  }
  return Rows;
}

} // namespace offload

//===- lld-plugin/DeviceInputs.cpp - Device code in a link's inputs -------===//

#include "lld-plugin/DeviceInputs.h"
#include "format/CheckedArchive.h"
#include "lld-plugin/DevicePlan.h"

#include "format/BundleEntryID.h"
#include "format/NvccModule.h"
#include "format/ObjectBundle.h"
#include "format/OffloadBundle.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/IRObjectFile.h"
#include "llvm/Object/SymbolicFile.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;
using namespace llvm::object;

namespace offload {

/// Where a relocatable link (--offload-relocatable=link) keeps the images it
/// has linked and registered.
static constexpr StringRef RelocatableImagesSection =
    ".llvm.offloading.relocatable";

static Error inputError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
}

/// The offload kind whose images a runtime entry point registers: a call
/// marks an object that registers images of that kind.
static std::optional<OffloadKind> registeredKind(StringRef Name) {
  if (Name == "__tgt_register_lib")
    return OffloadKind::OpenMP;
  if (Name == "__cudaRegisterFatBinary")
    return OffloadKind::Cuda;
  if (Name == "__hipRegisterFatBinary")
    return OffloadKind::HIP;
  return std::nullopt;
}

/// The start of an offload entries section, which a new-driver registration
/// walks: llvm_offload_entries (LLVM 20 and later) or the older per-kind
/// omp_/cuda_/hip_offloading_entries.
static bool isOffloadEntriesStart(StringRef Name) {
  return Name == "__start_llvm_offload_entries" ||
         Name == "__start_omp_offloading_entries" ||
         Name == "__start_cuda_offloading_entries" ||
         Name == "__start_hip_offloading_entries";
}

Error DeviceInputs::scanLoadedInputs(const LoadedInputs &Loaded,
                                     const LinkInputs *Index) {
  this->Index = Index;
  ArchivePaths = Loaded.Archives;
  std::vector<Candidate> Found;
  for (StringRef Line : Loaded.Files) {
    TraceName Name = splitTraceName(Line);
    bool IsMember = !Name.Member.empty();
    unsigned Occurrence = IsMember ? LoadedMembers.next(Line) : 0;
    // An object of the program's own, not the C runtime's (which nvcc's
    // link does not give nvlink).
    StringRef File = sys::path::filename(Line);
    bool Own = !IsMember && File.ends_with(".o") && !File.starts_with("crt") &&
               !File.ends_with("crt1.o");
    if (Index && !Index->mayHoldDeviceCode(Line, Occurrence)) {
      ObjectsBesideNvcc |= Own;
      continue;
    }
    MemoryBufferRef Buffer;
    const ArchiveMember *Member = nullptr;
    if (IsMember) {
      Expected<const ArchiveMember *> Found =
          archiveMember(Name.Path, Name.Member, Occurrence);
      if (!Found)
        return Found.takeError();
      Member = *Found;
      Expected<MemoryBufferRef> Data = Member->data();
      if (!Data)
        return Data.takeError();
      Buffer = *Data;
    } else {
      ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
          Line, /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (std::error_code EC = File.getError())
        return inputError(Line, "cannot read: " + EC.message());
      Buffer = **File;
      Files.push_back(std::move(*File));
    }
    size_t First = Found.size();
    if (Error E = scanInput(Buffer, Line, &Found, /*Loaded=*/true))
      return E;
    ObjectsBesideNvcc |=
        Own && llvm::none_of(MutableArrayRef(Found).drop_front(First),
                             [](const Candidate &C) {
                               return !C.Found.NvccObject.empty();
                             });
    if (Member)
      placeArchiveMember(MutableArrayRef(Found).drop_front(First), Name.Path,
                         Member->index());
  }
  llvm::erase_if(HIPUnits, [&](const std::string &CUID) {
    return HIPUnitsDefined.contains(CUID);
  });
  llvm::erase_if(Found, [&](const Candidate &C) { return linkedAlready(C); });
  // Everything loaded is linked, but for the kinds an input registers.
  for (Candidate &C : Found)
    if (Error E = take(C))
      return E;
  return Error::success();
}

Expected<const ArchiveMemberIndex *> DeviceInputs::openArchive(StringRef Path) {
  auto It = Archives.find(Path);
  if (It != Archives.end())
    return &It->second.Members;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Buffer.getError())
    return inputError(Path, "cannot read: " + EC.message());
  Expected<std::unique_ptr<Archive>> Lib = createCheckedArchive(**Buffer);
  if (!Lib)
    return inputError(Path, toString(Lib.takeError()));
  Files.push_back(std::move(*Buffer));
  // The members name the archive by the map's key, which stays.
  StringRef Name = Archives.try_emplace(Path).first->first();
  Expected<ArchiveMemberIndex> Members = ArchiveMemberIndex::read(**Lib, Name);
  if (!Members) {
    Archives.erase(Name);
    return Members.takeError();
  }
  OpenArchive &Open = Archives.find(Path)->second;
  Open.Lib = std::move(*Lib);
  Open.Members = std::move(*Members);
  return &Open.Members;
}

Expected<const ArchiveMember *>
DeviceInputs::archiveMember(StringRef ArchivePath, StringRef Member,
                            unsigned Occurrence) {
  Expected<const ArchiveMemberIndex *> Lib = openArchive(ArchivePath);
  if (!Lib)
    return Lib.takeError();
  if (const ArchiveMember *Found = (*Lib)->find(Member, Occurrence))
    return Found;
  return inputError((ArchivePath + "(" + Member + ")").str(),
                    "member not found in the archive LLD loaded it from");
}

void DeviceInputs::placeArchiveMember(MutableArrayRef<Candidate> Found,
                                      StringRef Path, size_t Index) const {
  // clang-linker-wrapper takes the members of an archive under
  // --whole-archive as objects.
  if (this->Index && this->Index->wholeArchive(Path))
    return;
  // Archives in the order the link searched them (the command line's);
  // one only a linker script names, after them.
  size_t Archive = llvm::find(ArchivePaths, Path) - ArchivePaths.begin();
  for (Candidate &C : Found)
    C.Found.ArchivePlace = {Archive, Index};
}

/// Adds to \p Targets the symbols, defined in \p Obj (named \p Name), that
/// the address fields of its offload entries refer to (in
/// llvm_offload_entries, or a relocatable link's
/// llvm_offload_entries_<hash>).
static void addEntryTargets(const ObjectFile &Obj, StringRef Name,
                            DeviceInputs::EntryTargets &Targets) {
  // An entry (llvm/Frontend/Offloading/Utility.h, LLVM 22): {u64 reserved;
  // u16 version, kind; u32 flags; ptr address; ptr name; u64 size, data;
  // ptr aux_addr}.
  constexpr uint64_t EntrySize = 56, AddressField = 16;
  for (const SectionRef &Rel : Obj.sections()) {
    Expected<section_iterator> Target = Rel.getRelocatedSection();
    if (!Target) {
      consumeError(Target.takeError());
      continue;
    }
    if (*Target == Obj.section_end())
      continue;
    Expected<StringRef> TargetName = (*Target)->getName();
    if (!TargetName || !TargetName->starts_with("llvm_offload_entries")) {
      consumeError(TargetName.takeError());
      continue;
    }
    for (const RelocationRef &R : Rel.relocations()) {
      if (R.getOffset() % EntrySize != AddressField)
        continue;
      symbol_iterator Sym = R.getSymbol();
      if (Sym == Obj.symbol_end())
        continue;
      Expected<uint32_t> Flags = Sym->getFlags();
      Expected<StringRef> SymName = Sym->getName();
      if (Flags && SymName && !(*Flags & SymbolRef::SF_Undefined)) {
        if (*Flags & SymbolRef::SF_Global)
          Targets.Global.push_back(SymName->str());
        else
          Targets.Unnamed.push_back((Name + "(" + *SymName + ")").str());
      }
      consumeError(Flags.takeError());
      consumeError(SymName.takeError());
    }
  }
}

Error DeviceInputs::scanInput(MemoryBufferRef Buffer, StringRef Name,
                              std::vector<Candidate> *Found, bool Loaded) {
  file_magic Magic = identify_magic(Buffer.getBuffer());
  // Shared libraries register their own images; linker scripts and other
  // files hold none.
  if (Magic != file_magic::elf_relocatable && Magic != file_magic::bitcode)
    return Error::success();

  bool CallsRegistration = false;
  bool RegistersOffloadEntries = false;
  // The offload kinds whose registration functions this input calls.
  SmallVector<OffloadKind, 3> Registers;
  if (Magic == file_magic::elf_relocatable) {
    Expected<std::unique_ptr<ObjectFile>> Obj =
        ObjectFile::createObjectFile(Buffer);
    if (!Obj)
      return inputError(Name, toString(Obj.takeError()));
    // Most inputs (every libc and libgcc member) carry no device code and no
    // registration: the section headers say so before anything else is read.
    bool HasDeviceCode = false;
    for (const SectionRef &Sec : (*Obj)->sections()) {
      Expected<StringRef> SecName = Sec.getName();
      if (!SecName)
        return inputError(Name, toString(SecName.takeError()));
      ELFSectionRef ELFSec(Sec);
      if (!isDeviceCodeSection(*SecName, ELFSec.getType(), ELFSec.getFlags()))
        continue;
      HasDeviceCode = true;
      if (SecName->starts_with(BundleMagic))
        if (Error E = addBundleSection(Sec, *SecName, Buffer, Name, Found))
          return E;
    }
    if (!HasDeviceCode)
      return Error::success();
    if (Loaded)
      addEntryTargets(**Obj, Name, Targets);
    // The nvcc module the host code registers, if any.
    std::string RegistersNvccModule;
    for (const SymbolRef &Sym : (*Obj)->symbols()) {
      Expected<uint32_t> Flags = Sym.getFlags();
      Expected<StringRef> SymName = Sym.getName();
      if (!Flags || !SymName) {
        consumeError(Flags.takeError());
        consumeError(SymName.takeError());
        continue;
      }
      if (!(*Flags & SymbolRef::SF_Undefined)) {
        // clang --hip-link links old-driver units' device code itself and
        // defines their fat binaries: those units need nothing from us.
        StringRef CUID = *SymName;
        if (CUID.consume_front("__hip_fatbin_"))
          HIPUnitsDefined.insert(CUID);
        // So does nvcc -dlink for the nvcc modules it linked.
        StringRef Module = *SymName;
        if (Module.consume_front(NvccRegisterLinkedPrefix))
          NvccModulesLinked.insert(Module);
        continue;
      }
      if (std::optional<OffloadKind> Kind = registeredKind(*SymName)) {
        CallsRegistration = true;
        Registers.push_back(*Kind);
        CallsOpenMPRegistration |= *Kind == OffloadKind::OpenMP;
      }
      RegistersOffloadEntries |= isOffloadEntriesStart(*SymName);
      if (SymName->starts_with(NvccRegisterLinkedPrefix))
        RegistersNvccModule = *SymName;
      // Old-driver HIP units (-fgpu-rdc) leave their fat binary and module
      // handle, named after the unit, for the link to define.
      StringRef CUID = *SymName;
      if ((CUID.consume_front("__hip_fatbin_") ||
           CUID.consume_front("__hip_gpubin_handle_")) &&
          HIPUnitSet.insert(CUID).second)
        HIPUnits.push_back(CUID.str());
    }
    if (Error E =
            addNvccModule(**Obj, Buffer, Name, RegistersNvccModule, Found))
      return E;
  }

  // The new offload driver's wrapper object (clang-linker-wrapper's, for
  // HIP and CUDA too) registers every image of the link's offload entries
  // section: with one among the inputs, nothing is left to register.
  auto NoteRegistrar = [&] {
    for (OffloadKind Kind : Registers)
      RegisteredKinds.try_emplace(Kind, Name.str());
  };
  if (CallsRegistration && RegistersOffloadEntries)
    NoteRegistrar();

  size_t Before = Finder.binaries().size();
  if (Error E = Finder.addBuffer(Buffer, Name))
    return E;
  if (Loaded && Magic == file_magic::bitcode &&
      Finder.binaries().size() != Before)
    Targets.Unnamed.push_back((Name + " (host bitcode)").str());
  for (size_t B = Before; B != Finder.binaries().size(); ++B) {
    const FoundOffloadBinary &Bin = Finder.binaries()[B];
    // Images a relocatable link already linked and registered.
    if (Bin.Origin.Section == RelocatableImagesSection)
      continue;
    // An object that embeds images and registers them (clang-linker-wrapper's
    // or offload-wrapper's output) means this link's images are taken care
    // of: they must not be registered a second time.
    if (CallsRegistration) {
      NoteRegistrar();
      continue;
    }
    for (size_t I = 0; I != Bin.Binary.Images.size(); ++I)
      Found->push_back(
          {{Bin.Binary.Images[I], Name.str(), Bin.Origin.describe()},
           /*Taken=*/false,
           B,
           I,
           /*Defines=*/std::nullopt});
  }
  return Error::success();
}

Error DeviceInputs::addBundleSection(const SectionRef &Sec, StringRef SecName,
                                     MemoryBufferRef Object, StringRef Name,
                                     std::vector<Candidate> *Found) {
  // An object made by clang-offload-bundler -type=o: the section holds one
  // entry's file, named by its bundle entry ID
  // <kind>-<arch>-<vendor>-<os>-<env>[-<target ID>]; the host entry is a
  // placeholder.
  StringRef IDText = SecName.drop_front(BundleMagic.size());
  std::string Where = (Name + ":" + SecName).str();
  Expected<BundleEntryID> ID = readBundleSectionID(SecName);
  if (!ID)
    return inputError(Where, toString(ID.takeError()));
  if (ID->isHost())
    return Error::success();
  OffloadKind Kind = StringSwitch<OffloadKind>(ID->Kind)
                         .Case("openmp", OffloadKind::OpenMP)
                         .Cases({"hip", "hipv4"}, OffloadKind::HIP)
                         .Default(OffloadKind::None);
  if (Kind == OffloadKind::None)
    return inputError(Where, "unknown offload kind '" + ID->Kind +
                                 "' in bundle entry ID '" + IDText + "'");
  Expected<StringRef> Contents = readBundleSectionContents(Sec, Object);
  if (!Contents)
    return inputError(Where, toString(Contents.takeError()));
  OffloadImage Image;
  Image.TheOffloadKind = Kind;
  file_magic Magic = identify_magic(*Contents);
  Image.TheImageKind = Magic == file_magic::bitcode ? ImageKind::Bitcode
                       : Magic == file_magic::elf_relocatable
                           ? ImageKind::Object
                           : ImageKind::None;
  Image.Image = *Contents;
  // Entry IDs spell AMDHSA triples with an empty environment
  // ("amdgcn-amd-amdhsa-"), which names nothing: drop it.
  std::string TripleText = ID->TargetTriple.str();
  if (StringRef(TripleText).ends_with("-"))
    TripleText.pop_back();
  // HIP's portable image is SPIR-V bitcode, whatever the entry says: clang's
  // old driver names it "hip-amdgcn-amd-amdhsa--amdgcnspirv" beside native
  // code objects, "hip-spirv64-amd-amdhsa--amdgcnspirv" alone.
  if (ID->TargetIDText == "amdgcnspirv")
    TripleText = "spirv64-amd-amdhsa";
  Image.Strings = {
      {"triple", Saver.save(TripleText)},
      {"arch",
       Saver.save(ID->TargetIDText.empty() ? "generic" : ID->TargetIDText)}};
  Found->push_back({{Image, Name.str(), Where, /*FromBundle=*/true},
                    /*Taken=*/false,
                    /*Binary=*/0,
                    /*Index=*/0,
                    /*Defines=*/std::nullopt});
  return Error::success();
}

Error DeviceInputs::addNvccModule(const ObjectFile &Obj, MemoryBufferRef Object,
                                  StringRef Name, StringRef Registers,
                                  std::vector<Candidate> *Found) {
  Expected<std::optional<NvccModuleCode>> Code = readNvccModuleCode(Obj, Name);
  if (!Code)
    return Code.takeError();
  // Host code of -rdc whose device code is gone (stripped, or a section
  // dropped): its registration would be undefined, and its kernels absent.
  if (!*Code && !Registers.empty())
    return inputError(Name, "its host code registers an nvcc module (" +
                                Registers +
                                ") but it has no relocatable device code "
                                "(no " +
                                NvccRelocatableSection + " section)");
  if (!*Code)
    return Error::success();
  // The CUDA device runtime is nvlink's library (-lcudadevrt), which it
  // takes what it needs of: its host part is linked when our registration
  // refers to it.
  if (isCudaDeviceRuntime(splitTraceName(Name).Path))
    return Error::success();
  std::string Where = (Name + ":" + NvccRelocatableSection).str();
  // An image per cubin, and per PTX of an arch the unit has no cubin for
  // (nvlink compiles it): what device code needs of the unit is read from
  // them; nvlink is given the whole object.
  StringSet<> Cubins;
  for (const NvccModuleImage &I : (*Code)->Images)
    if (!I.IsPTX)
      Cubins.insert(I.Arch);
  for (const NvccModuleImage &I : (*Code)->Images) {
    if (I.IsPTX && Cubins.contains(I.Arch))
      continue;
    OffloadImage Image;
    Image.TheOffloadKind = OffloadKind::Cuda;
    Image.TheImageKind = I.IsPTX ? ImageKind::PTX : ImageKind::Cubin;
    // Read (inflated) by load() when its symbols are.
    Image.DeferredSize = I.Entry.isCompressed() ? I.Entry.UncompressedSize
                                                : I.Entry.Payload.size();
    Image.Strings = {{"triple", "nvptx64-nvidia-cuda"},
                     {"arch", Saver.save(I.Arch)}};
    Candidate C;
    C.Found = {Image, Name.str(),
               Where + "+0x" + utohexstr(I.Entry.PayloadOffset)};
    C.Found.NvccObject = Object.getBuffer();
    TraceName File = splitTraceName(Name);
    if (File.Member.empty())
      C.Found.NvccObjectFile = File.Path.str();
    C.Found.NvccModuleIDs = (*Code)->ModuleIDs;
    if ((*Code)->Fatbins.size() > 1)
      C.Found.NvccFatbins = (*Code)->Fatbins;
    C.NvccEntry = I.Entry;
    Found->push_back(std::move(C));
  }
  return Error::success();
}

bool DeviceInputs::linkedAlready(const Candidate &C) const {
  const std::vector<std::string> &IDs = C.Found.NvccModuleIDs;
  return !IDs.empty() && llvm::all_of(IDs, [&](const std::string &ID) {
    return NvccModulesLinked.contains(ID);
  });
}

Error DeviceInputs::load(Candidate &C) {
  if (C.NvccEntry) {
    StringRef Bytes = C.NvccEntry->Payload;
    if (C.NvccEntry->isCompressed()) {
      Expected<SmallVector<uint8_t, 0>> Out =
          decompressCudaFatbinEntry(*C.NvccEntry, C.Found.Where);
      if (!Out)
        return Out.takeError();
      Bytes = Inflated.keep(SmallVector<char, 0>(Out->begin(), Out->end()));
    }
    C.Found.Image.Image = Bytes;
    C.Found.Image.DeferredSize.reset();
    C.NvccEntry.reset();
    return Error::success();
  }
  if (!C.Found.Image.isDeferred())
    return Error::success();
  // The first image of a binary that is used inflates all of them, in one
  // pass: the images of one binary (one unit's, for each arch) are linked
  // together, and one at a time would inflate the binary's start again for
  // each.
  auto [It, New] = InflatedImages.try_emplace(C.Binary);
  if (New) {
    const OffloadBinary &Bin = Finder.binaries()[C.Binary].Binary;
    std::vector<SmallVector<char, 0>> Bytes(Bin.Images.size());
    auto All = llvm::to_vector<4>(llvm::seq<size_t>(0, Bin.Images.size()));
    if (Error E = streamOffloadImages(Bin, All, [&](size_t I, StringRef Piece) {
          Bytes[I].append(Piece.begin(), Piece.end());
          return Error::success();
        })) {
      InflatedImages.erase(C.Binary);
      return E;
    }
    for (SmallVector<char, 0> &Image : Bytes)
      It->second.push_back(Inflated.keep(std::move(Image)));
  }
  C.Found.Image.Image = It->second[C.Index];
  C.Found.Image.DeferredSize.reset();
  return Error::success();
}

Error DeviceInputs::take(Candidate &C) {
  // An input registers this kind's images already (clang-linker-wrapper's
  // wrapper object): they are not linked or registered again.
  if (RegisteredKinds.count(C.Found.Image.TheOffloadKind))
    return Error::success();
  // nvcc's code (nvlink is given its host object) is read only where its
  // symbols matter: when an archive member may be needed.
  if (C.NvccEntry && !NoteNvccSymbols) {
    Images.push_back(C.Found);
    UnreadNvcc.push_back(C);
    return Error::success();
  }
  if (Error E = load(C))
    return E;
  Images.push_back(C.Found);
  return noteSymbols(C.Found.Image, C.Found.Where,
                     Uses[DeviceLinkKey::of(C.Found.Image)]);
}

Error DeviceInputs::noteSymbols(const OffloadImage &Image, StringRef Where,
                                SymbolUse &Use) {
  file_magic Magic = identify_magic(Image.Image);
  if (Magic != file_magic::elf_relocatable && Magic != file_magic::bitcode)
    return Error::success();
  auto Fail = [&](Error E) {
    return createStringError(inconvertibleErrorCode(),
                             Where +
                                 ": cannot read the symbols of the "
                                 "device image: " +
                                 toString(std::move(E)));
  };
  // ELF headers are read in place and must be aligned; images in bundle
  // sections and archive members often are not.
  std::unique_ptr<MemoryBuffer> Copy;
  MemoryBufferRef Buffer(Image.Image, "device image");
  if (!isAddrAligned(Align(8), Image.Image.data())) {
    Copy = MemoryBuffer::getMemBufferCopy(Image.Image, "device image");
    Buffer = *Copy;
  }
  auto Note = [&](StringRef Name, bool Undefined) {
    if (Undefined)
      Use.Undefined.insert(Name);
    else
      Use.Defined.insert(Name);
  };
  // Bitcode: its symbol table, which clang writes beside the module (read
  // as the module, when it is not there or from another LLVM). Parsing the
  // module was 3 ms of a 10-arch HIP program's relink, each time it is
  // checked.
  if (Magic == file_magic::bitcode) {
    if (Error E = checkAttributeGroupIndices(Buffer))
      return Fail(std::move(E));
    Expected<IRSymtabFile> Symtab = readIRSymtab(Buffer);
    if (!Symtab)
      return Fail(Symtab.takeError());
    for (const irsymtab::Reader::SymbolRef &Sym : Symtab->TheReader.symbols())
      if (Sym.isGlobal() && !Sym.isFormatSpecific())
        Note(Sym.getName(), Sym.isUndefined());
    return Error::success();
  }
  Expected<std::unique_ptr<SymbolicFile>> Symbols =
      SymbolicFile::createSymbolicFile(Buffer, Magic, &Context);
  if (!Symbols)
    return Fail(Symbols.takeError());
  for (const BasicSymbolRef &Sym : (*Symbols)->symbols()) {
    Expected<uint32_t> Flags = Sym.getFlags();
    if (!Flags)
      return Fail(Flags.takeError());
    if (!(*Flags & BasicSymbolRef::SF_Global) ||
        (*Flags & BasicSymbolRef::SF_FormatSpecific))
      continue;
    SmallString<64> Name;
    raw_svector_ostream OS(Name);
    if (Error E = Sym.printName(OS))
      return Fail(std::move(E));
    Note(Name, *Flags & BasicSymbolRef::SF_Undefined);
  }
  return Error::success();
}

Error DeviceInputs::addArchiveMembersDeviceCodeNeeds(
    ArrayRef<std::string> ExtractArchs, const TargetRequest *Request) {
  // The device images of every member the host link left out.
  std::vector<Candidate> Left;
  for (StringRef Path : ArchivePaths) {
    if (Index && !Index->archiveMayHoldDeviceCode(Path))
      continue;
    Expected<const ArchiveMemberIndex *> Lib = openArchive(Path);
    if (!Lib)
      return Lib.takeError();
    for (const ArchiveMember &Member : (*Lib)->members()) {
      std::string Key = Member.describe();
      if (Member.occurrence() < LoadedMembers.count(Key))
        continue; // loaded by the host link, scanned already
      if (Index && !Index->memberMayHoldDeviceCode(Path, Member.name(),
                                                   Member.occurrence()))
        continue;
      Expected<MemoryBufferRef> Buffer = Member.data();
      if (!Buffer)
        return Buffer.takeError();
      size_t First = Left.size();
      if (Error E = scanInput(*Buffer, Key, &Left, /*Loaded=*/false))
        return E;
      placeArchiveMember(MutableArrayRef(Left).drop_front(First), Path,
                         Member.index());
    }
  }

  llvm::erase_if(Left, [&](const Candidate &C) { return linkedAlready(C); });

  // What is asked for by name: an arch of --offload-extract=, or what
  // --offload-arch= keeps of a member's images (a member is a container, as
  // the images of an input are to selectTargets()).
  std::vector<bool> Requested(Left.size());
  for (size_t Begin = 0; Request && Begin != Left.size();) {
    size_t End = Begin;
    std::vector<SelectableImage> Container;
    for (;
         End != Left.size() && Left[End].Found.Input == Left[Begin].Found.Input;
         ++End) {
      const OffloadImage &I = Left[End].Found.Image;
      Container.push_back(
          {I.TheImageKind, Triple(I.getTriple()), I.getArch().str()});
    }
    ImageSelection S = selectImages(*Request, Container);
    for (size_t N = 0; N != Container.size(); ++N)
      Requested[Begin + N] = S.Reasons[N] == SelectReason::Requested ||
                             S.Reasons[N] == SelectReason::GenericForMember;
    Begin = End;
  }
  for (auto [C, ByRequest] : zip(Left, Requested))
    if (ByRequest || is_contained(ExtractArchs, C.Found.Image.getArch())) {
      C.Taken = true;
      if (Error E = take(C))
        return E;
    }

  // Take members whose images define what the images taken so far need,
  // until they need nothing more that a member defines: nvcc's code too now,
  // when a member is left to take.
  if (llvm::any_of(Left, [](const Candidate &C) { return !C.Taken; })) {
    NoteNvccSymbols = true;
    for (Candidate &C : UnreadNvcc) {
      if (Error E = load(C))
        return E;
      if (Error E = noteSymbols(C.Found.Image, C.Found.Where,
                                Uses[DeviceLinkKey::of(C.Found.Image)]))
        return E;
    }
    UnreadNvcc.clear();
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Candidate &C : Left) {
      if (C.Taken)
        continue;
      // The links this image may join: its arch's and the generic images';
      // a generic image joins every arch's, an AMDGPU one those of its
      // processor whose target IDs it agrees with (gfx90a and
      // gfx90a:xnack+ are linked together).
      DeviceLinkKey Target = DeviceLinkKey::of(C.Found.Image);
      SmallVector<const SymbolUse *, 4> Joined;
      for (const auto &[Key, Use] : Uses)
        if (Key.sameKindAndTriple(Target) && !Use.Undefined.empty() &&
            mayShareDeviceLink(Target.TargetTriple, Key.Arch, Target.Arch))
          Joined.push_back(&Use);
      if (Joined.empty())
        continue;
      // Read once: the rounds ask again of the candidates left.
      if (!C.Defines) {
        if (Error E = load(C))
          return E;
        SymbolUse Own;
        if (Error E = noteSymbols(C.Found.Image, C.Found.Where, Own))
          return E;
        C.Defines = std::move(Own.Defined);
      }
      if (none_of(C.Defines->keys(), [&](StringRef S) {
            return any_of(Joined,
                          [&](const SymbolUse *U) { return U->needs(S); });
          }))
        continue;
      C.Taken = Changed = true;
      if (Error E = take(C))
        return E;
    }
  }
  return Error::success();
}

void DeviceInputs::sortInLinkOrder() {
  // Objects keep the order the link loaded them in, the command line's.
  llvm::stable_sort(Images, [](const DeviceImage &A, const DeviceImage &B) {
    if (!A.ArchivePlace || !B.ArchivePlace)
      return !A.ArchivePlace && B.ArchivePlace;
    return *A.ArchivePlace < *B.ArchivePlace;
  });
}

std::optional<std::string> DeviceInputs::alreadyRegisteredBy() const {
  if (RegisteredKinds.empty() || !Images.empty() || !HIPUnits.empty())
    return std::nullopt;
  return RegisteredKinds.begin()->second;
}

std::vector<DeviceImage>
DeviceInputs::leaveOut(const std::vector<bool> &Dropped) {
  std::vector<DeviceImage> Kept, Out;
  for (auto [N, Image] : enumerate(Images))
    (Dropped[N] ? Out : Kept).push_back(std::move(Image));
  Images = std::move(Kept);
  return Out;
}

} // namespace offload

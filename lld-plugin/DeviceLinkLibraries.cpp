//===- lld-plugin/DeviceLinkLibraries.cpp - A CPU device link's libraries -===//

#include "lld-plugin/DeviceLinkLibraries.h"

#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/RunLLD.h"

#include "format/ArchiveMembers.h"
#include "format/CheckedArchive.h"
#include "support/FileCopy.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <bitset>
#include <climits>

using namespace llvm;
using namespace llvm::object;

namespace offload {

static file_magic magicOf(StringRef Path) {
  file_magic Magic = file_magic::unknown;
  if (identify_magic(Path, Magic))
    return file_magic::unknown;
  return Magic;
}

DeviceLinkLibraries omitStaticArchives(ArrayRef<DeviceLinkArg> Libraries,
                                       ArrayRef<DeviceLinkArg> SearchArgs,
                                       const LinkInputs *Host) {
  using Role = DeviceLinkArg::Role;
  SearchPaths Paths = searchPathsOf(SearchArgs);
  DeviceLinkLibraries Libs;
  bool WholeArchive = false;
  for (const DeviceLinkArg &Lib : Libraries) {
    if (Lib.TheRole == Role::WholeArchive)
      WholeArchive = true;
    else if (Lib.TheRole == Role::NoWholeArchive)
      WholeArchive = false;
    bool IsLibrary = Lib.TheRole == Role::Library;
    if (!IsLibrary && Lib.TheRole != Role::Input) {
      Libs.Kept.push_back(Lib); // -rpath=, --whole-archive
      continue;
    }
    DeviceLinkLibraries::Library L;
    std::optional<LinkInputs::FoundLibrary> Found;
    if (Host && IsLibrary)
      Found = Host->foundLibrary(Lib.Value, Paths);
    if (Found) {
      L.Path = Found->Path;
      L.Omitted = !WholeArchive && Found->IsArchive;
    } else {
      std::optional<std::string> Path =
          IsLibrary ? searchLibrary(Lib.Value, Paths.Dirs, Paths.Sysroot,
                                    /*Static=*/false)
                    : std::optional<std::string>(Lib.Value);
      L.Path = Path.value_or("");
      L.Omitted =
          !WholeArchive && Path && magicOf(*Path) == file_magic::archive;
    }
    if (!L.Omitted)
      Libs.Kept.push_back(Lib);
    Libs.Libraries.push_back(std::move(L));
  }
  return Libs;
}

namespace {
/// The global symbols of the files a link loaded, for the question whether
/// an archive would have given it a member.
struct LoadedSymbols {
  /// Referenced, not weakly, by some file.
  StringSet<> Undefined;
  /// Defined by the file at each position: (position, names).
  std::vector<std::pair<int, std::vector<StringRef>>> Defined;
  std::vector<std::unique_ptr<MemoryBuffer>> Buffers;
  std::vector<std::unique_ptr<Archive>> Archives;

  bool add(MemoryBufferRef Buffer, int Position);
  template <class ELFT> bool addELF(StringRef Data, int Position);
};
} // namespace

template <class ELFT> bool LoadedSymbols::addELF(StringRef Data, int Position) {
  Expected<ELFFile<ELFT>> File = ELFFile<ELFT>::create(Data);
  if (!File) {
    consumeError(File.takeError());
    return false;
  }
  bool Shared = File->getHeader().e_type == ELF::ET_DYN;
  Expected<typename ELFT::ShdrRange> Sections = File->sections();
  if (!Sections) {
    consumeError(Sections.takeError());
    return false;
  }
  const typename ELFT::Shdr *Symtab = nullptr, *Versym = nullptr;
  for (const typename ELFT::Shdr &Sec : *Sections) {
    if (Sec.sh_type == (Shared ? ELF::SHT_DYNSYM : ELF::SHT_SYMTAB))
      Symtab = &Sec;
    if (Sec.sh_type == ELF::SHT_GNU_versym)
      Versym = &Sec;
  }
  if (!Symtab)
    return true;
  Expected<typename ELFT::SymRange> Syms = File->symbols(Symtab);
  Expected<StringRef> Strings =
      File->getStringTableForSymtab(*Symtab, *Sections);
  if (!Syms || !Strings) {
    consumeError(Syms.takeError());
    consumeError(Strings.takeError());
    return false;
  }
  ArrayRef<typename ELFT::Versym> Versions;
  if (Shared && Versym) {
    auto V = File->template getSectionContentsAsArray<typename ELFT::Versym>(
        *Versym);
    if (!V) {
      consumeError(V.takeError());
      return false;
    }
    Versions = *V;
  }
  std::vector<StringRef> &Defs = Defined.emplace_back(Position, 0).second;
  for (auto [I, Sym] : llvm::enumerate(*Syms)) {
    if (Sym.getBinding() == ELF::STB_LOCAL || Sym.st_name >= Strings->size())
      continue;
    StringRef Name(Strings->data() + Sym.st_name);
    if (Sym.isUndefined()) {
      // A shared object's reference to a version of a symbol (foo@V) is
      // one that no archive member defines: LLD names it foo@V.
      bool Versioned =
          I < Versions.size() &&
          (Versions[I].vs_index & ELF::VERSYM_VERSION) > ELF::VER_NDX_GLOBAL;
      if (Sym.getBinding() != ELF::STB_WEAK && !Versioned)
        Undefined.insert(Name);
      continue;
    }
    // A shared object's hidden version (foo@V, not foo@@V) is not foo.
    if (I < Versions.size() && (Versions[I].vs_index & ELF::VERSYM_HIDDEN))
      continue;
    Defs.push_back(Name);
  }
  return true;
}

bool LoadedSymbols::add(MemoryBufferRef Buffer, int Position) {
  StringRef Data = Buffer.getBuffer();
  file_magic Magic = identify_magic(Data);
  if (Magic != file_magic::elf_relocatable &&
      Magic != file_magic::elf_shared_object)
    return false; // bitcode: only LTO knows what it will call
  if (Data.size() < ELF::EI_NIDENT)
    return false;
  return withELFType(Data, [&](auto Type) {
    return addELF<typename decltype(Type)::type>(Data, Position);
  });
}

/// The start of the archive at \p Path up to the end of its first member,
/// when that member is a GNU symbol table ("/" or "/SYM64/"): an archive of
/// its own, as Archive reads it, with every symbol and no members. Read
/// with pread, not mapped: mapping and unmapping LLVM's 200 libraries to
/// read their tables cost page faults and TLB shootdowns that slowed the
/// host link beside the check. Null when the file is anything else (the
/// whole file is read then).
static std::unique_ptr<MemoryBuffer> readSymbolTableMember(StringRef Path) {
  constexpr size_t MagicSize = 8, HeaderSize = 60;
  Expected<sys::fs::file_t> FD = sys::fs::openNativeFileForRead(Path);
  if (!FD) {
    consumeError(FD.takeError());
    return nullptr;
  }
  scope_exit Close([&] { sys::fs::closeFile(*FD); });
  char Start[MagicSize + HeaderSize];
  if (Error E = readFileRange(*FD, 0, MutableArrayRef(Start))) {
    consumeError(std::move(E));
    return nullptr;
  }
  StringRef Header(Start, sizeof(Start));
  if (!Header.starts_with("!<arch>\n") && !Header.starts_with("!<thin>\n"))
    return nullptr;
  StringRef Name = Header.substr(MagicSize, 16).rtrim(' ');
  uint64_t Size;
  if ((Name != "/" && Name != "/SYM64/") ||
      Header.substr(MagicSize + 48, 10).rtrim(' ').getAsInteger(10, Size))
    return nullptr;
  // No more than the file holds: a size field is not trusted.
  sys::fs::file_status Status;
  if (sys::fs::status(*FD, Status) || Size > Status.getSize() - sizeof(Start))
    return nullptr;
  std::unique_ptr<WritableMemoryBuffer> Buffer =
      WritableMemoryBuffer::getNewUninitMemBuffer(sizeof(Start) + Size, Path);
  if (!Buffer)
    return nullptr;
  if (Error E = readFileRange(
          *FD, 0,
          MutableArrayRef(Buffer->getBufferStart(), Buffer->getBufferSize()))) {
    consumeError(std::move(E));
    return nullptr;
  }
  return Buffer;
}

std::unique_ptr<MemoryBuffer> readArchiveSymbolTable(StringRef Path) {
  if (std::unique_ptr<MemoryBuffer> Table = readSymbolTableMember(Path))
    return Table;
  ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!File)
    return nullptr;
  return std::move(*File);
}

/// Maps --trace lines to the positions of the files they were loaded for:
/// -1 before the libraries, the index of the library after. A library's
/// shared object is traced once each time it is named, a linker script's
/// files where the script is, an archive's members where it is; lines that
/// cannot be placed for sure are put at the next library that can (later,
/// which can only make an archive look needed).
static std::vector<int> tracePositions(ArrayRef<StringRef> Lines,
                                       const DeviceLinkLibraries &Libs) {
  std::vector<int> Positions(Lines.size(), INT_MAX);
  size_t Line = std::min(Libs.LeadingLines, Lines.size());
  std::fill(Positions.begin(), Positions.begin() + Line, -1);
  for (auto [I, Lib] : llvm::enumerate(Libs.Libraries)) {
    if (Lib.Omitted || Lib.Path.empty())
      continue;
    switch (magicOf(Lib.Path)) {
    case file_magic::elf_shared_object: {
      size_t At = Line;
      while (At < Lines.size() && Lines[At] != Lib.Path)
        ++At;
      if (At == Lines.size())
        return Positions; // the rest stays at the end
      for (; Line <= At; ++Line)
        Positions[Line] = I;
      break;
    }
    case file_magic::archive:
      for (; Line < Lines.size() && Lines[Line].starts_with(Lib.Path + "(");
           ++Line)
        Positions[Line] = I;
      break;
    default:
      break; // a linker script: its files go with the next library
    }
  }
  return Positions;
}

bool omittedArchivesNeeded(StringRef Trace, const DeviceLinkLibraries &Libs) {
  SmallVector<StringRef, 64> Lines;
  for (StringRef Line : split(Trace, '\n'))
    if (!Line.empty())
      Lines.push_back(Line);
  std::vector<int> Positions = tracePositions(Lines, Libs);

  LoadedSymbols Loaded;
  // Each archive read once, however many of its members were loaded.
  StringMap<std::optional<ArchiveMemberIndex>> Members;
  auto MembersOf = [&](StringRef Path) -> const ArchiveMemberIndex * {
    auto [It, New] = Members.try_emplace(Path);
    if (!New)
      return It->second ? &*It->second : nullptr;
    ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
        Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!File)
      return nullptr;
    Expected<std::unique_ptr<Archive>> Lib = createCheckedArchive(**File);
    Loaded.Buffers.push_back(std::move(*File));
    if (!Lib) {
      consumeError(Lib.takeError());
      return nullptr;
    }
    Expected<ArchiveMemberIndex> Index =
        ArchiveMemberIndex::read(**Lib, It->first());
    Loaded.Archives.push_back(std::move(*Lib));
    if (!Index) {
      consumeError(Index.takeError());
      return nullptr;
    }
    It->second = std::move(*Index);
    return &*It->second;
  };
  // Members of one name, as format/ArchiveMembers.h tells them apart.
  MemberOccurrences Occurrences;
  for (auto [Line, Position] : llvm::zip(Lines, Positions)) {
    auto [Path, Member] = splitTraceName(Line);
    MemoryBufferRef Buffer;
    if (Member.empty()) {
      ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
          Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (!File)
        return true;
      Buffer = **File;
      Loaded.Buffers.push_back(std::move(*File));
    } else {
      const ArchiveMemberIndex *Lib = MembersOf(Path);
      if (!Lib)
        return true;
      const ArchiveMember *Found = Lib->find(Member, Occurrences.next(Line));
      if (!Found)
        return true;
      Expected<MemoryBufferRef> Data = Found->data();
      if (!Data) {
        consumeError(Data.takeError());
        return true;
      }
      Buffer = *Data;
    }
    // Linker scripts are not traced; anything else unreadable counts.
    if (!Loaded.add(Buffer, Position))
      return true;
  }

  // Where each undefined symbol is first defined.
  StringMap<int> FirstDefined;
  for (const auto &[Position, Names] : Loaded.Defined)
    for (StringRef Name : Names)
      if (Loaded.Undefined.contains(Name)) {
        auto [It, New] = FirstDefined.try_emplace(Name, Position);
        if (!New)
          It->second = std::min(It->second, Position);
      }

  // The names' first two bytes: most of a large program's archive symbols
  // (LLVM's libraries: 200,000, nearly all "_ZN4llvm...") are turned away
  // by them before they are hashed, which was most of this check's time.
  std::bitset<1 << 16> Prefixes;
  auto PrefixOf = [](StringRef Name) {
    return size_t(uint8_t(Name[0])) << 8 |
           uint8_t(Name.size() > 1 ? Name[1] : 0);
  };
  for (const auto &Name : Loaded.Undefined)
    if (!Name.getKey().empty())
      Prefixes.set(PrefixOf(Name.getKey()));

  // Would an omitted archive be asked for one of them before it is defined?
  for (auto [I, Lib] : llvm::enumerate(Libs.Libraries)) {
    if (!Lib.Omitted)
      continue;
    std::unique_ptr<MemoryBuffer> Buffer = readArchiveSymbolTable(Lib.Path);
    if (!Buffer)
      return true;
    Expected<std::unique_ptr<Archive>> Omitted = createCheckedArchive(*Buffer);
    if (!Omitted) {
      consumeError(Omitted.takeError());
      return true;
    }
    // An archive without a symbol table may still have members LLD reads
    // (it reads theirs); one without members (glibc's libpthread.a) has
    // nothing to give.
    if (!(*Omitted)->hasSymbolTable()) {
      Error Err = Error::success();
      bool Empty = (*Omitted)->child_begin(Err) == (*Omitted)->child_end();
      if (Err) {
        consumeError(std::move(Err));
        return true;
      }
      if (!Empty)
        return true;
      continue;
    }
    for (const Archive::Symbol &Sym : (*Omitted)->symbols()) {
      StringRef Name = Sym.getName();
      if (Name.empty() || !Prefixes.test(PrefixOf(Name)) ||
          !Loaded.Undefined.contains(Name))
        continue;
      auto It = FirstDefined.find(Name);
      if (It == FirstDefined.end() || It->second >= int(I))
        return true;
    }
  }
  return false;
}

} // namespace offload

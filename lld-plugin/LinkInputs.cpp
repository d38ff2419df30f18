//===- lld-plugin/LinkInputs.cpp - The inputs a command line names --------===//

#include "lld-plugin/LinkInputs.h"

#include "format/ArchiveMembers.h"
#include "format/CheckedArchive.h"
#include "format/NvccModule.h"
#include "format/OffloadBundle.h"
#include "support/FileCopy.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/ELF.h"
#include "llvm/Option/Arg.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <cstring>
#include <unistd.h>

using namespace llvm;
using namespace llvm::object;


namespace offload {

bool isDeviceCodeSection(StringRef Name, uint32_t Type, uint64_t Flags) {
  if (Type == ELF::SHT_LLVM_OFFLOADING)
    return true;
  if (Flags & ELF::SHF_EXECINSTR)
    return false;
  // A HIP or CUDA unit's registration refers to its fat binary from the
  // segment; a fat binary another tool linked (clang --hip-link's) is
  // defined in .hip_fatbin.
  return Name.starts_with(".llvm.offloading") ||
         Name.starts_with(BundleMagic) || Name == ".hipFatBinSegment" ||
         Name == ".nvFatBinSegment" || Name == ".hip_fatbin";
}

/// What the section headers \p Sections and their names \p Names say.
template <class ELFT>
static DeviceCodeScan scanSections(ArrayRef<typename ELFT::Shdr> Sections,
                                   StringRef Names) {
  for (const typename ELFT::Shdr &Sec : Sections) {
    // Most sections are code, relocations or symbols: their headers say so
    // without a look at their names.
    uint32_t Type = Sec.sh_type;
    if (Type != ELF::SHT_PROGBITS && Type != ELF::SHT_LLVM_OFFLOADING)
      continue;
    if (Type == ELF::SHT_PROGBITS && (Sec.sh_flags & ELF::SHF_EXECINSTR))
      continue;
    if (Sec.sh_name >= Names.size())
      return DeviceCodeScan::Unknown;
    StringRef Name = Names.drop_front(Sec.sh_name);
    Name = Name.take_until([](char C) { return C == 0; });
    if (isDeviceCodeSection(Name, Type, Sec.sh_flags))
      return DeviceCodeScan::Found;
  }
  return DeviceCodeScan::None;
}

template <class ELFT> static DeviceCodeScan scanELF(StringRef Data) {
  Expected<ELFFile<ELFT>> File = ELFFile<ELFT>::create(Data);
  if (!File) {
    consumeError(File.takeError());
    return DeviceCodeScan::Unknown;
  }
  Expected<typename ELFT::ShdrRange> Sections = File->sections();
  if (!Sections) {
    consumeError(Sections.takeError());
    return DeviceCodeScan::Unknown;
  }
  Expected<StringRef> Names = File->getSectionStringTable(*Sections);
  if (!Names) {
    consumeError(Names.takeError());
    return DeviceCodeScan::Unknown;
  }
  return scanSections<ELFT>(*Sections, *Names);
}

/// Reads \p Size bytes at \p Offset of \p FD into \p To; false if the file
/// is shorter or cannot be read (LLD says why).
static bool readAt(int FD, uint64_t Offset, size_t Size, char *To) {
  if (Error E = readFileRange(FD, Offset, MutableArrayRef(To, Size))) {
    consumeError(std::move(E));
    return false;
  }
  return true;
}

/// Reads \p Size bytes at \p Offset of \p FD into \p Buf, 8-byte aligned.
static bool readAt(int FD, uint64_t Offset, size_t Size,
                   std::vector<uint64_t> &Buf) {
  Buf.resize(Size / sizeof(uint64_t) + 1);
  return readAt(FD, Offset, Size, reinterpret_cast<char *>(Buf.data()));
}

/// scanELF() of the ELF object of \p Size bytes at \p Offset in the file
/// \p FD, whose ELF header is \p H: its section headers and names read with
/// pread rather than from a mapping: faulting them in and unmapping them
/// would cost page-table work here and TLB shootdowns in the threads of an
/// LLD link running beside. std::nullopt where the headers are not as
/// LLVM's ELFFile reads them: ELFFile reads them then.
template <class ELFT>
static std::optional<DeviceCodeScan>
scanELFAt(int FD, uint64_t Offset, uint64_t Size, const typename ELFT::Ehdr &H,
          std::vector<uint64_t> &Headers, std::vector<uint64_t> &Names) {
  using Shdr = typename ELFT::Shdr;
  uint64_t Count = H.e_shnum;
  if (H.e_shoff == 0 || Count == 0 || H.e_shentsize != sizeof(Shdr) ||
      H.e_shstrndx == ELF::SHN_XINDEX || H.e_shstrndx >= Count ||
      H.e_shoff > Size || Count > (Size - H.e_shoff) / sizeof(Shdr))
    return std::nullopt; // none, extended numbering, or malformed
  if (!readAt(FD, Offset + H.e_shoff, Count * sizeof(Shdr), Headers))
    return DeviceCodeScan::Unknown;
  ArrayRef<Shdr> Sections(reinterpret_cast<const Shdr *>(Headers.data()),
                          Count);
  if (H.e_shstrndx == ELF::SHN_UNDEF)
    return scanSections<ELFT>(Sections, "");
  const Shdr &Table = Sections[H.e_shstrndx];
  if (Table.sh_type != ELF::SHT_STRTAB || Table.sh_offset > Size ||
      Table.sh_size > Size - Table.sh_offset ||
      !readAt(FD, Offset + Table.sh_offset, Table.sh_size, Names))
    return std::nullopt;
  StringRef Strings(reinterpret_cast<const char *>(Names.data()),
                    Table.sh_size);
  if (!Strings.empty() && Strings.back() != 0)
    return DeviceCodeScan::Unknown;
  return scanSections<ELFT>(Sections, Strings);
}

/// scanELFAt() of the ELF object \p Data, which is at \p Offset in \p FD.
template <class ELFT>
static DeviceCodeScan scanMappedELFAt(int FD, uint64_t Offset, StringRef Data,
                                      std::vector<uint64_t> &Headers,
                                      std::vector<uint64_t> &Names) {
  typename ELFT::Ehdr H;
  if (Data.size() < sizeof(H))
    return DeviceCodeScan::Unknown;
  memcpy(&H, Data.data(), sizeof(H));
  if (std::optional<DeviceCodeScan> Scan =
          scanELFAt<ELFT>(FD, Offset, Data.size(), H, Headers, Names))
    return *Scan;
  return scanELF<ELFT>(Data);
}

DeviceCodeScan scanForDeviceCode(MemoryBufferRef Buffer) {
  StringRef Data = Buffer.getBuffer();
  switch (identify_magic(Data)) {
  case file_magic::bitcode:
    // Embedded images are globals of the module: only reading it tells.
    return DeviceCodeScan::Found;
  case file_magic::elf_relocatable:
    break;
  default:
    return DeviceCodeScan::None;
  }
  if (Data.size() < ELF::EI_NIDENT)
    return DeviceCodeScan::Unknown;
  return withELFType(Data, [&](auto Type) {
    return scanELF<typename decltype(Type)::type>(Data);
  });
}

std::optional<std::string> searchLibrary(StringRef Name,
                                         ArrayRef<std::string> Dirs,
                                         StringRef Sysroot, bool Static) {
  auto Find = [&](StringRef Dir,
                  const Twine &File) -> std::optional<std::string> {
    SmallString<128> Path;
    if (Dir.starts_with("="))
      sys::path::append(Path, Sysroot, Dir.substr(1), File);
    else
      sys::path::append(Path, Dir, File);
    if (sys::fs::exists(Path))
      return Path.str().str();
    return std::nullopt;
  };
  for (const std::string &Dir : Dirs) {
    if (Name.starts_with(":")) {
      if (std::optional<std::string> Path = Find(Dir, Name.drop_front()))
        return Path;
      continue;
    }
    if (!Static)
      if (std::optional<std::string> Path = Find(Dir, "lib" + Name + ".so"))
        return Path;
    if (std::optional<std::string> Path = Find(Dir, "lib" + Name + ".a"))
      return Path;
  }
  return std::nullopt;
}

/// The name of \p A's option, aliases resolved ("-static" is "Bstatic").
static StringRef optionName(const opt::Arg &A) {
  return LLDCommandLine::optionName(A);
}

LinkInputs LinkInputs::find(const LLDCommandLine &LLD, Reading Archives) {
  LinkInputs In;
  if (LLD.lacksValue()) {
    In.WhyAskLLD = "an option lacks its value";
    return In;
  }
  In.Paths = LLD.searchPaths();
  const SearchPaths &Paths = In.Paths;
  // The state --push-state saves.
  struct State {
    bool Static = false, WholeArchive = false;
  } Now;
  std::vector<State> Saved;
  bool InLib = false, Binary = false;
  auto Add = [&](StringRef Path) {
    if (!In.Files.count(Path))
      In.Files[Path];
    if (Binary)
      return; // --format=binary: data, not an object
    if (Now.WholeArchive)
      In.WholeArchives.insert(Path);
    if (InLib)
      In.LazyObjects.push_back(Path.str());
    else
      In.Objects.push_back(Path.str()); // told from archives once read
  };
  for (const opt::Arg *A : LLD.list()) {
    StringRef Name = optionName(*A);
    if (A->getOption().getKind() == opt::Option::UnknownClass) {
      In.WhyAskLLD = "unknown option " + A->getAsString(LLD.list());
      return In;
    }
    if (A->getOption().getKind() == opt::Option::InputClass) {
      Add(A->getValue());
    } else if (Name == "l") {
      std::optional<std::string> Path =
          searchLibrary(A->getValue(), Paths.Dirs, Paths.Sysroot, Now.Static);
      if (!Path) {
        In.WhyAskLLD = "library -l" + std::string(A->getValue()) +
                       " is not in the search path";
        return In;
      }
      if (!Now.Static)
        In.DynamicLibraries.try_emplace(A->getValue(), *Path);
      Add(*Path);
    } else if (Name == "Bstatic") {
      Now.Static = true;
    } else if (Name == "Bdynamic") {
      Now.Static = false;
    } else if (Name == "whole-archive") {
      Now.WholeArchive = true;
    } else if (Name == "no-whole-archive") {
      Now.WholeArchive = false;
    } else if (Name == "push-state") {
      Saved.push_back(Now);
    } else if (Name == "pop-state") {
      if (!Saved.empty()) {
        Now = Saved.back();
        Saved.pop_back();
      }
    } else if (Name == "start-lib") {
      InLib = true;
    } else if (Name == "end-lib") {
      InLib = false;
    } else if (Name == "format" || Name == "b") {
      Binary = StringRef(A->getValue()) == "binary";
    }
  }
  In.scanFiles();
  if (!In.WhyAskLLD.empty())
    return In;

  // Archives are named as objects until read.
  auto IsArchive = [&](const std::string &Path) {
    return In.Files.find(Path)->second.IsArchive;
  };
  for (const std::string &Path : In.Objects)
    if (IsArchive(Path))
      In.Archives.push_back(Path);
  llvm::erase_if(In.Objects, IsArchive);
  for (const std::string &Path : In.LazyObjects)
    if (!IsArchive(Path) && In.mayHoldDeviceCode(Path, /*Occurrence=*/0)) {
      In.WhyAskLLD = Path + " is between --start-lib and --end-lib and has "
                            "device code";
      return In;
    }
  In.ArchivesPending = true;
  if (Archives == Reading::Now)
    In.readPendingArchives();
  return In;
}

void LinkInputs::readPendingArchives() {
  addArchives(readArchives(archivesToRead(),
                           hardware_concurrency().compute_thread_count()));
}

std::vector<std::string> LinkInputs::archivesToRead() const {
  std::vector<std::string> Paths;
  for (const StringMapEntry<FileScan> &E : Files)
    if (E.second.IsArchive)
      Paths.push_back(E.first().str());
  llvm::sort(Paths);
  return Paths;
}

std::optional<DeviceCodeScan> scanArchiveMembers(StringRef Path) {
  constexpr size_t MagicSize = 8, HeaderSize = 60;
  int FD;
  if (sys::fs::openFileForRead(Path, FD))
    return std::nullopt;
  scope_exit Close([&] { ::close(FD); });
  sys::fs::file_status Status;
  char Magic[MagicSize];
  if (sys::fs::status(FD, Status) ||
      Status.type() != sys::fs::file_type::regular_file ||
      !readAt(FD, 0, MagicSize, Magic) ||
      StringRef(Magic, MagicSize) != "!<arch>\n")
    return std::nullopt;
  const uint64_t FileSize = Status.getSize();
  // The GNU table of long member names ("//"), which "/<offset>" names
  // point into: read to check them, as LLVM's reader does.
  std::string LongNames;
  std::vector<uint64_t> Headers, Names;
  // A member header and as much of an ELF header as there is.
  char Buf[HeaderSize + sizeof(ELF64LE::Ehdr)];
  for (uint64_t Offset = MagicSize; Offset != FileSize;) {
    if (FileSize - Offset < HeaderSize)
      return std::nullopt;
    size_t Read = std::min<uint64_t>(sizeof(Buf), FileSize - Offset);
    if (!readAt(FD, Offset, Read, Buf))
      return std::nullopt;
    StringRef Header(Buf, HeaderSize);
    uint64_t Size;
    if (Header.substr(58, 2) != "`\n" ||
        Header.substr(48, 10).rtrim(' ').getAsInteger(10, Size) ||
        Size > FileSize - Offset - HeaderSize)
      return std::nullopt;
    uint64_t Data = Offset + HeaderSize;
    StringRef Name = Header.substr(0, 16);
    if (Name.starts_with("//")) {
      LongNames.resize(Size);
      if (!readAt(FD, Data, Size, LongNames.data()))
        return std::nullopt;
    } else if (!Name.starts_with("/ ") && !Name.starts_with("/SYM64/")) {
      // A member. Its name is checked as LLVM checks it; a BSD name
      // ("#1/<length>", before the data) is left to LLVM's reader.
      uint64_t NameOffset;
      if (Name.starts_with("#1/") ||
          (Name.starts_with("/") &&
           (Name.drop_front().rtrim(' ').getAsInteger(10, NameOffset) ||
            NameOffset >= LongNames.size() ||
            StringRef(LongNames).find('\n', NameOffset) == StringRef::npos)))
        return std::nullopt;
      StringRef Start(Buf + HeaderSize,
                      std::min<uint64_t>(Read - HeaderSize, Size));
      switch (identify_magic(Start)) {
      case file_magic::elf_relocatable: {
        if (Start.size() < ELF::EI_NIDENT)
          return std::nullopt;
        std::optional<DeviceCodeScan> Scan =
            withELFType(Start, [&](auto Type) -> std::optional<DeviceCodeScan> {
              using ELFT = typename decltype(Type)::type;
              typename ELFT::Ehdr H;
              if (Start.size() < sizeof(H))
                return std::nullopt;
              memcpy(&H, Start.data(), sizeof(H));
              return scanELFAt<ELFT>(FD, Data, Size, H, Headers, Names);
            });
        if (Scan != DeviceCodeScan::None)
          return Scan == DeviceCodeScan::Found ? Scan : std::nullopt;
        break;
      }
      case file_magic::bitcode:
        return DeviceCodeScan::Found;
      default:
        break; // no object: no device code
      }
    }
    // Members start at even offsets.
    Offset = Data + Size + (Size & 1);
    if (Offset > FileSize)
      return std::nullopt;
  }
  return DeviceCodeScan::None;
}

/// Reads the section tables of the members of the archive \p Path into
/// \p F; its Scan stays Unknown if the archive cannot be read whole.
static void readArchive(StringRef Path, LinkInputs::FileScan &F) {
  F.IsArchive = true;
  // The CUDA device runtime's device code is nvlink's to link, not ours:
  // the archive holds none of the link's (and a link that names it need
  // not ask LLD what it loads).
  if (isCudaDeviceRuntime(Path)) {
    F.Archive.Read = true;
    F.Scan = DeviceCodeScan::None;
    return;
  }
  // Most archives hold no device code, and need not be mapped to say so.
  if (scanArchiveMembers(Path) == DeviceCodeScan::None) {
    F.Archive.Read = true;
    F.Scan = DeviceCodeScan::None;
    return;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return; // Unknown: LLD says what is wrong
  Expected<std::unique_ptr<Archive>> Lib = createCheckedArchive(**Buffer);
  if (!Lib) {
    consumeError(Lib.takeError());
    return;
  }
  // The members' section tables are read from the file; only the archive's
  // member headers and each member's ELF header, on the same pages, are
  // read from the mapping.
  int FD = -1;
  if (!(*Lib)->isThin() && sys::fs::openFileForRead(Path, FD, sys::fs::OF_None))
    FD = -1;
  scope_exit CloseFD([&] {
    if (FD >= 0)
      ::close(FD);
  });
  std::vector<uint64_t> Headers, Names;
  Error Err = forEachArchiveMember(
      **Lib, Path, [&](const ArchiveMember &Member) -> Error {
        Expected<MemoryBufferRef> Data = Member.data();
        if (!Data)
          return Data.takeError();
        StringRef Bytes = Data->getBuffer();
        std::optional<uint64_t> Offset = Member.dataOffset();
        DeviceCodeScan Scan;
        if (FD >= 0 && Offset &&
            identify_magic(Bytes) == file_magic::elf_relocatable &&
            Bytes.size() >= ELF::EI_NIDENT)
          Scan = withELFType(Bytes, [&](auto Type) {
            return scanMappedELFAt<typename decltype(Type)::type>(
                FD, *Offset, Bytes, Headers, Names);
          });
        else
          Scan = scanForDeviceCode(*Data);
        // The archive stays Unknown: LLD says what is wrong.
        if (Scan == DeviceCodeScan::Unknown)
          return createStringError(inconvertibleErrorCode(), "malformed");
        if (Scan == DeviceCodeScan::Found)
          F.Archive.DeviceMembers.insert(
              {Member.name().str(), Member.occurrence()});
        return Error::success();
      });
  if (Err) {
    consumeError(std::move(Err));
    return;
  }
  F.Archive.Read = true;
  F.Scan = F.Archive.DeviceMembers.empty() ? DeviceCodeScan::None
                                           : DeviceCodeScan::Found;
}

LinkInputs::ArchiveScans
LinkInputs::readArchives(const std::vector<std::string> &Paths,
                         unsigned Threads) {
  std::vector<FileScan> Read(Paths.size());
  // An archive at a time: a large program's archives hold thousands of
  // members and hundreds of thousands of sections. A pool of our own, not
  // LLVM's parallel algorithms, which LLD's links set up as they go.
  if (Threads > 1 && Paths.size() > 1) {
    StdThreadPool Pool(hardware_concurrency(Threads));
    for (size_t I = 0; I != Paths.size(); ++I)
      Pool.async([&, I] { readArchive(Paths[I], Read[I]); });
    Pool.wait();
  } else {
    for (size_t I = 0; I != Paths.size(); ++I)
      readArchive(Paths[I], Read[I]);
  }
  ArchiveScans Scans;
  for (size_t I = 0; I != Paths.size(); ++I)
    Scans.Files[Paths[I]] = std::move(Read[I]);
  return Scans;
}

bool LinkInputs::ArchiveScans::holdNoDeviceCode() const {
  return llvm::all_of(Files, [](const StringMapEntry<FileScan> &E) {
    return E.second.Archive.Read && E.second.Archive.DeviceMembers.empty();
  });
}

void LinkInputs::addArchives(ArchiveScans Scans) {
  if (!ArchivesPending)
    return;
  ArchivesPending = false;
  for (StringMapEntry<FileScan> &E : Scans.Files)
    Files[E.first()] = std::move(E.second);
  if (!WhyAskLLD.empty())
    return;
  for (StringMapEntry<FileScan> &E : Scans.Files)
    if (E.second.Scan == DeviceCodeScan::Unknown) {
      WhyAskLLD = E.first().str() + " cannot be read, or is malformed";
      return;
    }
  for (const std::string &Path : Archives)
    if (archiveMayHoldDeviceCode(Path)) {
      WhyAskLLD = "archive " + Path + " has members with device code";
      return;
    }
  for (const std::string &Path : LazyObjects)
    if (Files.find(Path)->second.IsArchive && archiveMayHoldDeviceCode(Path)) {
      WhyAskLLD = Path + " is between --start-lib and --end-lib and has "
                         "device code";
      return;
    }
}

void LinkInputs::scanFiles() {
  std::vector<StringMapEntry<FileScan> *> Entries;
  for (StringMapEntry<FileScan> &E : Files)
    Entries.push_back(&E);
  // Objects are read here; archives only told apart, their members read by
  // readArchives().
  // Each file opened once: its first bytes say whether to map it.
  parallelFor(0, Entries.size(), [&](size_t I) {
    FileScan &F = Entries[I]->second;
    StringRef Path = Entries[I]->first();
    int FD;
    if (sys::fs::openFileForRead(Path, FD))
      return; // Unknown: LLD says what is wrong
    scope_exit Close([&] { ::close(FD); });
    char Head[32];
    ssize_t N = ::pread(FD, Head, sizeof(Head), 0);
    if (N < 0)
      return;
    if (identify_magic(StringRef(Head, N)) == file_magic::archive) {
      F.IsArchive = true;
      return;
    }
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getOpenFile(FD, Path, /*FileSize=*/-1,
                                  /*RequiresNullTerminator=*/false);
    if (Buffer)
      F.Scan = scanForDeviceCode(**Buffer);
  });
  for (StringMapEntry<FileScan> *E : Entries)
    if (!E->second.IsArchive && E->second.Scan == DeviceCodeScan::Unknown) {
      WhyAskLLD = E->first().str() + " cannot be read, or is malformed";
      return;
    }
}

LoadedInputs LinkInputs::commandLineLoads() const {
  LoadedInputs Loaded;
  Loaded.Files = Objects;
  Loaded.Archives = Archives;
  return Loaded;
}

bool LinkInputs::mayHoldDeviceCode(StringRef Line, unsigned Occurrence) const {
  TraceName Name = splitTraceName(Line);
  if (!Name.Member.empty())
    return memberMayHoldDeviceCode(Name.Path, Name.Member, Occurrence);
  auto It = Files.find(Line);
  return It == Files.end() || It->second.IsArchive ||
         It->second.Scan != DeviceCodeScan::None;
}

bool LinkInputs::archiveMayHoldDeviceCode(StringRef Path) const {
  if (ArchivesPending)
    return false;
  auto It = Files.find(Path);
  return It == Files.end() || !It->second.Archive.Read ||
         !It->second.Archive.DeviceMembers.empty();
}

std::optional<LinkInputs::FoundLibrary>
LinkInputs::foundLibrary(StringRef Name, const SearchPaths &Other) const {
  // The same directories first: what is found in them is found there first.
  if (Other.Sysroot != Paths.Sysroot || Other.Dirs.size() < Paths.Dirs.size() ||
      !std::equal(Paths.Dirs.begin(), Paths.Dirs.end(), Other.Dirs.begin()))
    return std::nullopt;
  auto Lib = DynamicLibraries.find(Name);
  if (Lib == DynamicLibraries.end())
    return std::nullopt;
  // An archive is told by its first bytes, read for every file named
  // (unless the command line was not read to the end).
  auto File = Files.find(Lib->second);
  if (File == Files.end() ||
      (!File->second.IsArchive && File->second.Scan == DeviceCodeScan::Unknown))
    return std::nullopt;
  return FoundLibrary{Lib->second, File->second.IsArchive};
}

bool LinkInputs::memberMayHoldDeviceCode(StringRef Path, StringRef Member,
                                         unsigned Occurrence) const {
  if (ArchivesPending)
    return false;
  auto It = Files.find(Path);
  return It == Files.end() || !It->second.Archive.Read ||
         It->second.Archive.DeviceMembers.count({Member.str(), Occurrence});
}

} // namespace offload

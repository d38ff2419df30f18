//===- lld-plugin/DeviceLinkCacheKey.cpp - What decides a device link -----===//
//
// The key of a device link's image in the cache (DeviceLinkCache.h): made of
// contents and identities, never of paths or times, so that two machines,
// checkouts or install prefixes that would link the same bytes agree.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DeviceLinkCache.h"

#include "lld-plugin/DeviceLinkLibraries.h"
#include "lld-plugin/LinkInputs.h"

#include "format/CheckedArchive.h"
#include "support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <ctime>
#include <link.h>
#include <sys/stat.h>

using namespace llvm;

namespace offload {

std::optional<StringRef> findGNUBuildID(StringRef Notes, uint64_t Align) {
  // Each note: its header and its name, then, at the segment's alignment
  // (4, or 8 for GNU property notes) from the note's start, its
  // descriptor; the next note at that alignment again.
  Align = std::max<uint64_t>(Align, 4);
  while (Notes.size() >= sizeof(ElfW(Nhdr))) {
    ElfW(Nhdr) Note;
    memcpy(&Note, Notes.data(), sizeof(Note));
    uint64_t Desc = alignTo(sizeof(Note) + Note.n_namesz, Align);
    if (Desc + Note.n_descsz > Notes.size())
      return std::nullopt;
    if (Note.n_type == NT_GNU_BUILD_ID &&
        Notes.substr(sizeof(Note), Note.n_namesz) == StringRef("GNU", 4))
      return Notes.substr(Desc, Note.n_descsz);
    Notes = Notes.drop_front(
        std::min<uint64_t>(alignTo(Desc + Note.n_descsz, Align), Notes.size()));
  }
  return std::nullopt;
}

/// The GNU build ID, in hex, of the loaded object that holds \p Address
/// (libLLVM.so, or this executable): read from its notes in memory, where
/// the loader mapped them, not from its file (libLLVM is 100 MB). "none" if
/// it has none; empty if no object holds the address. (dladdr() would find
/// the object too, after a walk of libLLVM's 100,000 symbols for the
/// nearest: 0.2 ms a call.)
static std::string loadedBuildID(const void *Address) {
  struct Search {
    uintptr_t Address;
    std::string ID;
  } Found{reinterpret_cast<uintptr_t>(Address), ""};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) {
        Search &S = *static_cast<Search *>(Data);
        ArrayRef<ElfW(Phdr)> Phdrs(Info->dlpi_phdr, Info->dlpi_phnum);
        if (llvm::none_of(Phdrs, [&](const ElfW(Phdr) & P) {
              uintptr_t Begin = Info->dlpi_addr + P.p_vaddr;
              return P.p_type == PT_LOAD && S.Address >= Begin &&
                     S.Address - Begin < P.p_memsz;
            }))
          return 0;
        S.ID = "none";
        for (const ElfW(Phdr) & P : Phdrs)
          if (P.p_type == PT_NOTE)
            if (std::optional<StringRef> ID =
                    findGNUBuildID(StringRef(reinterpret_cast<const char *>(
                                                 Info->dlpi_addr + P.p_vaddr),
                                             P.p_memsz),
                                   P.p_align)) {
              S.ID = toHex(*ID, /*LowerCase=*/true);
              break;
            }
        return 1;
      },
      &Found);
  return Found.ID;
}

/// The file \p Path, read for a key; an error names it.
static Expected<std::unique_ptr<MemoryBuffer>> readForKey(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!File)
    return createStringError(
        File.getError(), "device-link cache: cannot read '%s': %s",
        Path.str().c_str(), File.getError().message().c_str());
  return std::move(*File);
}

namespace {
/// Everything that decides a device link's bytes, hashed as it is read.
class KeyBuilder {
public:
  KeyBuilder(const WorkDir &Dir, DeviceLinkCache &Cache)
      : Cache(Cache), WorkPrefix(Dir.dir() + "/") {}

  void add(StringRef What, StringRef Value) { H.add(What, Value); }

  /// A file's contents, once; with the files it names if it is a linker
  /// script.
  Error addFile(StringRef Path, ArrayRef<std::string> Dirs, StringRef Sysroot,
                unsigned Depth = 0) {
    if (!Seen.insert(Path).second)
      return Error::success();
    // A large file (a library: no script) is hashed once for each of its
    // versions.
    uint64_t Size = 0;
    if (!sys::fs::file_size(Path, Size) && Size >= MaxScriptSize) {
      Expected<std::string> Hash = Cache.fileHash(Path);
      if (!Hash)
        return Hash.takeError();
      add("file", *Hash);
      return Error::success();
    }
    Expected<std::unique_ptr<MemoryBuffer>> File = readForKey(Path);
    if (!File)
      return File.takeError();
    StringRef Data = (*File)->getBuffer();
    add("file", contentHash(Data));
    if (Depth < 8 && looksLikeScript(Data))
      return addScriptFiles(Data, Path, Dirs, Sysroot, Depth);
    return Error::success();
  }

  /// An archive's symbol table: whether a link that leaves it out would
  /// need it depends on nothing else.
  Error addSymbolTable(StringRef Path) {
    std::unique_ptr<MemoryBuffer> Table = readArchiveSymbolTable(Path);
    if (!Table)
      return createStringError(std::make_error_code(std::errc::io_error),
                               "device-link cache: cannot read '%s'",
                               Path.str().c_str());
    Expected<std::unique_ptr<object::Archive>> Lib =
        createCheckedArchive(*Table);
    if (!Lib)
      return Lib.takeError();
    add("symbol table", contentHash((*Lib)->getSymbolTable()));
    return Error::success();
  }

  /// A work-directory path made relative, in an option too
  /// (--register-link-binaries=<path>): each link has its own.
  std::string relative(StringRef Option) const {
    std::string Out;
    for (size_t At; (At = Option.find(WorkPrefix)) != StringRef::npos;) {
      Out += Option.take_front(At).str() + "<work>/";
      Option = Option.drop_front(At + WorkPrefix.size());
    }
    return Out + Option.str();
  }

  std::string finish() { return H.finish(); }

private:
  static constexpr uint64_t MaxScriptSize = 1 << 16;
  static bool looksLikeScript(StringRef Data) {
    return Data.size() < MaxScriptSize &&
           llvm::all_of(Data.take_front(256),
                        [](char C) { return isPrint(C) || isSpace(C); });
  }

  /// The files of a linker script's GROUP, INPUT and AS_NEEDED.
  Error addScriptFiles(StringRef Script, StringRef Path,
                       ArrayRef<std::string> Dirs, StringRef Sysroot,
                       unsigned Depth) {
    std::string Text;
    // Comments out.
    for (size_t I = 0; I < Script.size(); ++I) {
      if (Script.substr(I).starts_with("/*")) {
        size_t End = Script.find("*/", I + 2);
        I = End == StringRef::npos ? Script.size() : End + 1;
        Text += ' ';
        continue;
      }
      Text += Script[I];
    }
    SmallVector<StringRef, 16> Tokens;
    SplitString(Text, Tokens, " \t\r\n(),");
    for (StringRef Token : Tokens) {
      if (Token == "GROUP" || Token == "INPUT" || Token == "AS_NEEDED" ||
          Token.starts_with("OUTPUT_") || Token == "SEARCH_DIR")
        continue;
      std::optional<std::string> Found;
      if (Token.consume_front("-l"))
        Found = searchLibrary(Token, Dirs, Sysroot, /*Static=*/false);
      else if (sys::path::is_absolute(Token) && sys::fs::exists(Token))
        Found = Token.str();
      else {
        SmallString<128> Beside = sys::path::parent_path(Path);
        sys::path::append(Beside, Token);
        if (sys::fs::exists(Beside))
          Found = Beside.str().str();
        else
          Found = searchLibrary((":" + Token).str(), Dirs, Sysroot, false);
      }
      if (!Found) {
        add("script name", Token);
        continue;
      }
      if (Error E = addFile(*Found, Dirs, Sysroot, Depth + 1))
        return E;
    }
    return Error::success();
  }

  DeviceLinkCache &Cache;
  CacheKeyHasher H;
  std::string WorkPrefix;
  StringSet<> Seen;
};
} // namespace

Expected<std::string> DeviceLinkCache::key(const PreparedDeviceLink &Link,
                                           const WorkDir &Dir) {
  KeyBuilder K(Dir, *this);
  // This linker, by content: the same build installed anywhere has the same
  // key; another build, or another libLLVM (which does the device code
  // generation), has another. Found once in a link.
  if (!LinkerIdentity) {
    CacheKeyHasher Identity;
    Identity.add("version",
                 (lldOffloadVersion() + " LLVM " + LLVM_VERSION_STRING).str());
    Identity.add("linker",
                 loadedBuildID(reinterpret_cast<const void *>(&loadedBuildID)));
    Identity.add("libLLVM",
                 loadedBuildID(reinterpret_cast<const void *>(&llvm::errs)));
    LinkerIdentity = Identity.finish();
  }
  K.add("format", "lld-offload device-link cache 3");
  K.add("linker", *LinkerIdentity);
  // The job.
  const DeviceLinkJob &Job = *Link.Job;
  K.add("job", Job.name());
  // The program and the tools it runs, by what they say they are.
  if (Link.runner() == DeviceLinkRunner::Program)
    K.add("program", toolVersion(Link.Program));
  if (Job.TargetTriple.isNVPTX())
    for (StringRef Tool : {"nvlink", "ptxas"}) {
      Expected<std::string> Path = findCudaTool(CudaPath, Tool);
      if (!Path) {
        consumeError(Path.takeError());
        K.add(Tool, "missing");
        continue;
      }
      K.add(Tool, toolVersion(*Path));
    }
  // The arguments as planned: options as written, files by their contents,
  // libraries by the contents of what the search finds; not where any of
  // them is, nor the output.
  using Role = DeviceLinkArg::Role;
  SearchPaths Paths = searchPathsOf(Link.Planned);
  for (const DeviceLinkArg &A : Link.Planned) {
    switch (A.TheRole) {
    case Role::Option:
      K.add("option", K.relative(A.Value));
      break;
    case Role::WholeArchive:
    case Role::NoWholeArchive:
      K.add("option", spell(A).front());
      break;
    case Role::Input: {
      K.add("input", "");
      // An image, not written yet: its bytes are here.
      auto Image = llvm::find_if(
          Link.Unwritten, [&](const auto &U) { return U.first == A.Value; });
      if (Image != Link.Unwritten.end()) {
        K.add("file", contentHash(Image->second));
        break;
      }
      if (Error E = K.addFile(A.Value, Paths.Dirs, Paths.Sysroot))
        return std::move(E);
      break;
    }
    case Role::Library: {
      K.add("library", A.Value);
      std::optional<std::string> Found =
          searchLibrary(A.Value, Paths.Dirs, Paths.Sysroot, /*Static=*/false);
      if (!Found) {
        K.add("library", "not found");
        break;
      }
      if (Error E = K.addFile(*Found, Paths.Dirs, Paths.Sysroot))
        return std::move(E);
      break;
    }
    case Role::SearchDir:
    case Role::Sysroot:
    case Role::Output:
      break;
    }
  }
  // The archives a CPU link leaves out, and may need.
  for (const DeviceLinkLibraries::Library &Lib : Link.Libraries.Libraries)
    if (Lib.Omitted)
      if (Error E = K.addSymbolTable(Lib.Path))
        return std::move(E);
  return K.finish();
}

Expected<std::string>
DeviceLinkCache::remembered(StringRef Kind, StringRef Path,
                            function_ref<Expected<std::string>()> Compute) {
  // Its identity: where it is, and what changes with each write (the change
  // time too, which no one can set back).
  struct stat St;
  bool Known = ::stat(Path.str().c_str(), &St) == 0;
  // ccache's rule: a file changed in the last two seconds may change again
  // within its times' granularity, unseen.
  bool Settled = Known && ::time(nullptr) - St.st_ctim.tv_sec > 2;
  CacheKeyHasher Identity;
  Identity.add("format", "lld-offload remembered 1");
  Identity.add("file", Path);
  Identity.add("identity",
               formatv("{0} {1} {2} {3}.{4} {5}.{6}", St.st_dev, St.st_ino,
                       St.st_size, St.st_mtim.tv_sec, St.st_mtim.tv_nsec,
                       St.st_ctim.tv_sec, St.st_ctim.tv_nsec)
                   .str());
  std::string Key = Identity.finish(Kind);
  Settled &= hasLocal();
  if (Settled) {
    Expected<std::unique_ptr<MemoryBuffer>> Kept = lookup(Key);
    if (!Kept)
      consumeError(Kept.takeError());
    else if (*Kept)
      return contents(**Kept).str();
  }
  Expected<std::string> Value = Compute();
  if (Value && Settled && !DryRun)
    consumeError(keep(Key, *Value)); // only a cost saved
  return Value;
}

Expected<std::string> DeviceLinkCache::fileHash(StringRef Path) {
  return remembered("filehash", Path, [&]() -> Expected<std::string> {
    Expected<std::unique_ptr<MemoryBuffer>> File = readForKey(Path);
    if (!File)
      return File.takeError();
    return contentHash((*File)->getBuffer());
  });
}

std::string DeviceLinkCache::toolVersion(StringRef Path) {
  Expected<std::string> Version =
      remembered("toolversion", Path, [&]() -> Expected<std::string> {
        SmallString<128> Out;
        if (std::error_code EC =
                sys::fs::createTemporaryFile("lld-offload-version", "txt", Out))
          return createStringError(EC, "no temporary file");
        FileRemover Remove(Out);
        std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Out),
                                                StringRef(Out)};
        StringRef Argv[] = {Path, "--version"};
        if (sys::ExecuteAndWait(Path, Argv, std::nullopt, Redirects) != 0)
          return createStringError(inconvertibleErrorCode(), "no version");
        ErrorOr<std::unique_ptr<MemoryBuffer>> Said =
            MemoryBuffer::getFile(Out);
        if (!Said)
          return createStringError(Said.getError(), "no version");
        return (*Said)->getBuffer().str();
      });
  if (!Version) {
    consumeError(Version.takeError());
    return (sys::path::filename(Path) + " of unknown version").str();
  }
  return *Version;
}

} // namespace offload

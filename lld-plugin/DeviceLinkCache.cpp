//===- lld-plugin/DeviceLinkCache.cpp - Linked device images, kept --------===//

#include "lld-plugin/DeviceLinkCache.h"

#include "lld-plugin/DeviceLinkLibraries.h"
#include "lld-plugin/LinkInputs.h"

#include "format/CheckedArchive.h"
#include "support/AtomicOutput.h"
#include "support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <ctime>
#include <sys/stat.h>

using namespace llvm;

namespace offload {

/// What an entry starts with: magic, image size, image hash.
static constexpr StringLiteral EntryMagic = "LLDOFFC1";
static constexpr size_t EntryHeaderSize = 8 + 8 + 32;

static std::string hashOf(ArrayRef<uint8_t> Data) {
  return toHex(BLAKE3::hash(Data), /*LowerCase=*/true);
}

static std::string hashOf(StringRef Data) {
  return hashOf(arrayRefFromStringRef(Data));
}

/// LLVM's cache ends some messages with a newline.
static Error trimmed(Error E) {
  if (!E)
    return E;
  std::string Msg = toString(std::move(E));
  return createStringError(inconvertibleErrorCode(), StringRef(Msg).rtrim());
}

Expected<std::unique_ptr<DeviceLinkCache>>
DeviceLinkCache::open(const OffloadOptions &Options) {
  std::string Dir = Options.CacheDir;
  if (Dir.empty())
    if (const char *Env = getenv(CacheDirVar))
      Dir = Env;
  if (Dir.empty())
    return nullptr;
  // LLVM's cache makes its directory when it first writes: find out now
  // whether it can be made.
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC,
                             "cannot use the device-link cache '%s': %s; "
                             "linking without it",
                             Dir.c_str(), EC.message().c_str());
  // A hit's contents come to this callback; fetch() takes them from here.
  auto Handed = std::make_shared<std::unique_ptr<MemoryBuffer>>();
  Expected<FileCache> Cache = localCache(
      "device-link cache", "lld-offload", Dir,
      [Handed](size_t, const Twine &, std::unique_ptr<MemoryBuffer> MB) {
        *Handed = std::move(MB);
      });
  if (!Cache)
    return createStringError(inconvertibleErrorCode(),
                             "cannot use the device-link cache '" + Dir +
                                 "': " + toString(Cache.takeError()) +
                                 "; linking without it");
  return std::unique_ptr<DeviceLinkCache>(new DeviceLinkCache(
      *Cache, Handed, Dir, Options.CachePolicy, Options.CudaPath));
}

void CacheKeyHasher::add(StringRef What, StringRef Value) {
  H.update(What);
  H.update(" ");
  H.update(Value);
  H.update("\n");
}

std::string CacheKeyHasher::finish(StringRef Kind) {
  return (Kind.empty() ? "" : Kind + "-").str() +
         toHex(H.final(), /*LowerCase=*/true);
}

std::string DeviceLinkCache::toolIdentity(StringRef Path) {
  sys::fs::file_status St;
  if (sys::fs::status(Path, St))
    return (Path + " missing").str();
  return (Path + " " + Twine(St.getSize()) + " " +
          Twine(St.getLastModificationTime().time_since_epoch().count()))
      .str();
}

namespace {
/// Everything that decides a device link's bytes, hashed as it is read.
class KeyBuilder {
public:
  KeyBuilder(const WorkDir &Dir, DeviceLinkCache &Cache)
      : Cache(Cache), WorkPrefix(Dir.dir() + "/") {}

  void add(StringRef What, StringRef Value) { H.add(What, Value); }

  /// A file's identity without reading it: a tool's or our own.
  void addIdentity(StringRef What, StringRef Path) {
    add(What, DeviceLinkCache::toolIdentity(Path));
  }

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
      add("file", relative(Path) + " " + *Hash);
      return Error::success();
    }
    ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
        Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!File)
      return createStringError(
          File.getError(), "device-link cache: cannot read '%s': %s",
          Path.str().c_str(), File.getError().message().c_str());
    StringRef Data = (*File)->getBuffer();
    add("file", relative(Path) + " " + hashOf(Data));
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
    add("symbol table", (Path + " " + hashOf((*Lib)->getSymbolTable())).str());
    return Error::success();
  }

  /// A work-directory path made relative: each link has its own.
  std::string relative(StringRef Path) const {
    if (Path.starts_with(WorkPrefix))
      return ("<work>/" + Path.drop_front(WorkPrefix.size())).str();
    return Path.str();
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
                                           const WorkDir &Dir, StringRef Self) {
  KeyBuilder K(Dir, *this);
  // This linker.
  K.add("format", "lld-offload device-link cache 1");
  K.add("version",
        (lldOffloadVersion() + " LLVM " + LLVM_VERSION_STRING).str());
  K.addIdentity("linker", Self);
  // The job.
  const DeviceLinkJob &Job = *Link.Job;
  K.add("job", Job.name());
  // The program and the tools it runs.
  if (!Link.Program.empty())
    K.addIdentity("program", Link.Program);
  if (Job.TargetTriple.isNVPTX())
    for (StringRef Tool : {"nvlink", "ptxas"}) {
      Expected<std::string> Path = findCudaTool(CudaPath, Tool);
      if (!Path) {
        consumeError(Path.takeError());
        K.add(Tool, "missing");
        continue;
      }
      K.addIdentity(Tool, *Path);
    }
  // The arguments, and the files they name or find.
  SearchPaths Paths = LLDCommandLine(Link.Args).searchPaths();
  const std::vector<std::string> &Dirs = Paths.Dirs;
  const std::string &Sysroot = Paths.Sysroot;
  for (size_t I = 0; I != Link.Args.size(); ++I) {
    StringRef Arg = Link.Args[I];
    K.add("arg", K.relative(Arg));
    if (Arg == "-o") {
      K.add("arg", K.relative(Link.Args[++I])); // the output: not an input
      continue;
    }
    std::optional<std::string> File;
    if (Arg.starts_with("-l") && !Link.NVPTXWorker)
      File = searchLibrary(Arg.drop_front(2), Dirs, Sysroot, false);
    else if (Arg.consume_front("--lib="))
      File = Arg.str();
    else if (!Arg.starts_with("-") && sys::fs::is_regular_file(Arg))
      File = Arg.str();
    if (File)
      if (Error E = K.addFile(*File, Dirs, Sysroot))
        return std::move(E);
  }
  // The archives a CPU link leaves out, and may need.
  for (const DeviceLinkLibraries::Library &Lib : Link.Libraries.Libraries)
    if (Lib.Omitted)
      if (Error E = K.addSymbolTable(Lib.Path))
        return std::move(E);
  return K.finish();
}

Expected<std::string> DeviceLinkCache::fileHash(StringRef Path) {
  // Its identity: where it is, and what changes with each write (the change
  // time too, which no one can set back).
  struct stat St;
  bool Known = ::stat(Path.str().c_str(), &St) == 0;
  // ccache's rule: a file changed in the last two seconds may change again
  // within its times' granularity, unseen.
  bool Settled = Known && ::time(nullptr) - St.st_ctim.tv_sec > 2;
  CacheKeyHasher Identity;
  Identity.add("format", "lld-offload file hash 1");
  Identity.add("file", Path);
  Identity.add("identity",
               formatv("{0} {1} {2} {3}.{4} {5}.{6}", St.st_dev, St.st_ino,
                       St.st_size, St.st_mtim.tv_sec, St.st_mtim.tv_nsec,
                       St.st_ctim.tv_sec, St.st_ctim.tv_nsec)
                   .str());
  std::string Key = Identity.finish("filehash");
  if (Settled) {
    Expected<std::unique_ptr<MemoryBuffer>> Kept = lookup(Key);
    if (!Kept)
      consumeError(Kept.takeError());
    else if (*Kept)
      return contents(**Kept).str();
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!File)
    return createStringError(
        File.getError(), "device-link cache: cannot read '%s': %s",
        Path.str().c_str(), File.getError().message().c_str());
  std::string Hash = hashOf((*File)->getBuffer());
  if (Settled)
    consumeError(keep(Key, Hash)); // only a cost saved
  return Hash;
}

Expected<std::unique_ptr<MemoryBuffer>> DeviceLinkCache::lookup(StringRef Key,
                                                                bool DryRun) {
  for (int Try = 0; Try != 2; ++Try) {
    Handed->reset();
    Expected<AddStreamFn> Stream = Cache(0, Key, "");
    if (!Stream)
      return trimmed(Stream.takeError());
    if (*Stream || !*Handed)
      return nullptr; // a miss
    StringRef Data = (*Handed)->getBuffer();
    bool Whole = Data.size() >= EntryHeaderSize &&
                 Data.starts_with(EntryMagic) &&
                 support::endian::read64le(Data.data() + 8) ==
                     Data.size() - EntryHeaderSize &&
                 toHex(Data.substr(16, 32), true) ==
                     hashOf(Data.drop_front(EntryHeaderSize));
    if (Whole)
      return std::move(*Handed);
    // Truncated or corrupt: not used, and out of the way of a new entry.
    std::string Entry = entryPath(Key);
    Handed->reset();
    if (DryRun)
      return nullptr;
    if (std::error_code EC = sys::fs::remove(Entry))
      return createStringError(EC, "cannot remove the broken cache entry %s",
                               Entry.c_str());
  }
  return nullptr;
}

StringRef DeviceLinkCache::contents(const MemoryBuffer &Entry) {
  return Entry.getBuffer().drop_front(EntryHeaderSize);
}

Expected<bool> DeviceLinkCache::fetch(StringRef Key, StringRef Output,
                                      bool DryRun) {
  Expected<std::unique_ptr<MemoryBuffer>> Entry = lookup(Key, DryRun);
  if (!Entry)
    return Entry.takeError();
  if (!*Entry)
    return false;
  if (!DryRun)
    if (Error E = writeFileDirectly(Output, contents(**Entry)))
      return std::move(E);
  return true;
}

std::string DeviceLinkCache::entryPath(StringRef Key) const {
  SmallString<128> Entry(Directory);
  sys::path::append(Entry, "llvmcache-" + Key);
  return Entry.str().str();
}

Error DeviceLinkCache::keep(StringRef Key, StringRef Data, bool Replace) {
  // LLVM's cache never writes over an entry: the old one goes first (a
  // link reading it meanwhile has it mapped, or finds none).
  if (Replace)
    if (std::error_code EC = sys::fs::remove(entryPath(Key)))
      return createStringError(EC, "cannot replace the cache entry %s",
                               entryPath(Key).c_str());
  Expected<AddStreamFn> AddStream = Cache(0, Key, "");
  if (!AddStream)
    return trimmed(AddStream.takeError());
  if (!*AddStream) {
    Handed->reset();
    return Error::success(); // another link filled it meanwhile
  }
  Expected<std::unique_ptr<CachedFileStream>> Stream = (*AddStream)(0, "");
  if (!Stream)
    return trimmed(Stream.takeError());
  char Size[8];
  support::endian::write64le(Size, Data.size());
  std::array<uint8_t, 32> Hash = BLAKE3::hash(arrayRefFromStringRef(Data));
  raw_pwrite_stream &OS = *(*Stream)->OS;
  OS << EntryMagic << StringRef(Size, 8)
     << StringRef(reinterpret_cast<const char *>(Hash.data()), Hash.size())
     << Data;
  Error E = (*Stream)->commit();
  Handed->reset();
  return trimmed(std::move(E));
}

Error DeviceLinkCache::store(StringRef Key, StringRef Output) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Image = MemoryBuffer::getFile(
      Output, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Image)
    return createStringError(Image.getError(), "cannot read %s",
                             Output.str().c_str());
  return keep(Key, (*Image)->getBuffer());
}

Error DeviceLinkCache::prune() {
  Expected<CachePruningPolicy> P = parseCachePruningPolicy(Policy);
  if (!P)
    return P.takeError();
  pruneCache(Directory, *P);
  return Error::success();
}

} // namespace offload

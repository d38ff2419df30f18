//===- lld-plugin/DeviceLinkCache.cpp - Linked device images, kept --------===//

#include "lld-plugin/DeviceLinkCache.h"

#include "lld-plugin/DeviceLinkLibraries.h"
#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/RemoteCache.h"

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
#include <fcntl.h>
#include <sys/stat.h>

using namespace llvm;

namespace offload {

/// What an entry starts with: magic, image size, image hash.
static constexpr StringLiteral EntryMagic = "LLDOFFC1";
static constexpr size_t EntryHeaderSize = 8 + 8 + 32;

std::string contentHash(StringRef Data) {
  return toHex(BLAKE3::hash(arrayRefFromStringRef(Data)), /*LowerCase=*/true);
}

/// LLVM's cache ends some messages with a newline.
static Error trimmed(Error E) {
  if (!E)
    return E;
  std::string Msg = toString(std::move(E));
  return createStringError(inconvertibleErrorCode(), StringRef(Msg).rtrim());
}

Expected<std::unique_ptr<DeviceLinkCache>>
DeviceLinkCache::open(const OffloadOptions &Options,
                      function_ref<void(Error)> Warn) {
  std::string Dir = Options.CacheDir;
  if (Dir.empty())
    if (const char *Env = getenv(CacheDirVar))
      Dir = Env;
  std::string RemoteSpec = Options.RemoteCache;
  if (RemoteSpec.empty())
    if (const char *Env = getenv(RemoteCacheVar))
      RemoteSpec = Env;
  if (Dir.empty() && RemoteSpec.empty())
    return nullptr;
  std::unique_ptr<RemoteCache> Remote;
  if (!RemoteSpec.empty()) {
    if (Expected<RemoteCacheConfig> Config =
            RemoteCacheConfig::parse(RemoteSpec))
      Remote = RemoteCache::open(std::move(*Config));
    else
      Warn(Config.takeError());
  }
  // A dry run writes nothing, a directory for the cache neither: one that
  // is not there has nothing to find (but what would miss is said).
  bool NoDirectory =
      Options.DryRun && !Dir.empty() && !sys::fs::is_directory(Dir);
  if (Dir.empty() || NoDirectory) {
    if (!Remote && !NoDirectory)
      return nullptr;
    return std::unique_ptr<DeviceLinkCache>(
        new DeviceLinkCache(std::nullopt, nullptr, "", Options.CachePolicy,
                            Options.CudaPath, std::move(Remote),
                            Options.DryRun));
  }
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
  return std::unique_ptr<DeviceLinkCache>(
      new DeviceLinkCache(std::move(*Cache), Handed, Dir, Options.CachePolicy,
                          Options.CudaPath, std::move(Remote), Options.DryRun));
}

DeviceLinkCache::DeviceLinkCache(
    std::optional<FileCache> Cache,
    std::shared_ptr<std::unique_ptr<MemoryBuffer>> Handed,
    std::string Directory, std::string Policy, std::string CudaPath,
    std::unique_ptr<RemoteCache> Remote, bool DryRun)
    : Cache(std::move(Cache)), Remote(std::move(Remote)),
      Handed(std::move(Handed)), Directory(std::move(Directory)),
      Policy(std::move(Policy)), CudaPath(std::move(CudaPath)),
      DryRun(DryRun) {}

DeviceLinkCache::~DeviceLinkCache() = default;

void DeviceLinkCache::finish(bool Verbose) {
  RemoteCache::Totals T;
  if (Remote) {
    Remote->finish();
    T = Remote->totals();
    if (Verbose)
      for (const std::string &Note : Remote->takeNotes())
        errs() << "ld.lld-offload: " << Note << "\n";
  }
  if (!Verbose)
    return;
  errs() << formatv("ld.lld-offload: device-link cache: {0} local hits, {1} "
                    "remote hits, {2} misses",
                    Counts.LocalHits, Counts.RemoteHits, Counts.Misses);
  if (Remote)
    errs() << formatv("; {0} uploaded, {1} not; {2} bytes down, {3} bytes "
                      "up; {4:f1} ms waiting on the server",
                      T.Uploads, T.FailedUploads, T.BytesDown, T.BytesUp,
                      T.WaitMs);
  errs() << "\n";
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

Expected<std::unique_ptr<MemoryBuffer>> DeviceLinkCache::lookup(StringRef Key,
                                                                bool DryRun) {
  if (!Cache)
    return nullptr;
  for (int Try = 0; Try != 2; ++Try) {
    Handed->reset();
    Expected<AddStreamFn> Stream = (*Cache)(0, Key, "");
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
                     contentHash(Data.drop_front(EntryHeaderSize));
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
  if (!Cache)
    return Error::success();
  Expected<AddStreamFn> AddStream = (*Cache)(0, Key, "");
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

namespace {
/// A string, as a MemoryBuffer that owns it: what the server sent, not
/// copied.
class StringBuffer : public MemoryBuffer {
public:
  explicit StringBuffer(std::string Data) : Data(std::move(Data)) {
    init(this->Data.data(), this->Data.data() + this->Data.size(),
         /*RequiresNullTerminator=*/false);
  }
  BufferKind getBufferKind() const override { return MemoryBuffer_Malloc; }

private:
  std::string Data;
};
} // namespace

std::vector<DeviceLinkCache::Found>
DeviceLinkCache::lookUpEither(ArrayRef<std::string> Keys,
                              function_ref<void(Error)> Warn, bool DryRun) {
  std::vector<Found> Result(Keys.size());
  std::vector<size_t> Missed;
  for (auto [N, Key] : enumerate(Keys)) {
    Expected<std::unique_ptr<MemoryBuffer>> Entry = lookup(Key, DryRun);
    if (!Entry) {
      Warn(Entry.takeError());
      Result[N].Unusable = true;
      continue;
    }
    if (!*Entry) {
      Missed.push_back(N);
      continue;
    }
    Result[N].Where = Tier::Local;
    Result[N].Contents = contents(**Entry);
    Result[N].Entry = std::move(*Entry);
  }
  if (!Remote || Missed.empty())
    return Result;
  std::vector<std::string> Asked;
  for (size_t N : Missed)
    Asked.push_back(Keys[N]);
  std::vector<std::optional<std::string>> Answers = Remote->lookup(Asked);
  for (auto [N, Answer] : zip(Missed, Answers)) {
    if (!Answer)
      continue;
    Result[N].Where = Tier::Remote;
    if (DryRun)
      continue;
    if (Error E = keep(Keys[N], *Answer))
      Warn(std::move(E));
    Result[N].Entry = std::make_unique<StringBuffer>(std::move(*Answer));
    Result[N].Contents = Result[N].Entry->getBuffer();
  }
  return Result;
}

void DeviceLinkCache::markUsed(ArrayRef<std::string> Keys) {
  if (!Cache)
    return;
  const struct timespec Times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
  for (const std::string &Key : Keys)
    ::utimensat(AT_FDCWD, entryPath(Key).c_str(), Times, 0); // gone: no matter
}

void DeviceLinkCache::foundEarlier(StringRef Key, Found F) {
  Earlier[Key] = std::move(F);
}

Expected<DeviceLinkCache::Tier> DeviceLinkCache::fetchEither(StringRef Key,
                                                             StringRef Output) {
  Found F;
  if (auto It = Earlier.find(Key); It != Earlier.end()) {
    F = std::move(It->second);
    Earlier.erase(It);
  } else {
    Error Failed = Error::success();
    F = std::move(lookUpEither({Key.str()}, [&](Error E) {
                    Failed = joinErrors(std::move(Failed), std::move(E));
                  }).front());
    if (Failed)
      return std::move(Failed);
  }
  if (F.Where != Tier::None)
    if (Error E = writeFileDirectly(Output, F.Contents))
      return std::move(E);
  return F.Where;
}

Error DeviceLinkCache::storeEither(StringRef Key, StringRef Output) {
  if (Remote && !Remote->config().ReadOnly) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
        Output, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (File)
      PendingUploads.emplace_back(Key.str(), (*File)->getBuffer().str());
  }
  return store(Key, Output);
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
  if (Cache)
    pruneCache(Directory, *P);
  return Error::success();
}

} // namespace offload

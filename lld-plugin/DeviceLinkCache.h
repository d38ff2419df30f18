//===- lld-plugin/DeviceLinkCache.h - Linked device images, kept -*- C++
//-*-===//
//
// Device links are most of a GPU link's time (LTO and codegen per arch), and
// a relink after a host-only change, or a test suite whose programs all link
// one fat library, would redo them unchanged. With a cache directory
// (--offload-cache-dir=, or LLD_OFFLOAD_CACHE_DIR), each device link's image
// is kept under a key of everything that decides its bytes, in LLVM's
// file cache (llvm/Support/Caching.h: entries written to a temporary file
// and renamed into place, so concurrent links fill one entry safely), pruned
// by LLVM's cache pruning (--offload-cache-policy=, as
// --thinlto-cache-policy).
//
// The key is a BLAKE3 hash of what decides the image's bytes, by content and
// identity, never by path or time, so that every machine that would link
// the same bytes agrees (DeviceLinkCacheKey.cpp): this linker's version and
// GNU build ID and libLLVM's; the job (offload kind, triple, arch); the
// arguments as planned, with their roles (DeviceLinkArgs.h); the contents of
// every input, library and linker script they name; what the programs and
// tools it runs (ld.lld, nvlink, ptxas) say their version is; for CPU links
// that leave the host's static archives out, those archives' symbol tables
// (all that decides whether one is needed). An entry holds the
// image after a header with its size and hash: a truncated or corrupt entry
// is found out, not used, and replaced.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICELINKCACHE_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICELINKCACHE_H

#include "lld-plugin/DeviceLink.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Caching.h"

#include <memory>
#include <optional>
#include <string>

namespace offload {

class RemoteCache;

/// The environment variable that turns the cache on where link flags cannot
/// be added.
constexpr const char *CacheDirVar = "LLD_OFFLOAD_CACHE_DIR";

class DeviceLinkCache {
public:
  /// The cache --offload-cache-dir= or LLD_OFFLOAD_CACHE_DIR names, or
  /// null when neither does. Fails if its directory cannot be made (a
  /// warning: the link goes on without it).
  /// With --offload-remote-cache= (or LLD_OFFLOAD_REMOTE_CACHE), its
  /// remote tier too, or alone; a value that cannot be read is said to
  /// \p Warn, a libcurl that cannot be loaded is a warning when the server
  /// is first to be asked (RemoteCache.h).
  static llvm::Expected<std::unique_ptr<DeviceLinkCache>>
  open(const OffloadOptions &Options,
       llvm::function_ref<void(llvm::Error)> Warn);
  ~DeviceLinkCache();

  /// Whether there is a local directory (else lookups miss, nothing is
  /// kept).
  bool hasLocal() const { return Cache.has_value(); }
  /// The remote tier, if any.
  RemoteCache *remote() const { return Remote.get(); }

  /// What the device links of this link found.
  struct {
    unsigned LocalHits = 0, RemoteHits = 0, Misses = 0;
  } Counts;
  /// Where an entry was found.
  enum class Tier { None, Local, Remote };
  /// An entry as lookUpEither() found it: where, and what it holds (owned
  /// by Entry: the mapped local file, or what the server sent).
  struct Found {
    Tier Where = Tier::None;
    std::unique_ptr<llvm::MemoryBuffer> Entry;
    llvm::StringRef Contents;
    /// The local directory failed for this key (said to the warning
    /// handler): nothing is to be kept under it.
    bool Unusable = false;
  };
  /// What either tier keeps under each of \p Keys: the local directory
  /// first, then the server for what it lacks, all in one request; a
  /// remote hit is kept locally (unless \p DryRun, which only looks).
  std::vector<Found> lookUpEither(llvm::ArrayRef<std::string> Keys,
                                  llvm::function_ref<void(llvm::Error)> Warn,
                                  bool DryRun = false);
  /// Marks the local entries of \p Keys used now (their access time, which
  /// pruning goes by), as a hit would, without reading them: the images a
  /// registration object holds are kept while the object is used.
  void markUsed(llvm::ArrayRef<std::string> Keys);
  /// Hands \p F, what lookUpEither() found of \p Key, to fetchEither(),
  /// which then asks neither tier again.
  void foundEarlier(llvm::StringRef Key, Found F);
  /// Writes what either tier keeps under \p Key to \p Output: what
  /// foundEarlier() was told of it, or what lookUpEither() finds.
  llvm::Expected<Tier> fetchEither(llvm::StringRef Key, llvm::StringRef Output);
  /// Keeps the file \p Output under \p Key locally, and sends it to the
  /// server with the next upload of device images.
  llvm::Error storeEither(llvm::StringRef Key, llvm::StringRef Output);
  /// Entries that storeEither() left for the next upload.
  std::vector<std::pair<std::string, std::string>> PendingUploads;
  /// Registration objects (key, file) made of images linked without the
  /// host's static archives, which may need one: kept once the host link
  /// shows they do not (keepDeviceLinks()), as those images are; a relink
  /// that took such an object would not link the image again to find out.
  std::vector<std::pair<std::string, std::string>> KeepIfWhole;

  /// Waits for the uploads to the server, and says under --offload-verbose
  /// what the cache did: hits, misses, bytes down and up, time waited.
  void finish(bool Verbose);

  /// The key of \p Link, whose work directory is \p Dir. Fails if an input
  /// cannot be read.
  llvm::Expected<std::string> key(const PreparedDeviceLink &Link,
                                  const WorkDir &Dir);

  /// The hash of the contents of the file \p Path, kept under its identity
  /// (path, device, inode, size, modification and change times), so that
  /// the libraries every link names are read once, not at each link. Files
  /// changed in the last two seconds are read.
  llvm::Expected<std::string> fileHash(llvm::StringRef Path);

  /// What \p Compute says of the file \p Path, kept as an entry of \p Kind
  /// under the file's identity once it has not changed for two seconds.
  llvm::Expected<std::string>
  remembered(llvm::StringRef Kind, llvm::StringRef Path,
             llvm::function_ref<llvm::Expected<std::string>()> Compute);

  /// Keeps the image at \p Output under \p Key.
  llvm::Error store(llvm::StringRef Key, llvm::StringRef Output);

  /// The whole entry kept under \p Key (its contents()), or null when there
  /// is none; one that is not whole is removed (unless \p DryRun) and is
  /// no hit.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  lookup(llvm::StringRef Key, bool DryRun = false);
  /// What an entry that lookup() found holds.
  static llvm::StringRef contents(const llvm::MemoryBuffer &Entry);
  /// Keeps \p Data under \p Key; in place of what is kept there if
  /// \p Replace.
  llvm::Error keep(llvm::StringRef Key, llvm::StringRef Data,
                   bool Replace = false);

  /// Prunes the directory as the policy says.
  llvm::Error prune();

  const std::string &directory() const { return Directory; }

  /// What the tool \p Path says of itself (--version), remembered under
  /// its identity as fileHash() is: the key of what it makes.
  std::string toolVersion(llvm::StringRef Path);

private:
  /// The file of the entry \p Key.
  std::string entryPath(llvm::StringRef Key) const;

  DeviceLinkCache(std::optional<llvm::FileCache> Cache,
                  std::shared_ptr<std::unique_ptr<llvm::MemoryBuffer>> Handed,
                  std::string Directory, std::string Policy,
                  std::string CudaPath, std::unique_ptr<RemoteCache> Remote,
                  bool DryRun);

  std::optional<llvm::FileCache> Cache;
  std::unique_ptr<RemoteCache> Remote;
  /// What the cache handed back for the last lookup (LLVM's cache gives a
  /// hit's contents to a callback).
  std::shared_ptr<std::unique_ptr<llvm::MemoryBuffer>> Handed;
  std::string Directory;
  std::string Policy;
  /// The CUDA toolkit whose nvlink and ptxas NVPTX links run.
  std::string CudaPath;
  /// --offload-dry-run: what keys are made of (file hashes, tool versions)
  /// is not remembered either.
  bool DryRun = false;
  /// The hash of this linker's and libLLVM's versions and build IDs, once
  /// key() has found them.
  std::optional<std::string> LinkerIdentity;
  /// What foundEarlier() was told.
  llvm::StringMap<Found> Earlier;
};

/// The GNU build ID (its bytes) among the ELF notes \p Notes, a PT_NOTE
/// segment aligned to \p Align; nothing if none is there whole.
std::optional<llvm::StringRef> findGNUBuildID(llvm::StringRef Notes,
                                              uint64_t Align);

/// The BLAKE3 hash of \p Data, in hex.
std::string contentHash(llvm::StringRef Data);

/// A cache key being made: a BLAKE3 hash of "what value" lines.
class CacheKeyHasher {
public:
  void add(llvm::StringRef What, llvm::StringRef Value);
  /// The key: \p Kind (of entry, empty for a device image), then the hash
  /// in hex.
  std::string finish(llvm::StringRef Kind = "");

private:
  llvm::BLAKE3 H;
};

/// The first 16 hex digits of a key, for messages.
inline llvm::StringRef shortKey(llvm::StringRef Key) {
  return Key.take_front(16);
}

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICELINKCACHE_H

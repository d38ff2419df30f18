//===- tools/offload-prune/Pruner.h - Pruning device code -------*- C++ -*-===//
//
// What offload-prune does to one file or archive member: finds its
// containers of device code (OffloadBinaries, offload bundles, compressed
// bundles; in an object, the sections that hold them), asks the target
// selection rule (format/TargetSelection.h) which images each keeps, and
// writes the container again with only those. Containers are read and
// written with the format library; objects are rewritten with LLVM's ObjCopy
// in-process, replacing or removing only the sections of device code; linked
// files are pruned in place (InPlace.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_TOOLS_OFFLOAD_PRUNE_PRUNER_H
#define LLD_OFFLOAD_TOOLS_OFFLOAD_PRUNE_PRUNER_H

#include "format/InspectCudaFatbin.h"
#include "format/OffloadBundle.h"
#include "format/TargetSelection.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace offload {
namespace prune {

/// One image of a container, as --list prints it.
struct ListedImage {
  /// The bundle entry ID, or "<kind> <triple> <arch> <image kind>".
  std::string Name;
  uint64_t Size = 0;
  SelectReason Reason = SelectReason::NotRequested;
  /// A bundle's host entry: always kept, no device code.
  bool Host = false;
};

/// One container and what becomes of its images.
struct ListedContainer {
  /// "file", "lib.a(member.o)", with ":section" and " <container> @0x...".
  std::string Where;
  std::vector<ListedImage> Images;
};

/// Prunes the containers of one file (or member) for a request, and keeps
/// the listing of what it kept and removed.
class Pruner {
public:
  Pruner(const TargetRequest &Request) : Request(Request) {}

  /// The pruned bytes of \p Data, the whole file or member named \p Name:
  /// an object, an OffloadBinary file, a binary bundle or compressed
  /// bundle(s), a linked executable or shared library (pruned in place).
  /// std::nullopt if it holds no device code (and is no archive,
  /// which the caller handles). Errors name \p Name, the offset and the
  /// problem.
  llvm::Expected<std::optional<llvm::SmallVector<char, 0>>>
  pruneFile(llvm::MemoryBufferRef Data, llvm::StringRef Name);

  const std::vector<ListedContainer> &listing() const { return Listing; }
  /// Device images seen and kept so far, over every container.
  size_t numDeviceImages() const { return DeviceImages; }
  size_t numKeptImages() const { return KeptImages; }
  /// The target IDs of the request that kept some image so far.
  const std::vector<bool> &archsUsed() const { return ArchsUsed; }
  /// What the caller should warn about (a compression level not found).
  const std::vector<std::string> &warnings() const { return Warnings; }

private:
  using Bytes = llvm::SmallVector<char, 0>;
  llvm::Expected<Bytes> pruneOffloadBinaries(llvm::StringRef Data,
                                             llvm::StringRef Where);
  llvm::Expected<Bytes> pruneBundle(llvm::StringRef Data, llvm::StringRef Where,
                                    llvm::StringRef Name);
  llvm::Expected<Bytes> pruneTextBundle(llvm::StringRef Data,
                                        llvm::StringRef Comment,
                                        llvm::StringRef Name);
  /// Lists \p Entries, one bundle, as \p Where and says which are kept
  /// (host entries always); an entry ID that does not parse is an error.
  llvm::Expected<std::vector<bool>>
  selectEntries(llvm::ArrayRef<BundleEntry> Entries, llvm::StringRef Where,
                llvm::StringRef Name);
  llvm::Expected<Bytes> pruneCompressed(llvm::StringRef Data,
                                        llvm::StringRef Where,
                                        llvm::StringRef Name);
  llvm::Expected<Bytes> pruneCudaFatbin(const CudaFatbin &Fatbin,
                                        llvm::StringRef Where);
  llvm::Expected<Bytes> pruneFatbinSection(llvm::StringRef Data,
                                           llvm::StringRef Where,
                                           llvm::StringRef Name);
  llvm::Expected<std::optional<Bytes>> pruneObject(llvm::MemoryBufferRef Data,
                                                   llvm::StringRef Name);
  /// A linked executable or shared library, its HIP fat binaries pruned in
  /// place (InPlace.cpp): the same size and layout, every byte outside the
  /// fat binaries as it was.
  llvm::Expected<std::optional<Bytes>> pruneLinked(llvm::MemoryBufferRef Data,
                                                   llvm::StringRef Name);
  /// Runs the rule over \p Images, one container, listed as \p Where.
  ImageSelection select(llvm::ArrayRef<SelectableImage> Images,
                        ListedContainer Listed);

  const TargetRequest &Request;
  std::vector<ListedContainer> Listing;
  std::vector<bool> ArchsUsed;
  std::vector<std::string> Warnings;
  size_t DeviceImages = 0;
  size_t KeptImages = 0;
};

/// Prints \p Listing as --list does, per container: each image kept or
/// removed, its size and why it is kept.
void printListing(llvm::raw_ostream &OS,
                  llvm::ArrayRef<ListedContainer> Listing);

} // namespace prune
} // namespace offload

#endif // LLD_OFFLOAD_TOOLS_OFFLOAD_PRUNE_PRUNER_H

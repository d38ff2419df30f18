//===- Inspector.h - Find every device image in a file, recursively -------===//
//
// Builds a tree of what a file holds: archive members, object sections,
// OffloadBinaries, offload bundles (binary, text, compressed, object
// sections), CUDA fat binaries and, at the leaves, the device images. Images
// that are containers themselves (a fat binary inside an OffloadBinary, a
// bundle inside a bundle entry) get children too.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_INSPECTOR_H
#define LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_INSPECTOR_H

#include "format/FindOffloadBinaries.h"
#include "format/OffloadBinary.h"
#include "format/SPIRVModule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/Binary.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace offload {

struct BundleEntry;

/// One thing found in a file.
struct InspectNode {
  enum class Type {
    File,             // the input or an archive member
    Section,          // an object file's section
    OffloadBinary,    // a 0x10FF10AD binary
    Bundle,           // a binary offload bundle
    TextBundle,       // a text offload bundle
    CompressedBundle, // a CCOB
    ObjectBundle,     // the __CLANG_OFFLOAD_BUNDLE__ sections of an object
    CudaFatbin,       // a CUDA fat binary
    Image,            // a device image
    HostEntry,        // a bundle's host entry (not a device image)
  };
  Type TheType = Type::File;
  /// File, member, section or entry name; the format of a container.
  std::string Name;
  std::string Format;
  /// Offset within the enclosing node's bytes (inflated ones where the
  /// enclosing node is compressed).
  uint64_t Offset = 0;
  /// Offset within the file (or the archive holding the member); none
  /// inside compressed data.
  std::optional<uint64_t> FileOffset;
  uint64_t Size = 0;
  /// The inflated size of a compressed container.
  std::optional<uint64_t> InflatedSize;

  /// Images only.
  int64_t Index = -1;
  std::string OffloadKind, Triple, Arch, ImageKind;
  /// The stored size of a compressed image (Size is then the inflated one).
  std::optional<uint64_t> CompressedSize;
  /// Where an image or a file (an input, an archive member) sits, as a
  /// chain from the input.
  std::string Location;
  /// The bytes of an image or a file, inflated; only the first of an image
  /// that sits in a compressed bundle and needs no walking (see Extract).
  llvm::StringRef Data;
  /// Set when Data holds only the image's first bytes: writes the whole
  /// image, inflating it again from its compressed bundle.
  std::function<llvm::Error(llvm::raw_ostream &)> Extract;

  /// What a SPIR-V image declares (an image whose kind says SPIR-V or whose
  /// bytes are); none for other images, or where the module is malformed
  /// (then Error says why).
  std::optional<SPIRVModuleInfo> SPIRV;

  /// Why this node could not be read further.
  std::string Error;
  std::vector<InspectNode> Children;
};

/// Reads files and keeps every buffer the nodes' views point into.
class Inspector {
public:
  /// Inflate every compressed bundle to its end and check its MD5 (as
  /// clang-offload-bundler does under -verbose); otherwise only what is
  /// shown is inflated, and the hash is not looked at.
  bool VerifyHashes = false;

  /// Inspects the file at \p Path. The tree holds everything that could be
  /// read; malformed parts are marked with their error (see errors()). None
  /// when the file cannot be read at all (missing, a directory): there is
  /// nothing to show of it, only its error, recorded in errors().
  std::optional<InspectNode> inspectFile(llvm::StringRef Path);

  /// Every error recorded so far, in the order met; each names the file,
  /// the offset and the problem.
  const std::vector<std::string> &errors() const { return Errors; }

private:
  /// Where the walk is.
  struct Context {
    /// The bytes of the file (or the archive holding the member): offsets of
    /// views into them are file offsets.
    llvm::StringRef FileData;
    /// The file offset of FileData's first byte (not 0 where FileData is an
    /// aligned copy of part of the file).
    uint64_t FileBase = 0;
    /// Where the bytes being walked sit, e.g. "app:.hip_fatbin".
    std::string Location;
    int Depth = 0;
    /// Walking an image's payload: data that is no container is just data.
    bool InImage = false;
  };
  /// A whole file, archive member or image: what to do follows its magic.
  void walkBuffer(llvm::StringRef Data, const Context &Ctx, InspectNode &Into);
  void walkObject(llvm::MemoryBufferRef Buffer, const Context &Ctx,
                  InspectNode &Into);
  void walkAlignedObject(llvm::MemoryBufferRef Buffer, const Context &Ctx,
                         InspectNode &Into);
  void walkArchive(llvm::MemoryBufferRef Buffer, const Context &Ctx,
                   InspectNode &Into);
  void walkBitcode(llvm::MemoryBufferRef Buffer, const Context &Ctx,
                   InspectNode &Into);
  /// Containers back to back, with zero padding between them (a section,
  /// a raw file, an inflated bundle).
  void walkSequence(llvm::StringRef Data, const Context &Ctx,
                    InspectNode &Into);
  /// The container at \p At of \p Data; returns the offset of its end.
  llvm::Expected<uint64_t> walkOne(llvm::StringRef Data, uint64_t At,
                                   const Context &Ctx, InspectNode &Into);
  void walkBundleEntries(llvm::ArrayRef<BundleEntry> Entries,
                         llvm::StringRef Base, const Context &Ctx,
                         InspectNode &Into);
  /// A bundle entry with ID \p ID, \p Size bytes, of which \p Data holds
  /// all or (with \p Extract) the first; \p Offset within its bundle, none
  /// in an object bundle.
  void addBundleEntry(llvm::StringRef ID, llvm::StringRef Data, uint64_t Size,
                      std::optional<uint64_t> Offset,
                      std::function<llvm::Error(llvm::raw_ostream &)> Extract,
                      const Context &Ctx, InspectNode &Into);
  /// The compressed bundle \p CCOB (see walkOne()), inflated as a stream:
  /// its bundle header, then each entry's first bytes, and the whole of
  /// those that are containers to walk into.
  llvm::Error walkCompressedBundle(llvm::StringRef CCOB, const Context &Inner,
                                   InspectNode &Node);
  /// Numbers \p Image, walks into it if it is a container, reads it if it
  /// is SPIR-V, and adds it.
  void addImage(InspectNode Image, const Context &Ctx, InspectNode &Into);
  /// Reads the SPIR-V module \p Image into its SPIRV, inflating it again,
  /// as a stream, where only its first bytes were.
  void readSPIRV(InspectNode &Image);
  void fail(InspectNode &Node, llvm::Error E);

  std::optional<uint64_t> fileOffset(const Context &Ctx, const char *Ptr) const;

  ByteStore Store;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Buffers;
  std::vector<std::unique_ptr<llvm::object::Binary>> Binaries;
  /// Bitcode's embedded binaries are copies that their finder owns.
  std::vector<std::unique_ptr<OffloadBinaryFinder>> KeptFinders;
  std::vector<std::string> Errors;
  int64_t NextIndex = 0;
};

/// The file name extension --extract gives an image kind ("o", "bc",
/// "cubin", "ptx", "fatbin", "spv", "bin").
llvm::StringRef getExtractExtension(llvm::StringRef ImageKind);

} // namespace offload

#endif // LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_INSPECTOR_H

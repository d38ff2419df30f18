//===- format/OffloadBinary.h - The 0x10FF10AD offload binary ---*- C++ -*-===//
//
// The container that clang's offload driver embeds in `.llvm.offloading`
// sections: a header, one or more entries (image kind, offload kind, flags, a
// string map such as triple= and arch=) and the device images themselves.
// Version 1 holds one entry; version 2 holds several and gives each string
// value a size; version 3 adds an inflated size and may compress everything
// after the header. Several binaries may sit back to back, each starting at an
// 8-byte aligned offset (that is what `ld -r` makes of merged sections).
//
// Readers here are views: an OffloadImage points into the caller's buffer and
// copies nothing, except that a compressed v3 binary is inflated into storage
// the caller provides.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_OFFLOADBINARY_H
#define LLD_OFFLOAD_FORMAT_OFFLOADBINARY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace offload {

/// What an image is, as stored in the entry's image-kind field.
enum class ImageKind : uint16_t {
  None = 0,
  Object = 1,
  Bitcode = 2,
  Cubin = 3,
  Fatbinary = 4,
  PTX = 5,
  SPIRV = 6,
};

/// Which programming model produced an image (the entry's offload-kind
/// field). The values are bits, as in LLVM, though an entry holds one.
enum class OffloadKind : uint16_t {
  None = 0,
  OpenMP = 1,
  Cuda = 2,
  HIP = 4,
  SYCL = 8,
};

/// The file extension LLVM 22 uses for an image kind ("o", "bc", "cubin",
/// "fatbin", "s"), or "" for the others (none, SPIR-V, unknown values).
llvm::StringRef getImageKindName(ImageKind Kind);

/// The image kind LLVM 22 infers from a file extension without its dot
/// (the inverse of getImageKindName()); None if unknown.
ImageKind getImageKindFromExtension(llvm::StringRef Ext);

/// "openmp", "cuda", "hip", "sycl", or "none" for anything else.
llvm::StringRef getOffloadKindName(OffloadKind Kind);

/// The offload kind named by \p Name as `kind=` spells it; None if unknown.
OffloadKind getOffloadKindFromName(llvm::StringRef Name);

/// Layout constants of the on-disk format.
namespace layout {
constexpr char Magic[4] = {'\x10', '\xFF', '\x10', '\xAD'};
constexpr uint64_t Alignment = 8;
constexpr uint64_t HeaderSize = 32;   // versions 1 and 2
constexpr uint64_t HeaderSizeV3 = 40; // adds the inflated size
constexpr uint64_t EntrySize = 40;
constexpr uint64_t StringEntrySizeV1 = 16; // key and value offsets
constexpr uint64_t StringEntrySizeV2 = 24; // plus the value size
constexpr uint32_t MaxVersion = 3;
} // namespace layout

/// One device image and its metadata: an entry of an OffloadBinary. Every
/// StringRef points into the buffer the binary was read from.
struct OffloadImage {
  ImageKind TheImageKind = ImageKind::None;
  OffloadKind TheOffloadKind = OffloadKind::None;
  uint32_t Flags = 0;
  /// Key/value strings in the order they are stored.
  llvm::SmallVector<std::pair<llvm::StringRef, llvm::StringRef>, 4> Strings;
  /// The image bytes.
  llvm::StringRef Image;
  /// Offset of the image bytes from the start of their (inflated) binary.
  uint64_t ImageOffset = 0;

  /// The value of \p Key, or "" when absent; the last one wins if repeated.
  llvm::StringRef getString(llvm::StringRef Key) const;
  llvm::StringRef getTriple() const { return getString("triple"); }
  llvm::StringRef getArch() const { return getString("arch"); }
};

/// One OffloadBinary: a header and the entries it holds.
struct OffloadBinary {
  uint32_t Version = 1;
  /// Offset of the binary's first byte in the buffer it was read from.
  uint64_t Offset = 0;
  /// The stored bytes, from the magic to the header's size.
  llvm::StringRef Data;
  /// True for a v3 binary whose body was compressed; Images then point into
  /// the inflated copy.
  bool Compressed = false;
  llvm::SmallVector<OffloadImage, 1> Images;
};

/// Owns bytes that views need when they cannot point into an input: inflated
/// v3 binaries, copies out of bitcode, thin-archive members.
class ByteStore {
public:
  /// Keeps \p Buffer alive as long as the store and returns its contents.
  llvm::StringRef keep(std::unique_ptr<llvm::MemoryBuffer> Buffer);

private:
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Buffers;
};

/// Parses the OffloadBinary that starts at \p Offset of \p Buffer. \p Name
/// and \p BaseOffset (the buffer's offset within that file) only serve the
/// error messages, which name the file, the absolute offset and the problem.
llvm::Expected<OffloadBinary> readOffloadBinary(llvm::StringRef Buffer,
                                                uint64_t Offset,
                                                ByteStore &Store,
                                                llvm::StringRef Name = "",
                                                uint64_t BaseOffset = 0);

/// Parses every OffloadBinary stored back to back in \p Buffer (a whole
/// `.llvm.offloading` section, or a raw file), each at the 8-byte aligned
/// offset that follows the previous one.
llvm::Expected<std::vector<OffloadBinary>>
readOffloadBinaries(llvm::StringRef Buffer, ByteStore &Store,
                    llvm::StringRef Name = "", uint64_t BaseOffset = 0);

/// True if \p Data starts with the OffloadBinary magic.
bool hasOffloadBinaryMagic(llvm::StringRef Data);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_OFFLOADBINARY_H

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
// copies nothing, except that a compressed v3 binary is inflated, as a stream,
// into storage the caller provides: whole, or (InflateMode::Metadata) only as
// far as its entries and strings, its images then inflated on demand by
// streamOffloadImages().
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_OFFLOADBINARY_H
#define LLD_OFFLOAD_FORMAT_OFFLOADBINARY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
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
  /// The image bytes; empty when the image was left compressed (see
  /// DeferredSize).
  llvm::StringRef Image;
  /// Offset of the image bytes from the start of their (inflated) binary.
  uint64_t ImageOffset = 0;
  /// Set when the image sits in a compressed binary read with
  /// InflateMode::Metadata: the image's size, its bytes being inflated only
  /// by streamOffloadImages() and the like.
  std::optional<uint64_t> DeferredSize;

  /// True if the image bytes were left compressed.
  bool isDeferred() const { return DeferredSize.has_value(); }
  /// The image's size, whether its bytes are at hand or not.
  uint64_t getImageSize() const {
    return DeferredSize ? *DeferredSize : Image.size();
  }

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
  /// the inflated copy, or are deferred (InflateMode::Metadata).
  bool Compressed = false;
  llvm::SmallVector<OffloadImage, 1> Images;
  /// How errors name the binary's file, and the binary's offset in it, for
  /// inflating deferred images later.
  std::string FileName;
  uint64_t FileOffset = 0;
};

/// How much of a compressed (v3) binary a reader inflates. Either way the
/// body is inflated as a stream and nothing is allocated from a size field
/// before the data has yielded it.
enum class InflateMode {
  /// All of it, into one copy that the images point into.
  Whole,
  /// Only the entry table, the string tables and the strings (at most
  /// MaxCompressedMetadata bytes of them), stopping there: images are
  /// deferred.
  Metadata,
};

/// The most memory that InflateMode::Metadata spends on the entries, string
/// tables and strings of one compressed binary (real ones need a few hundred
/// bytes an image); more is an error.
constexpr uint64_t MaxCompressedMetadata = 32ULL << 20;

/// Owns bytes that views need when they cannot point into an input: inflated
/// v3 binaries, copies out of bitcode, thin-archive members.
class ByteStore {
public:
  /// Keeps \p Buffer alive as long as the store and returns its contents.
  llvm::StringRef keep(std::unique_ptr<llvm::MemoryBuffer> Buffer);
  /// Keeps \p Bytes as long as the store and returns them.
  llvm::StringRef keep(llvm::SmallVector<char, 0> Bytes);

private:
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Buffers;
  std::vector<std::unique_ptr<llvm::SmallVector<char, 0>>> Vectors;
};

/// Parses the OffloadBinary that starts at \p Offset of \p Buffer. \p Name
/// and \p BaseOffset (the buffer's offset within that file) only serve the
/// error messages, which name the file, the absolute offset and the problem.
llvm::Expected<OffloadBinary>
readOffloadBinary(llvm::StringRef Buffer, uint64_t Offset, ByteStore &Store,
                  llvm::StringRef Name = "", uint64_t BaseOffset = 0,
                  InflateMode Mode = InflateMode::Whole);

/// Parses every OffloadBinary stored back to back in \p Buffer (a whole
/// `.llvm.offloading` section, or a raw file), each at the 8-byte aligned
/// offset that follows the previous one.
llvm::Expected<std::vector<OffloadBinary>>
readOffloadBinaries(llvm::StringRef Buffer, ByteStore &Store,
                    llvm::StringRef Name = "", uint64_t BaseOffset = 0,
                    InflateMode Mode = InflateMode::Whole);

/// Calls \p Sink with the bytes of the images \p Indices of \p Binary, a
/// piece at a time. Deferred images are inflated as a stream (in order of
/// offset, a megabyte at a time, nothing past the last one); the others come
/// whole, in the order asked. An image the data ends inside is an error
/// naming the file and the offset. With \p MaxBytes, only the first that
/// many bytes of each image are delivered (and inflated).
llvm::Error streamOffloadImages(
    const OffloadBinary &Binary, llvm::ArrayRef<size_t> Indices,
    llvm::function_ref<llvm::Error(size_t Index, llvm::StringRef Piece)> Sink,
    uint64_t MaxBytes = UINT64_MAX);

/// The bytes of image \p Index of \p Binary: the view itself, or for a
/// deferred image a copy kept in \p Store (grown as the data comes).
llvm::Expected<llvm::StringRef>
loadOffloadImage(const OffloadBinary &Binary, size_t Index, ByteStore &Store);

/// loadOffloadImage() of each of the images \p Indices, the deferred ones
/// inflated in one pass over the stream, not one each.
llvm::Expected<std::vector<llvm::StringRef>>
loadOffloadImages(const OffloadBinary &Binary, llvm::ArrayRef<size_t> Indices,
                  ByteStore &Store);

/// True if \p Data starts with the OffloadBinary magic.
bool hasOffloadBinaryMagic(llvm::StringRef Data);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_OFFLOADBINARY_H

//===- format/OffloadBinaryWriter.h - Writing 0x10FF10AD binaries -*- C++ -*-=//
//
// Writes images in the OffloadBinary format. Version 1, the one LLVM 22 reads,
// holds one image per binary, so several images become several binaries back
// to back; versions 2 and 3 put every image in one binary. The bytes match
// LLVM's writer: strings go through LLVM's ELF string table builder and the
// string entries keep the order the caller gives.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_OFFLOADBINARYWRITER_H
#define LLD_OFFLOAD_FORMAT_OFFLOADBINARYWRITER_H

#include "format/OffloadBinary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace offload {

/// An image to write and the metadata that goes with it.
struct ImageToWrite {
  ImageKind TheImageKind = ImageKind::None;
  OffloadKind TheOffloadKind = OffloadKind::None;
  uint32_t Flags = 0;
  /// Key/value strings, written in this order.
  llvm::SmallVector<std::pair<std::string, std::string>, 4> Strings;
  /// The image bytes; the writer does not copy them before streaming.
  llvm::StringRef Image;
};

/// How to write: the format version and, for version 3, compression.
struct WriteOptions {
  uint32_t Version = 1;
  /// Version 3 only: compress the body with zstd (else zlib) when set.
  bool Compress = false;
  bool UseZstd = true;
  int CompressionLevel = 3;
};

/// The number of bytes writeOffloadBinaries() produces for \p Images, or an
/// error if a size overflows 64 bits or the version is not 1, 2 or 3.
/// Compressed output has no size known in advance: asking is an error.
llvm::Expected<uint64_t> getOffloadBinariesSize(llvm::ArrayRef<ImageToWrite> Images,
                                                const WriteOptions &Options);

/// Writes \p Images to \p OS: one v1 binary per image, or one v2/v3 binary
/// holding them all. Writes nothing for an empty list.
llvm::Error writeOffloadBinaries(llvm::raw_ostream &OS,
                                 llvm::ArrayRef<ImageToWrite> Images,
                                 const WriteOptions &Options);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_OFFLOADBINARYWRITER_H

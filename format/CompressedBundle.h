//===- format/CompressedBundle.h - Compressed offload bundles ---*- C++ -*-===//
//
// A compressed offload bundle ("CCOB"): "CCOB", u16 version, u16 method
// (0 zlib, 1 zstd), then
//   v1: u32 uncompressed size, u64 hash                     (20-byte header)
//   v2: u32 total size, u32 uncompressed size, u64 hash     (24 bytes)
//   v3: u64 total size, u64 uncompressed size, u64 hash     (32 bytes)
// and the compressed bundle. The hash is the first 8 bytes of the MD5 of the
// uncompressed bundle. Several may follow each other in one section; each
// ends where its header's total size says (v1 has none: it runs to the end).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_COMPRESSEDBUNDLE_H
#define LLD_OFFLOAD_FORMAT_COMPRESSEDBUNDLE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace offload {

constexpr llvm::StringLiteral CompressedBundleMagic = "CCOB";

/// The fields of a compressed bundle's header.
struct CompressedBundleHeader {
  uint16_t Version = 3;
  llvm::compression::Format Method = llvm::compression::Format::Zstd;
  /// Header and compressed data together; none in version 1.
  std::optional<uint64_t> TotalSize;
  uint64_t UncompressedSize = 0;
  uint64_t Hash = 0;
  uint64_t HeaderSize = 0;
};

/// True if \p Data starts with "CCOB".
bool isCompressedBundle(llvm::StringRef Data);

/// Parses the header at the start of \p Data; errors name \p Name, the
/// offset \p Base + field and the problem.
llvm::Expected<CompressedBundleHeader>
readCompressedBundleHeader(llvm::StringRef Data, llvm::StringRef Name,
                           uint64_t Base = 0);

/// Splits \p Data into the compressed bundles it holds back to back, each
/// bounded by its header's total size (never by looking for the next magic,
/// which compressed bytes may contain).
llvm::Expected<std::vector<llvm::StringRef>>
splitCompressedBundles(llvm::StringRef Data, llvm::StringRef Name);

/// Inflates one compressed bundle (as split by splitCompressedBundles()).
/// With \p VerifyHash, a hash that does not match the inflated bytes is an
/// error.
llvm::Expected<llvm::SmallVector<char, 0>>
decompressBundle(llvm::StringRef Data, llvm::StringRef Name,
                 bool VerifyHash, CompressedBundleHeader *Header = nullptr);

/// How to compress.
struct BundleCompression {
  llvm::compression::Format Method = llvm::compression::Format::Zstd;
  int Level = 3;
  uint16_t Version = 3;
};

/// Bundles of this size and more are compressed by several zstd workers.
constexpr uint64_t MultiThreadedZstdThreshold = 32ULL << 20;

/// Version 2 headers hold 32-bit sizes: an error, in clang-offload-bundler's
/// words, if \p UncompressedSize or \p TotalSize (header and compressed data)
/// do not fit. Versions 1 and 3 have no limit here.
llvm::Error checkCompressedBundleSizes(uint16_t Version,
                                       uint64_t UncompressedSize,
                                       uint64_t TotalSize);

/// Compresses \p Bundle into a compressed bundle: the bytes
/// clang-offload-bundler 22 writes for the same options, except that zstd
/// bundles of MultiThreadedZstdThreshold bytes and more use several threads
/// (a frame LLVM reads the same way, identical for any number of threads).
llvm::Expected<llvm::SmallVector<char, 0>>
compressBundle(llvm::StringRef Bundle, const BundleCompression &Options);

/// The first 8 bytes of the MD5 of \p Data, as the header stores it.
uint64_t getBundleHash(llvm::StringRef Data);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_COMPRESSEDBUNDLE_H

//===- format/InspectCudaFatbin.h - CUDA fat binaries, read-only -*- C++ -*-=//
//
// The fat binaries that NVIDIA's `fatbinary` writes and `.nv_fatbin` sections
// hold. The layout is not documented by NVIDIA; what is read here was pinned
// against `fatbinary --create` of CUDA 13.0 (see docs/offload-inspect.md):
//
//   header (16 bytes): u32 magic 0xBA55ED50, u16 version 1, u16 header size,
//                      u64 size of the entries that follow the header
//   entry header:      u16 kind (1 PTX, 2 ELF cubin), u16 entry version,
//                      u32 header size, u64 payload size (padded),
//                      u32 compressed size, u32 (PTX: address size),
//                      u16 minor, u16 major, u32 sm arch (e.g. 90),
//                      u32 name offset, u32 name size, u64 flags,
//                      u64 reserved, u64 uncompressed size
//                      (then more bytes up to the header size)
//   payload:           right after the entry header.
//
// Flags 0x2000 (LZ4) and 0x8000 (zstd) mark compressed payloads. Several fat
// binaries may follow each other (a `.nv_fatbin` after `ld -r`).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_INSPECTCUDAFATBIN_H
#define LLD_OFFLOAD_FORMAT_INSPECTCUDAFATBIN_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace offload {

constexpr uint32_t CudaFatbinMagic = 0xBA55ED50;

/// What a fat binary entry holds.
enum class CudaFatbinEntryKind : uint16_t { PTX = 1, Cubin = 2 };

/// Flags of an entry's header.
namespace cudafatbin {
constexpr uint64_t FlagCompressedLZ4 = 0x2000;
constexpr uint64_t FlagCompressedZstd = 0x8000;
constexpr uint64_t HeaderSize = 16;
/// The smallest entry header that holds every field read here.
constexpr uint64_t MinEntryHeaderSize = 64;
} // namespace cudafatbin

/// One entry of a CUDA fat binary: a view into the caller's buffer.
struct CudaFatbinEntry {
  uint16_t Kind = 0;
  uint32_t Arch = 0;
  uint16_t Major = 0;
  uint16_t Minor = 0;
  uint64_t Flags = 0;
  /// Offset of the entry header from the start of the fat binary.
  uint64_t Offset = 0;
  /// Offset of the payload from the start of the fat binary.
  uint64_t PayloadOffset = 0;
  /// The stored payload: the compressed bytes when compressed (without the
  /// padding), else the padded payload.
  llvm::StringRef Payload;
  /// Size of the payload once inflated; 0 unless compressed.
  uint64_t UncompressedSize = 0;

  bool isCompressed() const {
    return Flags &
           (cudafatbin::FlagCompressedLZ4 | cudafatbin::FlagCompressedZstd);
  }
};

/// One fat binary: its bytes (header and entries) and its entries.
struct CudaFatbin {
  uint16_t Version = 0;
  llvm::StringRef Data;
  std::vector<CudaFatbinEntry> Entries;
};

/// True if \p Data starts with the fat binary magic.
bool isCudaFatbin(llvm::StringRef Data);

/// Reads the fat binary at the start of \p Data. Every size is checked
/// against the data; errors name \p Name, the offset (from the start of
/// \p Data) and the problem.
llvm::Expected<CudaFatbin> readCudaFatbin(llvm::StringRef Data,
                                          llvm::StringRef Name);

/// Inflates a compressed entry's payload, zstd (through LLVM) or LZ4 (a raw
/// block, through liblz4); the inflated size must be the one the header
/// gives.
llvm::Expected<llvm::SmallVector<uint8_t, 0>>
decompressCudaFatbinEntry(const CudaFatbinEntry &Entry, llvm::StringRef Name);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_INSPECTCUDAFATBIN_H

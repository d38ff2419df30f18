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

#include "format/OffloadBundle.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MD5.h"

#include <memory>
#include <string>

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

/// Inflates one compressed bundle as a stream, a piece at a time: memory is
/// the codec's window (32 KiB for zlib; for zstd, the frame's window, at most
/// 128 MiB, and only as much of it as was inflated), whatever the sizes in
/// the header say. The inflated data must end exactly where the header's
/// uncompressed size says: more or less is an error naming the file and the
/// offset of that field.
class CompressedBundleReader {
public:
  /// Opens the compressed bundle \p Data (as split by
  /// splitCompressedBundles()), which sits at offset \p Base of \p Name.
  static llvm::Expected<std::unique_ptr<CompressedBundleReader>>
  open(llvm::StringRef Data, llvm::StringRef Name, uint64_t Base = 0);

  /// Opens a bare zstd or zlib stream \p Compressed that must inflate to
  /// exactly \p UncompressedSize bytes (the compressed body of a v3
  /// OffloadBinary, say). Errors name \p Name and an offset from \p Base:
  /// \p DataOffset + the position in \p Compressed where inflating fails,
  /// \p SizeFieldOffset where the data ends before or after the size. They
  /// call the data \p What and add \p SizeBias to the sizes they tell
  /// (where the size field counts more than the stream, as a v3
  /// OffloadBinary's counts its header). header() holds the method and the
  /// size only.
  static llvm::Expected<std::unique_ptr<CompressedBundleReader>>
  openStream(llvm::StringRef Compressed, llvm::compression::Format Method,
             uint64_t UncompressedSize, llvm::StringRef Name, uint64_t Base,
             uint64_t DataOffset, uint64_t SizeFieldOffset,
             llvm::StringRef What, uint64_t SizeBias = 0);
  ~CompressedBundleReader();

  const CompressedBundleHeader &header() const { return Header; }
  /// The file the bundle is in, as errors name it.
  llvm::StringRef name() const { return Name; }
  /// The offset of the bundle in that file.
  uint64_t base() const { return Base; }
  /// Inflated bytes delivered (or skipped) so far.
  uint64_t position() const { return Position; }
  /// Compressed bytes consumed so far (header excluded).
  uint64_t compressedPosition() const { return InPos; }

  /// Also computes the MD5 of every inflated byte (see hash()); must be
  /// called before anything is read.
  void enableHash();

  /// Tells that the compressed data is a read-only mapping of a file: pages
  /// of it already inflated are then dropped from memory as reading goes on
  /// (they would be read from the file again if touched), so that memory
  /// stays bounded however much is inflated. Never for data in writable
  /// memory, which dropping would zero.
  void setInputIsFileMapping(bool Mapped) { InputMapped = Mapped; }

  /// Inflates up to \p Size bytes into \p Buffer and returns how many: fewer
  /// only at the end of the data (then 0 once everything was delivered).
  llvm::Expected<size_t> read(char *Buffer, size_t Size);
  /// Inflates up to \p Size bytes into \p Buffer, fewer where the data ends
  /// before the header's size, which is no error here (the next read()
  /// tells it).
  llvm::Expected<size_t> readAvailable(char *Buffer, size_t Size);
  /// Inflates exactly \p Size bytes into \p Buffer; the data ending first is
  /// an error.
  llvm::Error readExactly(char *Buffer, size_t Size);
  /// Inflates \p Size bytes and drops them.
  llvm::Error skip(uint64_t Size);
  /// Inflates the rest, dropping it, and checks the end of the data.
  llvm::Error finish();

  /// With enableHash(), once finish() succeeded: the first 8 bytes of the MD5
  /// of the inflated data, as the header stores them.
  uint64_t hash();

private:
  CompressedBundleReader() = default;
  llvm::Error startCodec();
  llvm::Error fail(const llvm::Twine &Msg);
  llvm::Error sizeError(const llvm::Twine &Msg);
  /// Inflates into [Out, Out + Size); sets Ended at the end of the stream.
  llvm::Expected<size_t> inflate(char *Out, size_t Size);
  /// inflate(), with the bytes hashed (when asked for) and counted.
  llvm::Expected<size_t> inflateCounted(char *Out, size_t Size);

  struct Codec;
  std::unique_ptr<Codec> State;
  CompressedBundleHeader Header;
  llvm::StringRef Compressed;
  std::string Name;
  /// What errors call the data ("compressed bundle").
  std::string What;
  uint64_t Base = 0;
  /// Where, from Base, the compressed data and the uncompressed size are.
  uint64_t DataOffset = 0;
  uint64_t SizeFieldOffset = 0;
  uint64_t SizeBias = 0;
  uint64_t Position = 0;
  uint64_t InPos = 0;
  bool Ended = false;
  bool InputMapped = false;
  /// The compressed bytes before this were dropped from memory.
  uint64_t InReleased = 0;
  void releaseConsumedInput();
  std::unique_ptr<llvm::MD5> Hasher;
};

/// Reads the binary bundle header that starts \p Reader's inflated data,
/// inflating no further than its end. If the inflated data is no binary
/// bundle, returns std::nullopt having inflated at most the magic's length.
llvm::Expected<std::optional<BinaryBundleHeader>>
readInflatedBundleHeader(CompressedBundleReader &Reader);

/// Inflates the payloads of \p Entries from \p Reader, positioned at or
/// before the first of them, calling \p Sink with each entry's index in
/// \p Entries and its bytes, a piece at a time, in order of offset. The
/// entries must not overlap (as readBinaryBundleHeader() checks); nothing
/// after the last of them is inflated.
llvm::Error streamBundlePayloads(
    CompressedBundleReader &Reader, llvm::ArrayRef<BundleEntryLocation> Entries,
    llvm::function_ref<llvm::Error(size_t Index, llvm::StringRef Piece)> Sink);

/// Inflates one compressed bundle (as split by splitCompressedBundles()),
/// growing the result as the data comes (never from the header's size).
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

/// What clang-offload-bundler's environment asks of the bundles it writes
/// (LLVM's OffloadBundlerConfig reads it, in the tool and in
/// clang-linker-wrapper alike): OFFLOAD_BUNDLER_COMPRESS=1,
/// OFFLOAD_BUNDLER_VERBOSE=1, OFFLOAD_BUNDLER_COMPRESSION_LEVEL=<n> and
/// COMPRESSED_BUNDLE_FORMAT_VERSION=2|3; none of it when
/// OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1.
struct BundlerEnvironment {
  bool Compress = false;
  bool Verbose = false;
  std::optional<int> Level;
  std::optional<uint16_t> Version;
  /// Values refused, in clang-offload-bundler's words ("Warning: ...").
  std::vector<std::string> Warnings;
};
BundlerEnvironment readBundlerEnvironment();

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

/// Writes a compressed bundle while the bundle is written to it: the bytes
/// compressBundle() makes of the same bundle, with the same options. Zstd
/// bundles of MultiThreadedZstdThreshold bytes and more are compressed as a
/// stream, with the hash computed in the same pass: the compressed frame goes
/// to the output as it comes, after a placeholder header that finish() fills
/// in place, so that neither the bundle nor its compressed form is ever
/// whole in memory (zstd's window, up to 128 MiB, is). Smaller bundles and
/// zlib are gathered and compressed at once, as compressBundle() does.
class CompressedBundleWriter : public llvm::raw_ostream {
public:
  /// Starts a compressed bundle at the current position of \p Out, which
  /// errors name \p Name; exactly \p BundleSize bytes must be written to it
  /// (the size is stored in zstd's frame and decides its parameters). Unless
  /// \p OutCanSeek (raw_fd_ostream::supportsSeeking()), the compressed data
  /// waits in memory for the header.
  static llvm::Expected<std::unique_ptr<CompressedBundleWriter>>
  create(llvm::raw_pwrite_stream &Out, bool OutCanSeek, uint64_t BundleSize,
         const BundleCompression &Options, llvm::StringRef Name);
  ~CompressedBundleWriter() override;

  /// Compresses what is left and writes the header; returns it.
  llvm::Expected<CompressedBundleHeader> finish();

private:
  CompressedBundleWriter(llvm::raw_pwrite_stream &Out);
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Written; }
  /// Runs zstd over \p Input (none to end the frame) and passes on what it
  /// gives; false once an error was recorded.
  bool compress(const char *Ptr, size_t Size, bool End);
  void emit(const char *Ptr, size_t Size);
  void fail(const llvm::Twine &Msg);

  struct Zstd;
  std::unique_ptr<Zstd> Stream;
  llvm::raw_pwrite_stream &Out;
  BundleCompression Options;
  std::string Name;
  uint64_t BundleSize = 0;
  uint64_t Written = 0;
  /// Where the header goes in Out.
  uint64_t HeaderAt = 0;
  uint64_t CompressedSize = 0;
  /// The bundle, when it is compressed at once.
  llvm::SmallVector<char, 0> Gathered;
  /// The compressed data, when Out cannot seek.
  llvm::SmallVector<char, 0> Pending;
  bool Seekable = false;
  bool Finished = false;
  llvm::MD5 Hasher;
  /// The first error, reported by finish().
  std::string Failure;
};

/// The first 8 bytes of the MD5 of \p Data, as the header stores it.
uint64_t getBundleHash(llvm::StringRef Data);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_COMPRESSEDBUNDLE_H

//===- format/CompressedBundle.cpp - Compressed offload bundles -----------===//

#include "format/CompressedBundle.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <zstd.h>

using namespace llvm;

namespace offload {

static Error ccobError(StringRef Name, uint64_t Offset, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           Name + ": offset 0x" + utohexstr(Offset) +
                               ": compressed bundle: " + Msg);
}

bool isCompressedBundle(StringRef Data) {
  return Data.starts_with(CompressedBundleMagic);
}

uint64_t getBundleHash(StringRef Data) {
  MD5 Hash;
  MD5::MD5Result Result;
  Hash.update(Data);
  Hash.final(Result);
  return Result.low();
}

Expected<CompressedBundleHeader>
readCompressedBundleHeader(StringRef Data, StringRef Name, uint64_t Base) {
  if (!isCompressedBundle(Data))
    return ccobError(Name, Base, "no CCOB magic");
  if (Data.size() < 8)
    return ccobError(Name, Base, "truncated header");
  CompressedBundleHeader H;
  H.Version = support::endian::read16le(Data.data() + 4);
  uint16_t Method = support::endian::read16le(Data.data() + 6);
  switch (H.Version) {
  case 1:
    H.HeaderSize = 20;
    break;
  case 2:
    H.HeaderSize = 24;
    break;
  case 3:
    H.HeaderSize = 32;
    break;
  default:
    return ccobError(Name, Base + 4,
                     "unknown version " + Twine(H.Version) +
                         " (1, 2 and 3 are known)");
  }
  if (Method == static_cast<uint16_t>(compression::Format::Zlib))
    H.Method = compression::Format::Zlib;
  else if (Method == static_cast<uint16_t>(compression::Format::Zstd))
    H.Method = compression::Format::Zstd;
  else
    return ccobError(Name, Base + 6,
                     "unknown compression method " + Twine(Method));
  if (Data.size() < H.HeaderSize)
    return ccobError(Name, Base,
                     "truncated version " + Twine(H.Version) + " header (" +
                         Twine(Data.size()) + " of " + Twine(H.HeaderSize) +
                         " bytes)");
  const char *P = Data.data() + 8;
  switch (H.Version) {
  case 1:
    H.UncompressedSize = support::endian::read32le(P);
    H.Hash = support::endian::read64le(P + 4);
    break;
  case 2:
    H.TotalSize = support::endian::read32le(P);
    H.UncompressedSize = support::endian::read32le(P + 4);
    H.Hash = support::endian::read64le(P + 8);
    break;
  case 3:
    H.TotalSize = support::endian::read64le(P);
    H.UncompressedSize = support::endian::read64le(P + 8);
    H.Hash = support::endian::read64le(P + 16);
    break;
  }
  if (H.TotalSize && (*H.TotalSize < H.HeaderSize || *H.TotalSize > Data.size()))
    return ccobError(Name, Base + 8,
                     "total size " + Twine(*H.TotalSize) +
                         (*H.TotalSize < H.HeaderSize
                              ? " is smaller than its header"
                              : " runs past the end of the " +
                                    Twine(Data.size()) + " bytes left"));
  return H;
}

Expected<std::vector<StringRef>> splitCompressedBundles(StringRef Data,
                                                        StringRef Name) {
  std::vector<StringRef> Bundles;
  uint64_t At = 0;
  while (At < Data.size()) {
    Expected<CompressedBundleHeader> H =
        readCompressedBundleHeader(Data.drop_front(At), Name, At);
    if (!H)
      return H.takeError();
    uint64_t Size = H->TotalSize ? *H->TotalSize : Data.size() - At;
    Bundles.push_back(Data.substr(At, Size));
    At += Size;
    // Sections pad between bundles with zeros; skip them.
    while (At < Data.size() && Data[At] == '\0')
      ++At;
  }
  return std::move(Bundles);
}

Expected<SmallVector<char, 0>> decompressBundle(StringRef Data, StringRef Name,
                                                bool VerifyHash,
                                                CompressedBundleHeader *Out) {
  Expected<CompressedBundleHeader> H = readCompressedBundleHeader(Data, Name);
  if (!H)
    return H.takeError();
  uint64_t End = H->TotalSize ? *H->TotalSize : Data.size();
  StringRef Compressed = Data.slice(H->HeaderSize, End);
  // No format inflates by more than about 1:32000; refuse headers that ask
  // for more than the data could ever give.
  if (H->UncompressedSize / (1 << 16) > Compressed.size())
    return ccobError(Name, 8,
                     "uncompressed size " + Twine(H->UncompressedSize) +
                         " is implausible for " + Twine(Compressed.size()) +
                         " compressed bytes");
  SmallVector<uint8_t, 0> Inflated;
  if (Error E = compression::decompress(H->Method,
                                        arrayRefFromStringRef(Compressed),
                                        Inflated, H->UncompressedSize))
    return ccobError(Name, H->HeaderSize,
                     "cannot inflate: " + toString(std::move(E)));
  if (Inflated.size() != H->UncompressedSize)
    return ccobError(Name, 8,
                     "inflated to " + Twine(Inflated.size()) +
                         " bytes where the header says " +
                         Twine(H->UncompressedSize));
  StringRef Bytes = toStringRef(Inflated);
  if (VerifyHash && getBundleHash(Bytes) != H->Hash)
    return ccobError(Name, H->HeaderSize - 8,
                     "hash 0x" + utohexstr(H->Hash) +
                         " does not match the inflated data (0x" +
                         utohexstr(getBundleHash(Bytes)) + ")");
  if (Out)
    *Out = *H;
  return SmallVector<char, 0>(Bytes.begin(), Bytes.end());
}

Error checkCompressedBundleSizes(uint16_t Version, uint64_t UncompressedSize,
                                 uint64_t TotalSize) {
  if (Version != 2)
    return Error::success();
  auto TooLarge = [](StringRef What, uint64_t Size) {
    return createStringError(
        inconvertibleErrorCode(),
        What + " exceeds version 2 limit (" + Twine(Size) + " > " +
            Twine(UINT32_MAX) +
            " bytes; compressed bundle version 3 has 64-bit sizes)");
  };
  if (UncompressedSize > UINT32_MAX)
    return TooLarge("Uncompressed size", UncompressedSize);
  if (TotalSize > UINT32_MAX)
    return TooLarge("Total file size", TotalSize);
  return Error::success();
}

/// zstd with worker threads, for large bundles: the frame is the same for any
/// number of workers (so output does not depend on the machine), though not
/// the single-threaded frame LLVM writes; both read the same.
static Error compressZstdMultiThreaded(StringRef Bundle, int Level,
                                       SmallVectorImpl<uint8_t> &Out) {
  ZSTD_CCtx *Ctx = ZSTD_createCCtx();
  if (!Ctx)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create a zstd context");
  scope_exit Free([&] { ZSTD_freeCCtx(Ctx); });
  unsigned Workers = std::clamp(llvm::hardware_concurrency().compute_thread_count(),
                                1u, 8u);
  for (auto [Param, Value] :
       {std::pair{ZSTD_c_compressionLevel, Level},
        std::pair{ZSTD_c_enableLongDistanceMatching, 1},
        std::pair{ZSTD_c_nbWorkers, static_cast<int>(Workers)}}) {
    size_t R = ZSTD_CCtx_setParameter(Ctx, Param, Value);
    if (ZSTD_isError(R))
      return createStringError(inconvertibleErrorCode(),
                               Twine("zstd: ") + ZSTD_getErrorName(R));
  }
  Out.resize_for_overwrite(ZSTD_compressBound(Bundle.size()));
  size_t Size = ZSTD_compress2(Ctx, Out.data(), Out.size(), Bundle.data(),
                               Bundle.size());
  if (ZSTD_isError(Size))
    return createStringError(inconvertibleErrorCode(),
                             Twine("zstd: ") + ZSTD_getErrorName(Size));
  Out.truncate(Size);
  return Error::success();
}

Expected<SmallVector<char, 0>> compressBundle(StringRef Bundle,
                                              const BundleCompression &O) {
  if (O.Version != 2 && O.Version != 3)
    return createStringError(inconvertibleErrorCode(),
                             "compressed bundle version " + Twine(O.Version) +
                                 " cannot be written (2 and 3 can)");
  if (const char *Reason = compression::getReasonIfUnsupported(O.Method))
    return createStringError(inconvertibleErrorCode(), Reason);
  // Refused before spending the time to compress; the total size is checked
  // once known.
  if (Error E = checkCompressedBundleSizes(O.Version, Bundle.size(), 0))
    return std::move(E);
  SmallVector<uint8_t, 0> Compressed;
  if (O.Method == compression::Format::Zstd &&
      Bundle.size() >= MultiThreadedZstdThreshold) {
    if (Error E = compressZstdMultiThreaded(Bundle, O.Level, Compressed))
      return std::move(E);
  } else {
    // zstd with long-distance matching, as clang-offload-bundler compresses.
    compression::compress({O.Method, O.Level,
                           O.Method == compression::Format::Zstd},
                          arrayRefFromStringRef(Bundle), Compressed);
  }
  uint64_t HeaderSize = O.Version == 2 ? 24 : 32;
  uint64_t Total = HeaderSize + Compressed.size();
  if (Error E = checkCompressedBundleSizes(O.Version, Bundle.size(), Total))
    return std::move(E);
  SmallVector<char, 0> Out;
  raw_svector_ostream OS(Out);
  support::endian::Writer W(OS, endianness::little);
  OS << CompressedBundleMagic;
  W.write<uint16_t>(O.Version);
  W.write<uint16_t>(static_cast<uint16_t>(O.Method));
  if (O.Version == 2) {
    W.write<uint32_t>(Total);
    W.write<uint32_t>(Bundle.size());
  } else {
    W.write<uint64_t>(Total);
    W.write<uint64_t>(Bundle.size());
  }
  W.write<uint64_t>(getBundleHash(Bundle));
  OS << toStringRef(Compressed);
  return std::move(Out);
}

} // namespace offload

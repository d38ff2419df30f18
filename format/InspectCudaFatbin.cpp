//===- format/InspectCudaFatbin.cpp - CUDA fat binaries, read-only --------===//

#include "format/InspectCudaFatbin.h"
#include "format/FormatError.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compression.h"

#include "llvm/Support/Endian.h"
#include <lz4.h>

using namespace llvm;

namespace offload {

static Error fatbinError(StringRef Name, uint64_t Offset, const Twine &Msg) {
  return formatError(Name, Offset, Msg);
}

template <typename T> static T load(StringRef Data, uint64_t At) {
  return support::endian::read<T, llvm::endianness::little>(Data.data() + At);
}

bool isCudaFatbin(StringRef Data) {
  return Data.size() >= 4 && load<uint32_t>(Data, 0) == CudaFatbinMagic;
}

Expected<CudaFatbin> readCudaFatbin(StringRef Data, StringRef Name) {
  if (Data.size() < cudafatbin::HeaderSize)
    return fatbinError(Name, 0,
                       "truncated fat binary header (" + Twine(Data.size()) +
                           " bytes, need 16)");
  if (!isCudaFatbin(Data))
    return fatbinError(Name, 0, "not a CUDA fat binary (bad magic)");
  CudaFatbin Fatbin;
  Fatbin.Version = load<uint16_t>(Data, 4);
  uint64_t HeaderSize = load<uint16_t>(Data, 6);
  uint64_t EntriesSize = load<uint64_t>(Data, 8);
  if (Fatbin.Version != 1)
    return fatbinError(Name, 4,
                       "unsupported fat binary version " +
                           Twine(Fatbin.Version) + " (expected 1)");
  if (HeaderSize < cudafatbin::HeaderSize || HeaderSize > Data.size())
    return fatbinError(Name, 6,
                       "header size " + Twine(HeaderSize) +
                           " is outside [16, " + Twine(Data.size()) + "]");
  // Compare against what is left so that the sum cannot overflow.
  if (EntriesSize > Data.size() - HeaderSize)
    return fatbinError(Name, 8,
                       "entries of " + Twine(EntriesSize) +
                           " bytes run past the end of the data (" +
                           Twine(Data.size() - HeaderSize) + " bytes left)");
  uint64_t End = HeaderSize + EntriesSize;
  Fatbin.Data = Data.take_front(End);

  for (uint64_t At = HeaderSize; At < End;) {
    if (End - At < cudafatbin::MinEntryHeaderSize)
      return fatbinError(Name, At,
                         "truncated entry header (" + Twine(End - At) +
                             " bytes left, need 64)");
    CudaFatbinEntry Entry;
    Entry.Offset = At;
    Entry.Kind = load<uint16_t>(Data, At);
    uint64_t EntryHeaderSize = load<uint32_t>(Data, At + 4);
    uint64_t PayloadSize = load<uint64_t>(Data, At + 8);
    uint64_t CompressedSize = load<uint32_t>(Data, At + 16);
    Entry.Minor = load<uint16_t>(Data, At + 24);
    Entry.Major = load<uint16_t>(Data, At + 26);
    Entry.Arch = load<uint32_t>(Data, At + 28);
    Entry.Flags = load<uint64_t>(Data, At + 40);
    Entry.UncompressedSize = load<uint64_t>(Data, At + 56);
    if (Entry.Kind != uint16_t(CudaFatbinEntryKind::PTX) &&
        Entry.Kind != uint16_t(CudaFatbinEntryKind::Cubin))
      return fatbinError(Name, At,
                         "unknown entry kind " + Twine(Entry.Kind) +
                             " (expected 1 for PTX or 2 for ELF)");
    if (EntryHeaderSize < cudafatbin::MinEntryHeaderSize ||
        EntryHeaderSize > End - At)
      return fatbinError(Name, At + 4,
                         "entry header size " + Twine(EntryHeaderSize) +
                             " is outside [64, " + Twine(End - At) + "]");
    uint64_t PayloadAt = At + EntryHeaderSize;
    if (PayloadSize > End - PayloadAt)
      return fatbinError(Name, At + 8,
                         "payload of " + Twine(PayloadSize) +
                             " bytes runs past the end of the fat binary (" +
                             Twine(End - PayloadAt) + " bytes left)");
    Entry.PayloadOffset = PayloadAt;
    Entry.Payload = Data.substr(PayloadAt, PayloadSize);
    if (Entry.isCompressed()) {
      if (CompressedSize > PayloadSize)
        return fatbinError(Name, At + 16,
                           "compressed size " + Twine(CompressedSize) +
                               " exceeds the payload size " +
                               Twine(PayloadSize));
      Entry.Payload = Entry.Payload.take_front(CompressedSize);
    } else {
      Entry.UncompressedSize = 0;
    }
    Fatbin.Entries.push_back(Entry);
    At = PayloadAt + PayloadSize;
  }
  return Fatbin;
}

/// LZ4 payloads are raw LZ4 blocks (no frame), as fatbinary
/// --compress-mode=speed and older toolkits write them.
static Expected<SmallVector<uint8_t, 0>>
inflateLZ4(const CudaFatbinEntry &Entry, StringRef Name) {
  // LZ4 takes int sizes and never inflates more than 255 times its input
  // (plus a little): a larger claim is malformed.
  if (Entry.Payload.size() > uint64_t(LZ4_MAX_INPUT_SIZE) ||
      Entry.UncompressedSize > uint64_t(INT32_MAX) ||
      Entry.UncompressedSize / 255 > Entry.Payload.size() + 16)
    return fatbinError(Name, Entry.Offset + 56,
                       "uncompressed size " + Twine(Entry.UncompressedSize) +
                           " cannot come from " + Twine(Entry.Payload.size()) +
                           " LZ4-compressed bytes");
  SmallVector<uint8_t, 0> Out;
  Out.resize_for_overwrite(Entry.UncompressedSize);
  int Got = LZ4_decompress_safe(
      Entry.Payload.data(), reinterpret_cast<char *>(Out.data()),
      static_cast<int>(Entry.Payload.size()), static_cast<int>(Out.size()));
  if (Got < 0)
    return fatbinError(Name, Entry.PayloadOffset,
                       "cannot inflate the LZ4 payload: malformed block");
  if (static_cast<uint64_t>(Got) != Entry.UncompressedSize)
    return fatbinError(Name, Entry.Offset + 56,
                       "payload inflates to " + Twine(Got) +
                           " bytes, the header says " +
                           Twine(Entry.UncompressedSize));
  return std::move(Out);
}

Expected<SmallVector<uint8_t, 0>>
decompressCudaFatbinEntry(const CudaFatbinEntry &Entry, StringRef Name) {
  if (!(Entry.Flags & cudafatbin::FlagCompressedZstd))
    return inflateLZ4(Entry, Name);
  if (!compression::zstd::isAvailable())
    return fatbinError(Name, Entry.Offset, "zstd is not available");
  // The header's size bounds the allocation: zstd never inflates more than
  // about 2^17 times its input, so a larger claim is malformed.
  if (Entry.UncompressedSize / (uint64_t(1) << 17) > Entry.Payload.size())
    return fatbinError(Name, Entry.Offset + 56,
                       "uncompressed size " + Twine(Entry.UncompressedSize) +
                           " cannot come from " + Twine(Entry.Payload.size()) +
                           " compressed bytes");
  SmallVector<uint8_t, 0> Out;
  if (Error E = compression::zstd::decompress(
          arrayRefFromStringRef(Entry.Payload), Out, Entry.UncompressedSize))
    return fatbinError(Name, Entry.PayloadOffset,
                       "cannot inflate the payload: " + toString(std::move(E)));
  if (Out.size() != Entry.UncompressedSize)
    return fatbinError(Name, Entry.Offset + 56,
                       "payload inflates to " + Twine(Out.size()) +
                           " bytes, the header says " +
                           Twine(Entry.UncompressedSize));
  return std::move(Out);
}

} // namespace offload

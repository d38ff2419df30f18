//===- format/CompressedBundle.cpp - Compressed offload bundles -----------===//

#include "format/CompressedBundle.h"
#include "format/FormatError.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#if defined(__unix__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

using namespace llvm;

namespace offload {

static Error ccobError(StringRef Name, uint64_t Offset, const Twine &Msg) {
  return formatError(Name, Offset, "compressed bundle: " + Msg);
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

/// The offset of the uncompressed-size field of a version's header.
static uint64_t uncompressedSizeField(uint16_t Version) {
  return Version == 1 ? 8 : Version == 2 ? 12 : 16;
}

struct CompressedBundleReader::Codec {
  ZSTD_DStream *Zstd = nullptr;
  z_stream Zlib{};
  bool ZlibOpen = false;
  /// zstd's last answer: 0 once a frame is complete and flushed.
  size_t ZstdHint = 1;
  /// Where skipped and probed bytes go.
  std::unique_ptr<char[]> Scratch;

  ~Codec() {
    if (Zstd)
      ZSTD_freeDStream(Zstd);
    if (ZlibOpen)
      inflateEnd(&Zlib);
  }
};

static constexpr size_t ScratchSize = 256 << 10;

CompressedBundleReader::~CompressedBundleReader() = default;

Error CompressedBundleReader::fail(const Twine &Msg) {
  return formatError(Name, Base + DataOffset + InPos, What + ": " + Msg);
}

Error CompressedBundleReader::sizeError(const Twine &Msg) {
  return formatError(Name, Base + SizeFieldOffset, What + ": " + Msg);
}

Expected<std::unique_ptr<CompressedBundleReader>>
CompressedBundleReader::open(StringRef Data, StringRef Name, uint64_t Base) {
  Expected<CompressedBundleHeader> H =
      readCompressedBundleHeader(Data, Name, Base);
  if (!H)
    return H.takeError();
  uint64_t End = H->TotalSize ? *H->TotalSize : Data.size();
  StringRef Compressed = Data.slice(H->HeaderSize, End);
  // No format inflates by more than about 1:32000 (zstd's RLE blocks, 4
  // bytes for 128 KiB); a header that asks for more cannot be right.
  if (H->UncompressedSize / (1 << 16) > Compressed.size())
    return ccobError(Name, Base + 8,
                     "uncompressed size " + Twine(H->UncompressedSize) +
                         " is implausible for " + Twine(Compressed.size()) +
                         " compressed bytes");
  std::unique_ptr<CompressedBundleReader> R(new CompressedBundleReader());
  R->Header = *H;
  R->Name = Name.str();
  R->Base = Base;
  R->Compressed = Compressed;
  R->DataOffset = H->HeaderSize;
  R->SizeFieldOffset = uncompressedSizeField(H->Version);
  R->What = "compressed bundle";
  if (Error E = R->startCodec())
    return std::move(E);
  return std::move(R);
}

Expected<std::unique_ptr<CompressedBundleReader>>
CompressedBundleReader::openStream(StringRef Compressed,
                                   compression::Format Method,
                                   uint64_t UncompressedSize, StringRef Name,
                                   uint64_t Base, uint64_t DataOffset,
                                   uint64_t SizeFieldOffset, StringRef What,
                                   uint64_t SizeBias) {
  std::unique_ptr<CompressedBundleReader> R(new CompressedBundleReader());
  R->Header.Method = Method;
  R->Header.UncompressedSize = UncompressedSize;
  R->Name = Name.str();
  R->Base = Base;
  R->Compressed = Compressed;
  R->DataOffset = DataOffset;
  R->SizeFieldOffset = SizeFieldOffset;
  R->What = What.str();
  R->SizeBias = SizeBias;
  if (const char *Reason = compression::getReasonIfUnsupported(Method))
    return R->fail(Reason);
  if (Error E = R->startCodec())
    return std::move(E);
  return std::move(R);
}

Error CompressedBundleReader::startCodec() {
  State = std::make_unique<Codec>();
  if (Header.Method == compression::Format::Zstd) {
    // The decoder's window is bounded by zstd's default limit (128 MiB,
    // what every level writes); a frame that wants more is an error.
    State->Zstd = ZSTD_createDStream();
    if (!State->Zstd)
      return fail("cannot create a zstd decoder");
  } else {
    if (inflateInit(&State->Zlib) != Z_OK)
      return fail("cannot create a zlib decoder");
    State->ZlibOpen = true;
  }
  return Error::success();
}

void CompressedBundleReader::enableHash() {
  assert(Position == 0 && "enableHash() after reading");
  Hasher = std::make_unique<MD5>();
}

uint64_t CompressedBundleReader::hash() {
  assert(Hasher && "enableHash() was not called");
  MD5::MD5Result Result;
  Hasher->final(Result);
  return Result.low();
}

void CompressedBundleReader::releaseConsumedInput() {
#if defined(__unix__)
  // Every 4 MiB consumed, the whole pages before the current position.
  constexpr uint64_t Step = 4 << 20;
  if (!InputMapped || InPos - InReleased < Step)
    return;
  uintptr_t PageSize = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t From = reinterpret_cast<uintptr_t>(Compressed.data() + InReleased);
  uintptr_t To = reinterpret_cast<uintptr_t>(Compressed.data() + InPos);
  From = alignTo(From, PageSize);
  To = alignDown(To, PageSize);
  if (From < To)
    ::madvise(reinterpret_cast<void *>(From), To - From, MADV_DONTNEED);
  InReleased = InPos;
#endif
}

Expected<size_t> CompressedBundleReader::inflate(char *Out, size_t Size) {
  releaseConsumedInput();
  size_t Done = 0;
  if (State->Zstd) {
    ZSTD_inBuffer In{Compressed.data(), Compressed.size(), InPos};
    ZSTD_outBuffer O{Out, Size, 0};
    while (O.pos < O.size && !Ended) {
      if (In.pos == In.size) {
        if (State->ZstdHint == 0) {
          Ended = true;
          break;
        }
        InPos = In.pos;
        return fail("cannot inflate: the compressed data ends inside a zstd "
                    "frame");
      }
      size_t R = ZSTD_decompressStream(State->Zstd, &O, &In);
      if (ZSTD_isError(R)) {
        InPos = In.pos;
        if (ZSTD_getErrorCode(R) == ZSTD_error_frameParameter_windowTooLarge)
          return fail("cannot inflate: the zstd frame needs a window of more "
                      "than 128 MiB");
        return fail(Twine("cannot inflate: zstd: ") + ZSTD_getErrorName(R));
      }
      State->ZstdHint = R;
      if (R == 0 && In.pos == In.size)
        Ended = true;
    }
    InPos = In.pos;
    return O.pos;
  }
  z_stream &Z = State->Zlib;
  while (Done < Size && !Ended) {
    uint64_t InLeft = Compressed.size() - InPos;
    Z.next_in = reinterpret_cast<Bytef *>(
        const_cast<char *>(Compressed.data() + InPos));
    Z.avail_in = static_cast<uInt>(std::min<uint64_t>(InLeft, UINT32_MAX));
    Z.next_out = reinterpret_cast<Bytef *>(Out + Done);
    Z.avail_out =
        static_cast<uInt>(std::min<uint64_t>(Size - Done, UINT32_MAX));
    uInt InBefore = Z.avail_in, OutBefore = Z.avail_out;
    int R = ::inflate(&Z, Z_NO_FLUSH);
    InPos += InBefore - Z.avail_in;
    Done += OutBefore - Z.avail_out;
    if (R == Z_STREAM_END) {
      // Like zlib's uncompress(), which LLVM calls: bytes after the stream
      // are not looked at.
      Ended = true;
      break;
    }
    if (R == Z_BUF_ERROR && InLeft == 0)
      return fail("cannot inflate: the compressed data ends inside the zlib "
                  "stream");
    if (R != Z_OK && R != Z_BUF_ERROR)
      return fail(Twine("cannot inflate: zlib: ") +
                  (Z.msg ? Z.msg : "error " + Twine(R).str()));
  }
  return Done;
}

Expected<size_t> CompressedBundleReader::read(char *Buffer, size_t Size) {
  uint64_t Left = Header.UncompressedSize - Position;
  if (Left == 0) {
    // Everything the header promised was delivered: the data must end here.
    if (!Ended) {
      if (!State->Scratch)
        State->Scratch.reset(new char[ScratchSize]);
      Expected<size_t> Extra = inflate(State->Scratch.get(), 1);
      if (!Extra)
        return Extra.takeError();
      if (*Extra)
        return sizeError("the data inflates to more than the " +
                         Twine(Header.UncompressedSize + SizeBias) +
                         " bytes the header says");
    }
    return 0;
  }
  size_t Want = static_cast<size_t>(std::min<uint64_t>(Size, Left));
  Expected<size_t> N = inflateCounted(Buffer, Want);
  if (!N)
    return N.takeError();
  if (*N < Want)
    return sizeError("the data inflates to " + Twine(Position + SizeBias) +
                     " bytes where the header says " +
                     Twine(Header.UncompressedSize + SizeBias));
  return *N;
}

Expected<size_t> CompressedBundleReader::readAvailable(char *Buffer,
                                                       size_t Size) {
  size_t Want = static_cast<size_t>(
      std::min<uint64_t>(Size, Header.UncompressedSize - Position));
  if (Want == 0)
    return 0;
  return inflateCounted(Buffer, Want);
}

Expected<size_t> CompressedBundleReader::inflateCounted(char *Buffer,
                                                        size_t Size) {
  Expected<size_t> N = inflate(Buffer, Size);
  if (!N)
    return N.takeError();
  if (Hasher)
    Hasher->update(
        ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Buffer), *N));
  Position += *N;
  return *N;
}

Error CompressedBundleReader::readExactly(char *Buffer, size_t Size) {
  while (Size) {
    Expected<size_t> N = read(Buffer, Size);
    if (!N)
      return N.takeError();
    if (*N == 0)
      return sizeError("the data ends at " + Twine(Position + SizeBias) +
                       " bytes, short of the " + Twine(Size) + " more needed");
    Buffer += *N;
    Size -= *N;
  }
  return Error::success();
}

Error CompressedBundleReader::skip(uint64_t Size) {
  if (!State->Scratch)
    State->Scratch.reset(new char[ScratchSize]);
  while (Size) {
    size_t Chunk = static_cast<size_t>(std::min<uint64_t>(Size, ScratchSize));
    if (Error E = readExactly(State->Scratch.get(), Chunk))
      return E;
    Size -= Chunk;
  }
  return Error::success();
}

Error CompressedBundleReader::finish() {
  if (Error E = skip(Header.UncompressedSize - Position))
    return E;
  Expected<size_t> Extra = read(nullptr, 0);
  if (!Extra)
    return Extra.takeError();
  return Error::success();
}

Expected<std::optional<BinaryBundleHeader>>
readInflatedBundleHeader(CompressedBundleReader &Reader) {
  uint64_t Size = Reader.header().UncompressedSize;
  SmallVector<char, 0> Prefix;
  auto GetPrefix = [&](uint64_t Want) -> Expected<StringRef> {
    assert(Want <= Size && "prefix past the bundle");
    if (Want > Prefix.size()) {
      size_t At = Prefix.size();
      Prefix.resize_for_overwrite(Want);
      if (Error E = Reader.readExactly(Prefix.data() + At, Want - At))
        return std::move(E);
    }
    return StringRef(Prefix.data(), Want);
  };
  Expected<StringRef> Magic =
      GetPrefix(std::min<uint64_t>(Size, BundleMagic.size()));
  if (!Magic)
    return Magic.takeError();
  if (!isBinaryBundle(*Magic))
    return std::nullopt;
  // Offsets in the inflated data are told from those in the file.
  std::string Name = (Reader.name() + " (inflated from offset 0x" +
                      utohexstr(Reader.base()) + ")")
                         .str();
  Expected<BinaryBundleHeader> H =
      readBinaryBundleHeader(GetPrefix, Size, Name);
  if (!H)
    return H.takeError();
  return std::move(*H);
}

Error streamBundlePayloads(
    CompressedBundleReader &Reader, ArrayRef<BundleEntryLocation> Entries,
    function_ref<Error(size_t Index, StringRef Piece)> Sink) {
  std::vector<size_t> Order(Entries.size());
  for (size_t I = 0; I != Order.size(); ++I)
    Order[I] = I;
  llvm::stable_sort(Order, [&](size_t A, size_t B) {
    return Entries[A].Offset < Entries[B].Offset;
  });
  constexpr size_t Chunk = 1 << 20;
  std::unique_ptr<char[]> Buffer;
  for (size_t I : Order) {
    const BundleEntryLocation &E = Entries[I];
    if (E.Size == 0) {
      if (Error Err = Sink(I, StringRef()))
        return Err;
      continue;
    }
    assert(E.Offset >= Reader.position() && "overlapping or passed entries");
    if (Error Err = Reader.skip(E.Offset - Reader.position()))
      return Err;
    if (!Buffer)
      Buffer.reset(new char[Chunk]);
    for (uint64_t Left = E.Size; Left;) {
      size_t N = static_cast<size_t>(std::min<uint64_t>(Left, Chunk));
      if (Error Err = Reader.readExactly(Buffer.get(), N))
        return Err;
      if (Error Err = Sink(I, StringRef(Buffer.get(), N)))
        return Err;
      Left -= N;
    }
  }
  return Error::success();
}

Expected<SmallVector<char, 0>> decompressBundle(StringRef Data, StringRef Name,
                                                bool VerifyHash,
                                                CompressedBundleHeader *Out) {
  Expected<std::unique_ptr<CompressedBundleReader>> R =
      CompressedBundleReader::open(Data, Name);
  if (!R)
    return R.takeError();
  CompressedBundleReader &Reader = **R;
  if (VerifyHash)
    Reader.enableHash();
  uint64_t Total = Reader.header().UncompressedSize;
  // Grown as the data comes: a header's size is never allocated up front.
  SmallVector<char, 0> Inflated;
  while (Inflated.size() < Total) {
    size_t Chunk = static_cast<size_t>(std::min<uint64_t>(
        Total - Inflated.size(), std::max<size_t>(64 << 10, Inflated.size())));
    size_t At = Inflated.size();
    Inflated.resize_for_overwrite(At + Chunk);
    if (Error E = Reader.readExactly(Inflated.data() + At, Chunk))
      return std::move(E);
  }
  if (Error E = Reader.finish())
    return std::move(E);
  const CompressedBundleHeader &H = Reader.header();
  if (VerifyHash) {
    uint64_t Hash = Reader.hash();
    if (Hash != H.Hash)
      return ccobError(Name, H.HeaderSize - 8,
                       "hash 0x" + utohexstr(H.Hash) +
                           " does not match the inflated data (0x" +
                           utohexstr(Hash) + ")");
  }
  if (Out)
    *Out = H;
  return std::move(Inflated);
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

namespace {
struct ZstdCCtxDeleter {
  void operator()(ZSTD_CCtx *Ctx) const { ZSTD_freeCCtx(Ctx); }
};
using ZstdCCtx = std::unique_ptr<ZSTD_CCtx, ZstdCCtxDeleter>;
} // namespace

/// A zstd context with worker threads, for large bundles: the frame is the
/// same for any number of workers (so output does not depend on the machine),
/// though not the single-threaded frame LLVM writes; both read the same.
static Expected<ZstdCCtx> createMultiThreadedZstd(int Level) {
  ZstdCCtx Ctx(ZSTD_createCCtx());
  if (!Ctx)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create a zstd context");
  unsigned Workers = std::clamp(llvm::hardware_concurrency().compute_thread_count(),
                                1u, 8u);
  for (auto [Param, Value] :
       {std::pair{ZSTD_c_compressionLevel, Level},
        std::pair{ZSTD_c_enableLongDistanceMatching, 1},
        std::pair{ZSTD_c_nbWorkers, static_cast<int>(Workers)}}) {
    size_t R = ZSTD_CCtx_setParameter(Ctx.get(), Param, Value);
    if (ZSTD_isError(R))
      return createStringError(inconvertibleErrorCode(),
                               Twine("zstd: ") + ZSTD_getErrorName(R));
  }
  return std::move(Ctx);
}

static Error compressZstdMultiThreaded(StringRef Bundle, int Level,
                                       SmallVectorImpl<uint8_t> &Out) {
  Expected<ZstdCCtx> C = createMultiThreadedZstd(Level);
  if (!C)
    return C.takeError();
  ZSTD_CCtx *Ctx = C->get();
  Out.resize_for_overwrite(ZSTD_compressBound(Bundle.size()));
  size_t Size = ZSTD_compress2(Ctx, Out.data(), Out.size(), Bundle.data(),
                               Bundle.size());
  if (ZSTD_isError(Size))
    return createStringError(inconvertibleErrorCode(),
                             Twine("zstd: ") + ZSTD_getErrorName(Size));
  Out.truncate(Size);
  return Error::success();
}

/// What can be checked before compressing: the version, the method and, for
/// version 2, the uncompressed size (the total is checked once known).
static Error checkCompressionOptions(const BundleCompression &O,
                                     uint64_t BundleSize) {
  if (O.Version != 2 && O.Version != 3)
    return createStringError(inconvertibleErrorCode(),
                             "compressed bundle version " + Twine(O.Version) +
                                 " cannot be written (2 and 3 can)");
  if (const char *Reason = compression::getReasonIfUnsupported(O.Method))
    return createStringError(inconvertibleErrorCode(), Reason);
  return checkCompressedBundleSizes(O.Version, BundleSize, 0);
}

static uint64_t compressedHeaderSize(uint16_t Version) {
  return Version == 2 ? 24 : 32;
}

static void writeCompressedHeader(raw_ostream &OS, const BundleCompression &O,
                                  uint64_t Total, uint64_t BundleSize,
                                  uint64_t Hash) {
  support::endian::Writer W(OS, endianness::little);
  OS << CompressedBundleMagic;
  W.write<uint16_t>(O.Version);
  W.write<uint16_t>(static_cast<uint16_t>(O.Method));
  if (O.Version == 2) {
    W.write<uint32_t>(Total);
    W.write<uint32_t>(BundleSize);
  } else {
    W.write<uint64_t>(Total);
    W.write<uint64_t>(BundleSize);
  }
  W.write<uint64_t>(Hash);
}

Expected<SmallVector<char, 0>> compressBundle(StringRef Bundle,
                                              const BundleCompression &O) {
  // Refused before spending the time to compress.
  if (Error E = checkCompressionOptions(O, Bundle.size()))
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
  uint64_t Total = compressedHeaderSize(O.Version) + Compressed.size();
  if (Error E = checkCompressedBundleSizes(O.Version, Bundle.size(), Total))
    return std::move(E);
  SmallVector<char, 0> Out;
  raw_svector_ostream OS(Out);
  writeCompressedHeader(OS, O, Total, Bundle.size(), getBundleHash(Bundle));
  OS << toStringRef(Compressed);
  return std::move(Out);
}

struct CompressedBundleWriter::Zstd {
  ZstdCCtx Ctx;
  std::unique_ptr<char[]> Buffer;
  size_t BufferSize = 0;
};

CompressedBundleWriter::CompressedBundleWriter(raw_pwrite_stream &Out)
    : Out(Out) {}

CompressedBundleWriter::~CompressedBundleWriter() {
  // Whatever is still buffered is dropped, not compressed.
  Finished = true;
  flush();
}

Expected<std::unique_ptr<CompressedBundleWriter>>
CompressedBundleWriter::create(raw_pwrite_stream &Out, bool OutCanSeek,
                               uint64_t BundleSize, const BundleCompression &O,
                               StringRef Name) {
  if (Error E = checkCompressionOptions(O, BundleSize))
    return std::move(E);
  std::unique_ptr<CompressedBundleWriter> W(new CompressedBundleWriter(Out));
  W->Options = O;
  W->Name = Name.str();
  W->BundleSize = BundleSize;
  if (O.Method != compression::Format::Zstd ||
      BundleSize < MultiThreadedZstdThreshold) {
    // Compressed at once by compressBundle(), as LLVM does: at most
    // MultiThreadedZstdThreshold bytes for zstd.
    W->SetUnbuffered();
    return std::move(W);
  }
  Expected<ZstdCCtx> Ctx = createMultiThreadedZstd(O.Level);
  if (!Ctx)
    return Ctx.takeError();
  // The size ZSTD_compress2() would know: it picks the same parameters and
  // stores it in the frame header.
  size_t R = ZSTD_CCtx_setPledgedSrcSize(Ctx->get(), BundleSize);
  if (ZSTD_isError(R))
    return createStringError(inconvertibleErrorCode(),
                             Twine("zstd: ") + ZSTD_getErrorName(R));
  W->Stream = std::make_unique<Zstd>();
  W->Stream->Ctx = std::move(*Ctx);
  W->Stream->BufferSize = ZSTD_CStreamOutSize();
  W->Stream->Buffer.reset(new char[W->Stream->BufferSize]);
  W->Seekable = OutCanSeek;
  W->HeaderAt = Out.tell();
  if (W->Seekable)
    Out.write_zeros(compressedHeaderSize(O.Version));
  W->SetBufferSize(1 << 16);
  return std::move(W);
}

void CompressedBundleWriter::fail(const Twine &Msg) {
  if (Failure.empty())
    Failure = (Name + ": compressed bundle: " + Msg).str();
}

void CompressedBundleWriter::emit(const char *Ptr, size_t Size) {
  CompressedSize += Size;
  if (Seekable)
    Out.write(Ptr, Size);
  else
    Pending.append(Ptr, Ptr + Size);
}

bool CompressedBundleWriter::compress(const char *Ptr, size_t Size, bool End) {
  ZSTD_inBuffer In{Ptr, Size, 0};
  for (;;) {
    ZSTD_outBuffer Buf{Stream->Buffer.get(), Stream->BufferSize, 0};
    size_t R = ZSTD_compressStream2(Stream->Ctx.get(), &Buf, &In,
                                    End ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(R)) {
      fail(Twine("zstd: ") + ZSTD_getErrorName(R));
      return false;
    }
    emit(Stream->Buffer.get(), Buf.pos);
    if (End ? R == 0 : In.pos == In.size)
      return true;
  }
}

void CompressedBundleWriter::write_impl(const char *Ptr, size_t Size) {
  if (Finished || !Failure.empty())
    return;
  Written += Size;
  if (Written > BundleSize) {
    fail("more than the " + Twine(BundleSize) +
         " bytes announced were written");
    return;
  }
  if (!Stream) {
    Gathered.append(Ptr, Ptr + Size);
    return;
  }
  Hasher.update(StringRef(Ptr, Size));
  compress(Ptr, Size, /*End=*/false);
}

Expected<CompressedBundleHeader> CompressedBundleWriter::finish() {
  flush();
  Finished = true;
  if (!Failure.empty())
    return createStringError(inconvertibleErrorCode(), Failure);
  if (Written != BundleSize)
    return createStringError(inconvertibleErrorCode(),
                             Name + ": compressed bundle: " + Twine(Written) +
                                 " bytes written where " + Twine(BundleSize) +
                                 " were announced");
  CompressedBundleHeader H;
  H.Version = Options.Version;
  H.Method = Options.Method;
  H.HeaderSize = compressedHeaderSize(Options.Version);
  H.UncompressedSize = BundleSize;
  if (!Stream) {
    Expected<SmallVector<char, 0>> C =
        compressBundle(StringRef(Gathered.data(), Gathered.size()), Options);
    if (!C)
      return C.takeError();
    Gathered = {};
    StringRef Bytes(C->data(), C->size());
    H = cantFail(readCompressedBundleHeader(Bytes, Name));
    Out << Bytes;
    return H;
  }
  if (!compress(nullptr, 0, /*End=*/true))
    return createStringError(inconvertibleErrorCode(), Failure);
  Stream.reset();
  H.TotalSize = H.HeaderSize + CompressedSize;
  if (Error E =
          checkCompressedBundleSizes(Options.Version, BundleSize, *H.TotalSize))
    return std::move(E);
  MD5::MD5Result Digest;
  Hasher.final(Digest);
  H.Hash = Digest.low();
  SmallString<32> Header;
  raw_svector_ostream HS(Header);
  writeCompressedHeader(HS, Options, *H.TotalSize, BundleSize, H.Hash);
  if (Seekable) {
    Out.pwrite(Header.data(), Header.size(), HeaderAt);
  } else {
    Out << Header << StringRef(Pending.data(), Pending.size());
    Pending = {};
  }
  return H;
}

BundlerEnvironment readBundlerEnvironment() {
  BundlerEnvironment Env;
  std::optional<std::string> Ignore =
      sys::Process::GetEnv("OFFLOAD_BUNDLER_IGNORE_ENV_VAR");
  if (Ignore && *Ignore == "1")
    return Env;
  if (std::optional<std::string> V =
          sys::Process::GetEnv("OFFLOAD_BUNDLER_VERBOSE"))
    Env.Verbose = *V == "1";
  if (std::optional<std::string> V =
          sys::Process::GetEnv("OFFLOAD_BUNDLER_COMPRESS"))
    Env.Compress = *V == "1";
  if (std::optional<std::string> V =
          sys::Process::GetEnv("OFFLOAD_BUNDLER_COMPRESSION_LEVEL")) {
    int Level;
    if (!StringRef(*V).getAsInteger(10, Level))
      Env.Level = Level;
    else
      Env.Warnings.push_back(
          "Warning: Invalid value for OFFLOAD_BUNDLER_COMPRESSION_LEVEL: " +
          *V + ". Ignoring it.");
  }
  if (std::optional<std::string> V =
          sys::Process::GetEnv("COMPRESSED_BUNDLE_FORMAT_VERSION")) {
    uint16_t Version;
    if (!StringRef(*V).getAsInteger(10, Version) &&
        (Version == 2 || Version == 3))
      Env.Version = Version;
    else
      Env.Warnings.push_back(
          "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: " +
          *V + ". Valid values are 2 or 3. Using default version " +
          std::to_string(BundleCompression().Version) + ".");
  }
  return Env;
}

} // namespace offload

//===- format/OffloadBinary.cpp - Reading 0x10FF10AD binaries -------------===//
//
// Every field is read with an unaligned little-endian load, so a binary can be
// viewed wherever it lies (archive members are often misaligned) without the
// copy LLVM's reader makes. Every offset and size is checked against the
// binary's own size before use, without overflow.
//
//===----------------------------------------------------------------------===//

#include "format/OffloadBinary.h"
#include "format/FormatError.h"

#include <array>
#include "format/CompressedBundle.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace offload {

StringRef getImageKindName(ImageKind Kind) {
  switch (Kind) {
  case ImageKind::Object:
    return "o";
  case ImageKind::Bitcode:
    return "bc";
  case ImageKind::Cubin:
    return "cubin";
  case ImageKind::Fatbinary:
    return "fatbin";
  case ImageKind::PTX:
    return "s";
  case ImageKind::SPIRV: // LLVM 22 has no extension for it.
  case ImageKind::None:
    break;
  }
  return "";
}

ImageKind getImageKindFromExtension(StringRef Ext) {
  return StringSwitch<ImageKind>(Ext)
      .Case("o", ImageKind::Object)
      .Case("bc", ImageKind::Bitcode)
      .Case("cubin", ImageKind::Cubin)
      .Case("fatbin", ImageKind::Fatbinary)
      .Case("s", ImageKind::PTX)
      .Default(ImageKind::None); // LLVM 22 infers no SPIR-V from ".spv"
}

StringRef getOffloadKindName(OffloadKind Kind) {
  switch (Kind) {
  case OffloadKind::OpenMP:
    return "openmp";
  case OffloadKind::Cuda:
    return "cuda";
  case OffloadKind::HIP:
    return "hip";
  case OffloadKind::SYCL:
    return "sycl";
  case OffloadKind::None:
    break;
  }
  return "none";
}

OffloadKind getOffloadKindFromName(StringRef Name) {
  return StringSwitch<OffloadKind>(Name)
      .Case("openmp", OffloadKind::OpenMP)
      .Case("cuda", OffloadKind::Cuda)
      .Case("hip", OffloadKind::HIP)
      .Case("sycl", OffloadKind::SYCL)
      .Default(OffloadKind::None);
}

StringRef OffloadImage::getString(StringRef Key) const {
  for (const auto &KV : llvm::reverse(Strings))
    if (KV.first == Key)
      return KV.second;
  return "";
}

StringRef ByteStore::keep(std::unique_ptr<MemoryBuffer> Buffer) {
  StringRef Data = Buffer->getBuffer();
  Buffers.push_back(std::move(Buffer));
  return Data;
}

StringRef ByteStore::keep(SmallVector<char, 0> Bytes) {
  Vectors.push_back(std::make_unique<SmallVector<char, 0>>(std::move(Bytes)));
  return StringRef(Vectors.back()->data(), Vectors.back()->size());
}

bool hasOffloadBinaryMagic(StringRef Data) {
  return Data.starts_with(StringRef(layout::Magic, sizeof(layout::Magic)));
}

namespace {

/// Reads one binary whose bytes are known to lie in [0, Bin.size()). Offsets
/// in messages are made absolute by adding Base.
class InflatedCursor;

class BinaryParser {
public:
  BinaryParser(StringRef Name, uint64_t Base, ByteStore &Store,
               InflateMode Mode = InflateMode::Whole)
      : Name(Name), Base(Base), Store(Store), Mode(Mode) {}

  Expected<OffloadBinary> parse(StringRef Buffer, uint64_t Offset);

private:
  Error parseEntries(StringRef Bin, uint64_t BinBase, uint32_t Version,
                     uint64_t EntriesOffset, uint64_t Count,
                     OffloadBinary &Out);
  Error parseStrings(StringRef Bin, uint64_t BinBase, uint32_t Version,
                     uint64_t Offset, uint64_t Count, OffloadImage &Image);
  Error checkCompressed(StringRef Bin, uint64_t BinBase, uint64_t EntriesOffset,
                        uint64_t InflatedSize);
  Expected<StringRef> inflate(StringRef Bin, uint64_t BinBase,
                              uint64_t EntriesOffset, uint64_t InflatedSize);
  Error parseCompressedMetadata(StringRef Bin, uint64_t BinBase,
                                uint64_t EntriesOffset, uint64_t InflatedSize,
                                uint64_t Count, OffloadBinary &Out);

  /// A range of an inflated binary to read: Size bytes, or up to the next
  /// NUL; Result views the bytes once fetch() returns.
  struct Request {
    uint64_t Offset = 0;
    uint64_t Size = 0;
    bool UntilNul = false;
    /// For messages: the entry and what the string is.
    uint64_t Entry = 0;
    const char *What = "";
    StringRef Result;
  };
  Error fetch(InflatedCursor &Cursor, MutableArrayRef<Request> Requests,
              uint64_t EntriesOffset, uint64_t &Held);
  Expected<StringRef> readCString(StringRef Bin, uint64_t BinBase,
                                  uint64_t Offset, const char *What);

  Error fail(uint64_t Offset, const Twine &Msg) const {
    return formatError(Name, Base + Offset, Msg);
  }

  StringRef Name;
  uint64_t Base;
  ByteStore &Store;
  InflateMode Mode;
};

uint16_t read16(StringRef Data, uint64_t Offset) {
  return support::endian::read16le(Data.data() + Offset);
}
uint32_t read32(StringRef Data, uint64_t Offset) {
  return support::endian::read32le(Data.data() + Offset);
}
uint64_t read64(StringRef Data, uint64_t Offset) {
  return support::endian::read64le(Data.data() + Offset);
}

/// The 40-byte entry at \p At of \p Data: its kinds and flags into
/// \p Image; its string offset and count, image offset and size returned.
std::array<uint64_t, 4> readEntry(StringRef Data, uint64_t At,
                                  OffloadImage &Image) {
  Image.TheImageKind = static_cast<ImageKind>(read16(Data, At));
  Image.TheOffloadKind = static_cast<OffloadKind>(read16(Data, At + 2));
  Image.Flags = read32(Data, At + 4);
  return {read64(Data, At + 8), read64(Data, At + 16), read64(Data, At + 24),
          read64(Data, At + 32)};
}

/// True if [Offset, Offset + Size) lies within [0, Limit), without overflow.
bool fits(uint64_t Offset, uint64_t Size, uint64_t Limit) {
  return Offset <= Limit && Size <= Limit - Offset;
}

/// Reads the inflated form of a compressed v3 binary (the stored header,
/// sized as if never compressed, then the body) from front to back: the body
/// is inflated as a stream, started again from its beginning when a read
/// goes back.
class InflatedCursor {
public:
  /// \p Stored: the binary's stored bytes; \p Name and \p BinBase (the
  /// binary's offset in that file) name it in errors.
  InflatedCursor(StringRef Stored, uint64_t EntriesOffset,
                 uint64_t InflatedSize, StringRef Name, uint64_t BinBase)
      : Compressed(Stored.drop_front(EntriesOffset)),
        Header(Stored.take_front(EntriesOffset).str()),
        InflatedSize(InflatedSize), Name(Name.str()), BinBase(BinBase) {
    support::endian::write64le(Header.data() + 8, InflatedSize);
    support::endian::write64le(Header.data() + 32, 0);
  }

  uint64_t size() const { return InflatedSize; }
  uint64_t position() const { return Pos; }

  /// Moves to \p To (at most size()), inflating what lies between.
  Error seek(uint64_t To) {
    assert(To <= InflatedSize && "seek past the end");
    if (To < Pos || !Stream) {
      // From the beginning: a fresh stream.
      bool IsZstd = Compressed.starts_with("\x28\xB5\x2F\xFD");
      Expected<std::unique_ptr<CompressedBundleReader>> R =
          CompressedBundleReader::openStream(
              Compressed,
              IsZstd ? compression::Format::Zstd : compression::Format::Zlib,
              InflatedSize - Header.size(), Name, BinBase, Header.size(),
              /*SizeFieldOffset=*/32, "compressed binary",
              /*SizeBias=*/Header.size());
      if (!R)
        return R.takeError();
      Stream = std::move(*R);
      Pos = 0;
    }
    if (To <= Header.size()) {
      Pos = To;
      return Error::success();
    }
    Pos = std::max<uint64_t>(Pos, Header.size());
    if (Error E = Stream->skip(To - Pos))
      return E;
    Pos = To;
    return Error::success();
  }

  /// Reads exactly \p Size bytes (not past size()) into \p Out.
  Error read(char *Out, size_t Size) {
    assert(Size <= InflatedSize - Pos && "read past the end");
    if (Pos < Header.size()) {
      size_t N = std::min<uint64_t>(Size, Header.size() - Pos);
      memcpy(Out, Header.data() + Pos, N);
      Out += N;
      Size -= N;
      Pos += N;
    }
    if (!Size)
      return Error::success();
    if (Error E = Stream->readExactly(Out, Size))
      return E;
    Pos += Size;
    return Error::success();
  }

  /// Reads up to \p Size bytes (not past size()) into \p Out: fewer where
  /// the data ends early, which the next read() reports.
  Expected<size_t> readAvailable(char *Out, size_t Size) {
    assert(Size <= InflatedSize - Pos && "read past the end");
    if (Pos < Header.size()) {
      size_t N = std::min<uint64_t>(Size, Header.size() - Pos);
      memcpy(Out, Header.data() + Pos, N);
      Pos += N;
      return N;
    }
    Expected<size_t> N = Stream->readAvailable(Out, Size);
    if (N)
      Pos += *N;
    return N;
  }

  /// Having read everything, checks that the data ends there.
  Error finish() {
    assert(Pos == InflatedSize && "finish() before the end");
    Expected<size_t> Extra = Stream->read(nullptr, 0);
    if (!Extra)
      return Extra.takeError();
    return Error::success();
  }

private:
  StringRef Compressed;
  std::string Header;
  uint64_t InflatedSize;
  std::string Name;
  uint64_t BinBase;
  std::unique_ptr<CompressedBundleReader> Stream;
  uint64_t Pos = 0;
};

/// Bytes read at a time: a size field decides no allocation before the data
/// has yielded that much.
constexpr size_t ReadChunk = 64 << 10;

std::string tooMuchMetadata() {
  return "compressed binary: its entries and strings take more than " +
         std::to_string(MaxCompressedMetadata) + " bytes of memory to list";
}

} // namespace

Expected<OffloadBinary> BinaryParser::parse(StringRef Buffer, uint64_t Offset) {
  if (Offset > Buffer.size())
    return fail(Offset, "offset is past the end of the data");
  StringRef Rest = Buffer.drop_front(Offset);
  if (Rest.size() < 4 || !hasOffloadBinaryMagic(Rest))
    return fail(Offset, "bad magic: not an offload binary (expected 10 FF 10 "
                        "AD)");
  if (Rest.size() < layout::HeaderSize)
    return fail(Offset, "truncated header: " + Twine(Rest.size()) +
                            " bytes left, the header needs " +
                            Twine(layout::HeaderSize));

  OffloadBinary Out;
  Out.Offset = Offset;
  Out.Version = read32(Rest, 4);
  if (Out.Version == 0 || Out.Version > layout::MaxVersion)
    return fail(Offset, "unsupported offload binary version " +
                            Twine(Out.Version) + " (this reader knows 1 to " +
                            Twine(layout::MaxVersion) + ")");
  uint64_t HeaderSize =
      Out.Version >= 3 ? layout::HeaderSizeV3 : layout::HeaderSize;
  if (Rest.size() < HeaderSize)
    return fail(Offset, "truncated header: " + Twine(Rest.size()) +
                            " bytes left, the version " + Twine(Out.Version) +
                            " header needs " + Twine(HeaderSize));

  uint64_t Size = read64(Rest, 8);
  uint64_t EntriesOffset = read64(Rest, 16);
  uint64_t EntriesField = read64(Rest, 24);
  if (Size < HeaderSize)
    return fail(Offset + 8, "binary size " + Twine(Size) +
                                " is smaller than its header (" +
                                Twine(HeaderSize) + " bytes)");
  if (Size > Rest.size())
    return fail(Offset + 8, "binary size " + Twine(Size) + " exceeds the " +
                                Twine(Rest.size()) +
                                " bytes left in the data: truncated binary");
  StringRef Bin = Rest.take_front(Size);
  Out.Data = Bin;

  Out.FileName = Name.str();
  Out.FileOffset = Base + Offset;
  uint64_t InflatedSize = Out.Version >= 3 ? read64(Rest, 32) : 0;
  if (InflatedSize != 0) {
    Out.Compressed = true;
    if (Error E = checkCompressed(Bin, Offset, EntriesOffset, InflatedSize))
      return std::move(E);
    if (Mode == InflateMode::Metadata) {
      if (Error E = parseCompressedMetadata(Bin, Offset, EntriesOffset,
                                            InflatedSize, EntriesField, Out))
        return std::move(E);
      return std::move(Out);
    }
    Expected<StringRef> Inflated =
        inflate(Bin, Offset, EntriesOffset, InflatedSize);
    if (!Inflated)
      return Inflated.takeError();
    Bin = *Inflated;
  }

  // Version 1 has an entry size where later versions count entries.
  uint64_t Count = Out.Version == 1 ? 1 : EntriesField;
  if (Out.Version == 1 && EntriesField < layout::EntrySize)
    return fail(Offset + 24, "entry size " + Twine(EntriesField) +
                                 " is smaller than an entry (" +
                                 Twine(layout::EntrySize) + " bytes)");
  if (EntriesOffset < HeaderSize)
    return fail(Offset + 16, "entries offset " + Twine(EntriesOffset) +
                                 " overlaps the header");
  if (!Out.Compressed) {
    if (Error E =
            parseEntries(Bin, Offset, Out.Version, EntriesOffset, Count, Out))
      return std::move(E);
    return std::move(Out);
  }
  // Offsets inside an inflated body exist in no file; say which binary they
  // belong to and count from its start.
  std::string InflatedName =
      (Name + " (inflated binary at offset 0x" + utohexstr(Base + Offset) + ")")
          .str();
  BinaryParser Inner(InflatedName, 0, Store);
  if (Error E = Inner.parseEntries(Bin, 0, Out.Version, EntriesOffset, Count,
                                   Out))
    return std::move(E);
  return std::move(Out);
}

Error BinaryParser::checkCompressed(StringRef Bin, uint64_t BinBase,
                                    uint64_t EntriesOffset,
                                    uint64_t InflatedSize) {
  if (EntriesOffset < layout::HeaderSizeV3 || EntriesOffset > Bin.size())
    return fail(BinBase + 16, "compressed binary: entries offset " +
                                  Twine(EntriesOffset) +
                                  " is outside the binary");
  if (InflatedSize <= EntriesOffset)
    return fail(BinBase + 32, "compressed binary: inflated size " +
                                  Twine(InflatedSize) +
                                  " leaves no room for entries");
  StringRef Compressed = Bin.drop_front(EntriesOffset);
  uint64_t BodySize = InflatedSize - EntriesOffset;
  // Neither zstd nor zlib expands data by more than about 1:32000 (zstd's
  // best case is an RLE block); refuse headers that claim more than the
  // input could ever inflate to.
  constexpr uint64_t MaxRatio = 1 << 16;
  if (BodySize / MaxRatio > Compressed.size())
    return fail(BinBase + 32, "compressed binary: inflated size " +
                                  Twine(InflatedSize) + " is implausible for " +
                                  Twine(Compressed.size()) +
                                  " compressed bytes");
  if (BodySize >= (uint64_t(1) << 48))
    return fail(BinBase + 32, "compressed binary: inflated size " +
                                  Twine(InflatedSize) + " is too large");
  // zstd frames start with 28 B5 2F FD; anything else is taken as zlib, as
  // LLVM does.
  bool IsZstd = Compressed.starts_with("\x28\xB5\x2F\xFD");
  if (const char *Reason = compression::getReasonIfUnsupported(
          IsZstd ? compression::Format::Zstd : compression::Format::Zlib))
    return fail(BinBase + EntriesOffset,
                Twine("compressed binary: ") + Reason);
  return Error::success();
}

Expected<StringRef> BinaryParser::inflate(StringRef Bin, uint64_t BinBase,
                                          uint64_t EntriesOffset,
                                          uint64_t InflatedSize) {
  // The inflated binary: the stored header, sized as if never compressed,
  // followed by the body, grown as the stream yields it (never allocated
  // from the header's size up front). Offsets in it are relative to its
  // start.
  InflatedCursor Cursor(Bin, EntriesOffset, InflatedSize, Name, Base + BinBase);
  if (Error E = Cursor.seek(0))
    return std::move(E);
  SmallVector<char, 0> Inflated;
  while (Inflated.size() < InflatedSize) {
    size_t Chunk = static_cast<size_t>(
        std::min<uint64_t>(InflatedSize - Inflated.size(),
                           std::max<size_t>(ReadChunk, Inflated.size())));
    size_t At = Inflated.size();
    Inflated.resize_for_overwrite(At + Chunk);
    if (Error E = Cursor.read(Inflated.data() + At, Chunk))
      return std::move(E);
  }
  if (Error E = Cursor.finish())
    return std::move(E);
  return Store.keep(std::move(Inflated));
}

Error BinaryParser::fetch(InflatedCursor &Cursor,
                          MutableArrayRef<Request> Requests,
                          uint64_t EntriesOffset, uint64_t &Held) {
  // In order of offset, one pass: overlapping and adjacent requests share
  // the bytes read, and what lies between the others is skipped.
  std::vector<Request *> Order;
  for (Request &R : Requests)
    Order.push_back(&R);
  llvm::stable_sort(Order, [](const Request *A, const Request *B) {
    return A->Offset < B->Offset;
  });
  uint64_t Start = 0;
  SmallVector<char, 0> Bytes;
  // The requests served by Bytes, as (request, offset in Bytes, size).
  struct Served {
    Request *R;
    uint64_t At, Size;
  };
  std::vector<Served> Pending;
  auto Flush = [&] {
    StringRef Kept = Store.keep(std::move(Bytes));
    for (const Served &S : Pending)
      S.R->Result = Kept.substr(S.At, S.Size);
    Pending.clear();
    Bytes = {};
  };
  bool Open = false;
  // Reads up to \p Want more bytes into the current range.
  auto Grow = [&](uint64_t Want) -> Error {
    size_t N = static_cast<size_t>(std::min<uint64_t>(
        {Want, ReadChunk, Cursor.size() - Cursor.position()}));
    if (Held + N > MaxCompressedMetadata)
      return fail(EntriesOffset, tooMuchMetadata());
    size_t At = Bytes.size();
    Bytes.resize_for_overwrite(At + N);
    Held += N;
    return Cursor.read(Bytes.data() + At, N);
  };
  for (Request *R : Order) {
    if (!Open || R->Offset > Start + Bytes.size()) {
      if (Open)
        Flush();
      if (Error E = Cursor.seek(R->Offset))
        return E;
      Start = R->Offset;
      Open = true;
    }
    uint64_t At = R->Offset - Start;
    if (!R->UntilNul) {
      while (Bytes.size() < At + R->Size)
        if (Error E = Grow(At + R->Size - Bytes.size()))
          return E;
      Pending.push_back({R, At, R->Size});
      continue;
    }
    for (uint64_t From = At;;) {
      StringRef Have(Bytes.data(), Bytes.size());
      size_t Nul = Have.find('\0', From);
      if (Nul != StringRef::npos) {
        Pending.push_back({R, At, Nul - At});
        break;
      }
      if (Start + Bytes.size() == Cursor.size())
        return fail(EntriesOffset + R->Entry * layout::EntrySize + 8,
                    "entry " + Twine(R->Entry) + ": " + R->What +
                        " string at offset " + Twine(R->Offset) +
                        " has no NUL terminator");
      // A string ends where the data may end (a binary cut after its
      // strings): read what there is, no error until more is needed.
      From = Bytes.size();
      size_t N = static_cast<size_t>(
          std::min<uint64_t>(ReadChunk, Cursor.size() - Cursor.position()));
      if (Held + N > MaxCompressedMetadata)
        return fail(EntriesOffset, tooMuchMetadata());
      Bytes.resize_for_overwrite(From + N);
      Expected<size_t> Got = Cursor.readAvailable(Bytes.data() + From, N);
      if (!Got)
        return Got.takeError();
      Bytes.truncate(From + *Got);
      Held += *Got;
      if (*Got == 0)
        if (Error E = Grow(1)) // The data ends short: its error.
          return E;
    }
  }
  if (Open)
    Flush();
  return Error::success();
}

Error BinaryParser::parseCompressedMetadata(StringRef Bin, uint64_t BinBase,
                                            uint64_t EntriesOffset,
                                            uint64_t InflatedSize,
                                            uint64_t Count,
                                            OffloadBinary &Out) {
  // Offsets inside an inflated body exist in no file; say which binary they
  // belong to and count from its start, as parse() does.
  std::string InflatedName = (Name + " (inflated binary at offset 0x" +
                              utohexstr(Base + BinBase) + ")")
                                 .str();
  BinaryParser Inner(InflatedName, 0, Store);
  InflatedCursor Cursor(Bin, EntriesOffset, InflatedSize, Name, Base + BinBase);
  uint64_t Held = 0;
  uint64_t Size = InflatedSize;
  uint32_t Version = Out.Version;

  // The entry table.
  if (Count > (Size - EntriesOffset) / layout::EntrySize)
    return Inner.fail(16, "truncated entry table: " + Twine(Count) +
                              " entries at offset " + Twine(EntriesOffset) +
                              " do not fit in the " + Twine(Size) +
                              "-byte binary");
  Request Table;
  Table.Offset = EntriesOffset;
  Table.Size = Count * layout::EntrySize;
  // What the entries cost in memory besides their bytes, counted against
  // the limit before anything is read.
  auto Charge = [&](uint64_t Count, uint64_t Each) -> Error {
    if (Count > (MaxCompressedMetadata - Held) / Each)
      return Inner.fail(EntriesOffset, tooMuchMetadata());
    Held += Count * Each;
    return Error::success();
  };
  if (Error E = Charge(Count, sizeof(OffloadImage) + sizeof(Request)))
    return E;
  if (Error E = Inner.fetch(Cursor, Table, EntriesOffset, Held))
    return E;
  StringRef Entries = Table.Result;

  // Each entry's string table.
  uint64_t StringEntrySize =
      Version == 1 ? layout::StringEntrySizeV1 : layout::StringEntrySizeV2;
  std::vector<Request> Tables(Count);
  for (uint64_t I = 0; I != Count; ++I) {
    uint64_t At = I * layout::EntrySize;
    OffloadImage Image;
    auto [StringOffset, NumStrings, ImageOffset, ImageSize] =
        readEntry(Entries, At, Image);
    uint64_t Field = EntriesOffset + At;
    if (!fits(ImageOffset, ImageSize, Size))
      return Inner.fail(Field + 24, "entry " + Twine(I) + ": image of " +
                                        Twine(ImageSize) + " bytes at offset " +
                                        Twine(ImageOffset) +
                                        " runs past the end of the " +
                                        Twine(Size) + "-byte binary");
    if (StringOffset > Size ||
        NumStrings > (Size - StringOffset) / StringEntrySize)
      return Inner.fail(
          Field + 8, "entry " + Twine(I) +
                         ": truncated string table: " + Twine(NumStrings) +
                         " entries at offset " + Twine(StringOffset) +
                         " do not fit in the " + Twine(Size) + "-byte binary");
    Image.ImageOffset = ImageOffset;
    Image.DeferredSize = ImageSize;
    Tables[I].Offset = StringOffset;
    Tables[I].Size = NumStrings * StringEntrySize;
    Out.Images.push_back(std::move(Image));
  }
  if (Error E = Inner.fetch(Cursor, Tables, EntriesOffset, Held))
    return E;
  uint64_t NumStrings = 0;
  for (const Request &T : Tables)
    NumStrings += T.Result.size() / StringEntrySize;
  if (Error E = Charge(NumStrings, 2 * sizeof(Request) +
                                       sizeof(std::pair<StringRef, StringRef>)))
    return E;

  // The strings: two requests (key, value) per string entry.
  std::vector<Request> Strings;
  for (uint64_t I = 0; I != Count; ++I) {
    StringRef T = Tables[I].Result;
    uint64_t Field = EntriesOffset + I * layout::EntrySize + 8;
    for (uint64_t At = 0; At < T.size(); At += StringEntrySize) {
      Request Key, Value;
      Key.Offset = read64(T, At);
      Key.UntilNul = true;
      Key.Entry = I;
      Key.What = "key";
      Value.Offset = read64(T, At + 8);
      Value.Entry = I;
      Value.What = "value";
      if (Key.Offset >= Size)
        return Inner.fail(Field, "entry " + Twine(I) + ": key string offset " +
                                     Twine(Key.Offset) +
                                     " is past the end of the binary");
      if (Version == 1) {
        Value.UntilNul = true;
        if (Value.Offset >= Size)
          return Inner.fail(Field, "entry " + Twine(I) +
                                       ": value string offset " +
                                       Twine(Value.Offset) +
                                       " is past the end of the binary");
      } else {
        Value.Size = read64(T, At + 16);
        if (!fits(Value.Offset, Value.Size, Size))
          return Inner.fail(Field, "entry " + Twine(I) + ": value of " +
                                       Twine(Value.Size) + " bytes at offset " +
                                       Twine(Value.Offset) +
                                       " runs past the end of the binary");
      }
      Strings.push_back(Key);
      Strings.push_back(Value);
    }
  }
  if (Error E = Inner.fetch(Cursor, Strings, EntriesOffset, Held))
    return E;
  size_t Next = 0;
  for (uint64_t I = 0; I != Count; ++I)
    for (uint64_t N = Tables[I].Result.size() / StringEntrySize; N; --N) {
      Out.Images[I].Strings.emplace_back(Strings[Next].Result,
                                         Strings[Next + 1].Result);
      Next += 2;
    }
  return Error::success();
}

Error BinaryParser::parseEntries(StringRef Bin, uint64_t BinBase,
                                 uint32_t Version, uint64_t EntriesOffset,
                                 uint64_t Count, OffloadBinary &Out) {
  uint64_t Size = Bin.size();
  if (EntriesOffset > Size || Count > (Size - EntriesOffset) / layout::EntrySize)
    return fail(BinBase + 16, "truncated entry table: " + Twine(Count) +
                                  " entries at offset " + Twine(EntriesOffset) +
                                  " do not fit in the " + Twine(Size) +
                                  "-byte binary");
  for (uint64_t I = 0; I != Count; ++I) {
    uint64_t At = EntriesOffset + I * layout::EntrySize;
    OffloadImage Image;
    auto [StringOffset, NumStrings, ImageOffset, ImageSize] =
        readEntry(Bin, At, Image);
    if (!fits(ImageOffset, ImageSize, Size))
      return fail(BinBase + At + 24,
                  "entry " + Twine(I) + ": image of " + Twine(ImageSize) +
                      " bytes at offset " + Twine(ImageOffset) +
                      " runs past the end of the " + Twine(Size) +
                      "-byte binary");
    Image.Image = Bin.substr(ImageOffset, ImageSize);
    Image.ImageOffset = ImageOffset;
    if (Error E = parseStrings(Bin, BinBase, Version, StringOffset, NumStrings,
                               Image))
      return fail(BinBase + At + 8, "entry " + Twine(I) + ": " +
                                        toString(std::move(E)));
    Out.Images.push_back(std::move(Image));
  }
  return Error::success();
}

Error BinaryParser::parseStrings(StringRef Bin, uint64_t BinBase,
                                 uint32_t Version, uint64_t Offset,
                                 uint64_t Count, OffloadImage &Image) {
  uint64_t EntrySize =
      Version == 1 ? layout::StringEntrySizeV1 : layout::StringEntrySizeV2;
  uint64_t Size = Bin.size();
  if (Offset > Size || Count > (Size - Offset) / EntrySize)
    return createStringError(inconvertibleErrorCode(),
                             "truncated string table: " + Twine(Count) +
                                 " entries at offset " + Twine(Offset) +
                                 " do not fit in the " + Twine(Size) +
                                 "-byte binary");
  for (uint64_t I = 0; I != Count; ++I) {
    uint64_t At = Offset + I * EntrySize;
    Expected<StringRef> Key = readCString(Bin, BinBase, read64(Bin, At), "key");
    if (!Key)
      return Key.takeError();
    uint64_t ValueOffset = read64(Bin, At + 8);
    StringRef Value;
    if (Version == 1) {
      Expected<StringRef> V = readCString(Bin, BinBase, ValueOffset, "value");
      if (!V)
        return V.takeError();
      Value = *V;
    } else {
      uint64_t ValueSize = read64(Bin, At + 16);
      if (!fits(ValueOffset, ValueSize, Size))
        return createStringError(inconvertibleErrorCode(),
                                 "value of " + Twine(ValueSize) +
                                     " bytes at offset " + Twine(ValueOffset) +
                                     " runs past the end of the binary");
      Value = Bin.substr(ValueOffset, ValueSize);
    }
    Image.Strings.emplace_back(*Key, Value);
  }
  return Error::success();
}

Expected<StringRef> BinaryParser::readCString(StringRef Bin, uint64_t BinBase,
                                              uint64_t Offset,
                                              const char *What) {
  if (Offset >= Bin.size())
    return createStringError(inconvertibleErrorCode(),
                             Twine(What) + " string offset " + Twine(Offset) +
                                 " is past the end of the binary");
  StringRef Tail = Bin.drop_front(Offset);
  size_t End = Tail.find('\0');
  if (End == StringRef::npos)
    return createStringError(inconvertibleErrorCode(),
                             Twine(What) + " string at offset " +
                                 Twine(Offset) + " has no NUL terminator");
  return Tail.take_front(End);
}

Expected<OffloadBinary> readOffloadBinary(StringRef Buffer, uint64_t Offset,
                                          ByteStore &Store, StringRef Name,
                                          uint64_t BaseOffset,
                                          InflateMode Mode) {
  return BinaryParser(Name, BaseOffset, Store, Mode).parse(Buffer, Offset);
}

Expected<std::vector<OffloadBinary>>
readOffloadBinaries(StringRef Buffer, ByteStore &Store, StringRef Name,
                    uint64_t BaseOffset, InflateMode Mode) {
  std::vector<OffloadBinary> Binaries;
  BinaryParser Parser(Name, BaseOffset, Store, Mode);
  uint64_t Offset = 0;
  while (Offset < Buffer.size()) {
    Expected<OffloadBinary> Binary = Parser.parse(Buffer, Offset);
    if (!Binary)
      return Binary.takeError();
    // Size >= header size was checked, so this always moves forward.
    Offset = alignTo(Offset + Binary->Data.size(), layout::Alignment);
    Binaries.push_back(std::move(*Binary));
  }
  return std::move(Binaries);
}

Error streamOffloadImages(const OffloadBinary &Binary, ArrayRef<size_t> Indices,
                          function_ref<Error(size_t, StringRef)> Sink,
                          uint64_t MaxBytes) {
  std::vector<size_t> Deferred;
  for (size_t I : Indices) {
    assert(I < Binary.Images.size() && "no such image");
    if (Binary.Images[I].isDeferred())
      Deferred.push_back(I);
    else if (Error E = Sink(I, Binary.Images[I].Image.take_front(MaxBytes)))
      return E;
  }
  if (Deferred.empty())
    return Error::success();
  llvm::stable_sort(Deferred, [&](size_t A, size_t B) {
    return Binary.Images[A].ImageOffset < Binary.Images[B].ImageOffset;
  });
  // The reader checked these fields when it deferred the images.
  StringRef Data = Binary.Data;
  InflatedCursor Cursor(Data, read64(Data, 16), read64(Data, 32),
                        Binary.FileName, Binary.FileOffset);
  constexpr size_t Piece = 1 << 20;
  std::unique_ptr<char[]> Buffer;
  for (size_t I : Deferred) {
    const OffloadImage &Image = Binary.Images[I];
    uint64_t Left = std::min(*Image.DeferredSize, MaxBytes);
    if (Left == 0) {
      if (Error E = Sink(I, StringRef()))
        return E;
      continue;
    }
    if (Error E = Cursor.seek(Image.ImageOffset))
      return E;
    if (!Buffer)
      Buffer.reset(new char[Piece]);
    while (Left) {
      size_t N = static_cast<size_t>(std::min<uint64_t>(Left, Piece));
      if (Error E = Cursor.read(Buffer.get(), N))
        return E;
      if (Error E = Sink(I, StringRef(Buffer.get(), N)))
        return E;
      Left -= N;
    }
  }
  return Error::success();
}

Expected<StringRef> loadOffloadImage(const OffloadBinary &Binary, size_t Index,
                                     ByteStore &Store) {
  Expected<std::vector<StringRef>> Images =
      loadOffloadImages(Binary, Index, Store);
  if (!Images)
    return Images.takeError();
  return Images->front();
}

Expected<std::vector<StringRef>>
loadOffloadImages(const OffloadBinary &Binary, ArrayRef<size_t> Indices,
                  ByteStore &Store) {
  // Grown as the data comes: no entry's size is allocated up front.
  std::vector<SmallVector<char, 0>> Bytes(Indices.size());
  std::vector<size_t> Deferred;
  DenseMap<size_t, size_t> Slot;
  for (auto [I, Index] : enumerate(Indices))
    if (Binary.Images[Index].isDeferred() && Slot.try_emplace(Index, I).second)
      Deferred.push_back(Index);
  if (Error E = streamOffloadImages(Binary, Deferred,
                                    [&](size_t Index, StringRef Piece) {
                                      SmallVector<char, 0> &To =
                                          Bytes[Slot[Index]];
                                      To.append(Piece.begin(), Piece.end());
                                      return Error::success();
                                    }))
    return std::move(E);
  std::vector<StringRef> Images;
  for (auto [I, Index] : enumerate(Indices)) {
    const OffloadImage &Image = Binary.Images[Index];
    if (!Image.isDeferred())
      Images.push_back(Image.Image);
    else if (Slot[Index] == I)
      Images.push_back(Store.keep(std::move(Bytes[I])));
    else
      Images.push_back(Images[Slot[Index]]);
  }
  return Images;
}

} // namespace offload

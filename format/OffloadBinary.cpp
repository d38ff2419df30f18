//===- format/OffloadBinary.cpp - Reading 0x10FF10AD binaries -------------===//
//
// Every field is read with an unaligned little-endian load, so a binary can be
// viewed wherever it lies (archive members are often misaligned) without the
// copy LLVM's reader makes. Every offset and size is checked against the
// binary's own size before use, without overflow.
//
//===----------------------------------------------------------------------===//

#include "format/OffloadBinary.h"

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

bool hasOffloadBinaryMagic(StringRef Data) {
  return Data.starts_with(StringRef(layout::Magic, sizeof(layout::Magic)));
}

namespace {

/// Reads one binary whose bytes are known to lie in [0, Bin.size()). Offsets
/// in messages are made absolute by adding Base.
class BinaryParser {
public:
  BinaryParser(StringRef Name, uint64_t Base, ByteStore &Store)
      : Name(Name), Base(Base), Store(Store) {}

  Expected<OffloadBinary> parse(StringRef Buffer, uint64_t Offset);

private:
  Error parseEntries(StringRef Bin, uint64_t BinBase, uint32_t Version,
                     uint64_t EntriesOffset, uint64_t Count,
                     OffloadBinary &Out);
  Error parseStrings(StringRef Bin, uint64_t BinBase, uint32_t Version,
                     uint64_t Offset, uint64_t Count, OffloadImage &Image);
  Expected<StringRef> inflate(StringRef Bin, uint64_t BinBase,
                              uint64_t EntriesOffset, uint64_t InflatedSize);
  Expected<StringRef> readCString(StringRef Bin, uint64_t BinBase,
                                  uint64_t Offset, const char *What);

  Error fail(uint64_t Offset, const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             Name + ": offset 0x" + utohexstr(Base + Offset) +
                                 ": " + Msg);
  }

  StringRef Name;
  uint64_t Base;
  ByteStore &Store;
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

/// True if [Offset, Offset + Size) lies within [0, Limit), without overflow.
bool fits(uint64_t Offset, uint64_t Size, uint64_t Limit) {
  return Offset <= Limit && Size <= Limit - Offset;
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

  uint64_t InflatedSize = Out.Version >= 3 ? read64(Rest, 32) : 0;
  if (InflatedSize != 0) {
    Out.Compressed = true;
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

Expected<StringRef> BinaryParser::inflate(StringRef Bin, uint64_t BinBase,
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
  // best case is an RLE block); refuse headers that would have us allocate
  // far more than the input could ever inflate to.
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
  compression::Format Format =
      IsZstd ? compression::Format::Zstd : compression::Format::Zlib;
  if (const char *Reason = compression::getReasonIfUnsupported(Format))
    return fail(BinBase + EntriesOffset,
                Twine("compressed binary: ") + Reason);

  SmallVector<uint8_t, 0> Body;
  if (Error E = compression::decompress(Format, arrayRefFromStringRef(Compressed),
                                        Body, BodySize))
    return fail(BinBase + EntriesOffset,
                "compressed binary: cannot inflate the " +
                    Twine(IsZstd ? "zstd" : "zlib") +
                    " body: " + toString(std::move(E)));
  if (Body.size() != BodySize)
    return fail(BinBase + EntriesOffset,
                "compressed binary: inflated to " + Twine(Body.size()) +
                    " bytes where the header promised " + Twine(BodySize));

  // The inflated binary: the stored header, sized as if never compressed,
  // followed by the body. Offsets in it are relative to its start.
  std::unique_ptr<WritableMemoryBuffer> Inflated =
      WritableMemoryBuffer::getNewUninitMemBuffer(InflatedSize,
                                                  Name + " (inflated)");
  if (!Inflated)
    return fail(BinBase + 32, "compressed binary: cannot allocate " +
                                  Twine(InflatedSize) + " bytes");
  char *Dst = Inflated->getBufferStart();
  memcpy(Dst, Bin.data(), EntriesOffset);
  support::endian::write64le(Dst + 8, InflatedSize);
  support::endian::write64le(Dst + 32, 0);
  memcpy(Dst + EntriesOffset, Body.data(), Body.size());
  return Store.keep(std::move(Inflated));
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
    Image.TheImageKind = static_cast<ImageKind>(read16(Bin, At));
    Image.TheOffloadKind = static_cast<OffloadKind>(read16(Bin, At + 2));
    Image.Flags = read32(Bin, At + 4);
    uint64_t StringOffset = read64(Bin, At + 8);
    uint64_t NumStrings = read64(Bin, At + 16);
    uint64_t ImageOffset = read64(Bin, At + 24);
    uint64_t ImageSize = read64(Bin, At + 32);
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
                                          uint64_t BaseOffset) {
  return BinaryParser(Name, BaseOffset, Store).parse(Buffer, Offset);
}

Expected<std::vector<OffloadBinary>>
readOffloadBinaries(StringRef Buffer, ByteStore &Store, StringRef Name,
                    uint64_t BaseOffset) {
  std::vector<OffloadBinary> Binaries;
  BinaryParser Parser(Name, BaseOffset, Store);
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

} // namespace offload

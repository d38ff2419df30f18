//===- format/OffloadBinaryWriter.cpp - Writing 0x10FF10AD binaries -------===//
//
// Layout of one binary: header, entries, string entries, string table, zero
// padding to 8, the images back to back, zero padding to 8. The header's size
// covers all of it. Images are streamed from the caller's buffers; only the
// metadata is assembled in memory (and, for a compressed v3 binary, the body).
//
//===----------------------------------------------------------------------===//

#include "format/OffloadBinaryWriter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/StringTableBuilder.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace offload {

namespace {

Error overflow() {
  return createStringError(inconvertibleErrorCode(),
                           "offload binary size overflows 64 bits");
}

/// Offsets and sizes of one binary holding \p Images, computed once and used
/// both to size and to write it.
struct BinaryLayout {
  uint64_t HeaderSize = 0;
  uint64_t StringEntrySize = 0;
  uint64_t StringTableOffset = 0;
  uint64_t ImagesOffset = 0; // after the string table and its padding
  uint64_t Size = 0;         // the whole binary, a multiple of 8
};

Expected<BinaryLayout> layOut(ArrayRef<ImageToWrite> Images, uint32_t Version,
                              uint64_t StringTableSize) {
  BinaryLayout L;
  L.HeaderSize = Version >= 3 ? layout::HeaderSizeV3 : layout::HeaderSize;
  L.StringEntrySize =
      Version == 1 ? layout::StringEntrySizeV1 : layout::StringEntrySizeV2;
  uint64_t NumStrings = 0, ImagesSize = 0;
  for (const ImageToWrite &Image : Images) {
    NumStrings += Image.Strings.size();
    std::optional<uint64_t> Sum = checkedAddUnsigned<uint64_t>(
        ImagesSize, Image.Image.size());
    if (!Sum)
      return overflow();
    ImagesSize = *Sum;
  }
  // Metadata sizes are bounded by memory; only the images can overflow.
  L.StringTableOffset = L.HeaderSize + layout::EntrySize * Images.size() +
                        L.StringEntrySize * NumStrings;
  L.ImagesOffset =
      alignTo(L.StringTableOffset + StringTableSize, layout::Alignment);
  std::optional<uint64_t> End =
      checkedAddUnsigned<uint64_t>(L.ImagesOffset, ImagesSize);
  if (!End || *End > UINT64_MAX - layout::Alignment)
    return overflow();
  L.Size = alignTo(*End, layout::Alignment);
  return L;
}

/// One binary holding \p Images: its string table and layout.
class BinaryWriter {
public:
  BinaryWriter(ArrayRef<ImageToWrite> Images, uint32_t Version)
      : Images(Images), Version(Version), Strings(StringTableBuilder::ELF) {}

  Expected<uint64_t> prepare() {
    for (const ImageToWrite &Image : Images)
      for (const auto &[Key, Value] : Image.Strings) {
        Strings.add(Key);
        Strings.add(Value);
      }
    Strings.finalize();
    Expected<BinaryLayout> L = layOut(Images, Version, Strings.getSize());
    if (!L)
      return L.takeError();
    Layout = *L;
    return Layout.Size;
  }

  /// Writes the header. Header and body are separate so that a compressed v3
  /// binary can put its compressed body after the header.
  void writeHeader(raw_ostream &OS, uint64_t Size, uint64_t InflatedSize) {
    support::endian::Writer W(OS, endianness::little);
    OS.write(layout::Magic, sizeof(layout::Magic));
    W.write<uint32_t>(Version);
    W.write<uint64_t>(Size);
    W.write<uint64_t>(Layout.HeaderSize);
    W.write<uint64_t>(Version == 1 ? layout::EntrySize : Images.size());
    if (Version >= 3)
      W.write<uint64_t>(InflatedSize);
  }

  /// Writes everything after the header: entries, string entries, string
  /// table, images and padding.
  void writeBody(raw_ostream &OS) {
    support::endian::Writer W(OS, endianness::little);
    uint64_t StringEntryOffset =
        Layout.HeaderSize + layout::EntrySize * Images.size();
    uint64_t ImageOffset = Layout.ImagesOffset;
    for (const ImageToWrite &Image : Images) {
      W.write<uint16_t>(static_cast<uint16_t>(Image.TheImageKind));
      W.write<uint16_t>(static_cast<uint16_t>(Image.TheOffloadKind));
      W.write<uint32_t>(Image.Flags);
      W.write<uint64_t>(StringEntryOffset);
      W.write<uint64_t>(Image.Strings.size());
      W.write<uint64_t>(ImageOffset);
      W.write<uint64_t>(Image.Image.size());
      StringEntryOffset += Layout.StringEntrySize * Image.Strings.size();
      ImageOffset += Image.Image.size();
    }
    for (const ImageToWrite &Image : Images)
      for (const auto &[Key, Value] : Image.Strings) {
        W.write<uint64_t>(Layout.StringTableOffset + Strings.getOffset(Key));
        W.write<uint64_t>(Layout.StringTableOffset + Strings.getOffset(Value));
        if (Version >= 2)
          W.write<uint64_t>(Value.size());
      }
    Strings.write(OS);
    OS.write_zeros(Layout.ImagesOffset -
                   (Layout.StringTableOffset + Strings.getSize()));
    uint64_t End = Layout.ImagesOffset;
    for (const ImageToWrite &Image : Images) {
      OS << Image.Image;
      End += Image.Image.size();
    }
    OS.write_zeros(Layout.Size - End);
  }

private:
  ArrayRef<ImageToWrite> Images;
  uint32_t Version;
  StringTableBuilder Strings;
  BinaryLayout Layout;
};

Error checkOptions(const WriteOptions &Options) {
  if (Options.Version < 1 || Options.Version > layout::MaxVersion)
    return createStringError(inconvertibleErrorCode(),
                             "cannot write offload binary version " +
                                 Twine(Options.Version) +
                                 " (1, 2 and 3 are known)");
  if (Options.Compress && Options.Version < 3)
    return createStringError(inconvertibleErrorCode(),
                             "compression needs offload binary version 3");
  return Error::success();
}

/// The groups of images that each become one binary.
SmallVector<ArrayRef<ImageToWrite>, 1>
splitIntoBinaries(ArrayRef<ImageToWrite> Images, uint32_t Version) {
  SmallVector<ArrayRef<ImageToWrite>, 1> Groups;
  if (Version == 1) {
    for (size_t I = 0; I != Images.size(); ++I)
      Groups.push_back(Images.slice(I, 1));
  } else if (!Images.empty()) {
    Groups.push_back(Images);
  }
  return Groups;
}

Error writeCompressed(raw_ostream &OS, BinaryWriter &Writer,
                      uint64_t InflatedSize, const WriteOptions &Options) {
  SmallString<0> Body;
  raw_svector_ostream BodyOS(Body);
  Writer.writeBody(BodyOS);
  compression::Format Format = Options.UseZstd ? compression::Format::Zstd
                                               : compression::Format::Zlib;
  if (const char *Reason = compression::getReasonIfUnsupported(Format))
    return createStringError(inconvertibleErrorCode(), Reason);
  SmallVector<uint8_t, 0> Compressed;
  compression::compress({Format, Options.CompressionLevel},
                        arrayRefFromStringRef(Body), Compressed);
  // The stored size excludes the final padding, as in LLVM's writer; the
  // next binary still starts 8-aligned.
  uint64_t Size = layout::HeaderSizeV3 + Compressed.size();
  Writer.writeHeader(OS, Size, InflatedSize);
  OS << toStringRef(Compressed);
  OS.write_zeros(alignTo(Size, layout::Alignment) - Size);
  return Error::success();
}

} // namespace

Expected<uint64_t> getOffloadBinariesSize(ArrayRef<ImageToWrite> Images,
                                          const WriteOptions &Options) {
  if (Error E = checkOptions(Options))
    return std::move(E);
  if (Options.Compress)
    return createStringError(inconvertibleErrorCode(),
                             "the size of compressed output is not known "
                             "before compressing");
  uint64_t Total = 0;
  for (ArrayRef<ImageToWrite> Group :
       splitIntoBinaries(Images, Options.Version)) {
    BinaryWriter Writer(Group, Options.Version);
    Expected<uint64_t> Size = Writer.prepare();
    if (!Size)
      return Size.takeError();
    std::optional<uint64_t> Sum = checkedAddUnsigned<uint64_t>(Total, *Size);
    if (!Sum)
      return overflow();
    Total = *Sum;
  }
  return Total;
}

Error writeOffloadBinaries(raw_ostream &OS, ArrayRef<ImageToWrite> Images,
                           const WriteOptions &Options) {
  if (Error E = checkOptions(Options))
    return E;
  for (ArrayRef<ImageToWrite> Group :
       splitIntoBinaries(Images, Options.Version)) {
    BinaryWriter Writer(Group, Options.Version);
    Expected<uint64_t> Size = Writer.prepare();
    if (!Size)
      return Size.takeError();
    if (Options.Compress) {
      if (Error E = writeCompressed(OS, Writer, *Size, Options))
        return E;
      continue;
    }
    Writer.writeHeader(OS, *Size, /*InflatedSize=*/0);
    Writer.writeBody(OS);
  }
  return Error::success();
}

} // namespace offload

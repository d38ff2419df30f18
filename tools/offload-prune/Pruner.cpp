//===- tools/offload-prune/Pruner.cpp - Pruning device code ---------------===//

#include "Pruner.h"
#include "Messages.h"

#include "format/BundleEntryID.h"
#include "format/CompressedBundle.h"
#include "format/FindOffloadBinaries.h"
#include "format/InspectCudaFatbin.h"
#include "format/ObjectBundle.h"
#include "format/OffloadBinary.h"
#include "format/OffloadBinaryWriter.h"
#include "format/OffloadBundle.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/ObjCopy/CommonConfig.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>

using namespace llvm;
using namespace llvm::object;

namespace offload {
namespace prune {

ImageSelection Pruner::select(ArrayRef<SelectableImage> Images,
                              ListedContainer Listed) {
  ImageSelection Selection = selectImages(Request, Images);
  ArchsUsed.resize(Request.Archs.size(), false);
  for (size_t I = 0; I < Selection.ArchUsed.size(); ++I)
    if (Selection.ArchUsed[I])
      ArchsUsed[I] = true;
  // The listed images are the device images, in order, then host entries.
  size_t Device = 0;
  for (ListedImage &Image : Listed.Images)
    if (!Image.Host)
      Image.Reason = Selection.Reasons[Device++];
  DeviceImages += Images.size();
  KeptImages += Selection.numKept();
  Listing.push_back(std::move(Listed));
  return Selection;
}

//===----------------------------------------------------------------------===//
// OffloadBinaries
//===----------------------------------------------------------------------===//

/// The binary's body is zstd-compressed (a v3 binary's body follows the
/// 40-byte header; zstd frames start with 28 B5 2F FD).
static bool isZstdBody(const OffloadBinary &Binary) {
  return Binary.Data.size() > layout::HeaderSizeV3 &&
         Binary.Data.substr(layout::HeaderSizeV3)
             .starts_with("\x28\xB5\x2F\xFD");
}

Expected<Pruner::Bytes> Pruner::pruneOffloadBinaries(StringRef Data,
                                                     StringRef Where) {
  ByteStore Store;
  Expected<std::vector<OffloadBinary>> Binaries =
      readOffloadBinaries(Data, Store, Where);
  if (!Binaries)
    return Binaries.takeError();

  // The images of every binary in the section are one container.
  std::vector<SelectableImage> Images;
  ListedContainer Listed{at(Where, "offload binaries", 0), {}};
  for (const OffloadBinary &Binary : *Binaries)
    for (const OffloadImage &Image : Binary.Images) {
      Images.push_back({Image.TheImageKind, Triple(Image.getTriple()),
                        Image.getArch().str()});
      Listed.Images.push_back(
          {(getOffloadKindName(Image.TheOffloadKind) + " " + Image.getTriple() +
            " " + (Image.getArch().empty() ? "-" : Image.getArch()) + " " +
            (getImageKindName(Image.TheImageKind).empty()
                 ? StringRef("image")
                 : getImageKindName(Image.TheImageKind)))
               .str(),
           Image.getImageSize()});
    }
  ImageSelection Selection = select(Images, std::move(Listed));

  Bytes Out;
  raw_svector_ostream OS(Out);
  size_t Index = 0;
  for (const OffloadBinary &Binary : *Binaries) {
    std::vector<ImageToWrite> Kept;
    for (const OffloadImage &Image : Binary.Images) {
      if (!Selection.isKept(Index++))
        continue;
      ImageToWrite W;
      W.TheImageKind = Image.TheImageKind;
      W.TheOffloadKind = Image.TheOffloadKind;
      W.Flags = Image.Flags;
      for (const auto &[Key, Value] : Image.Strings)
        W.Strings.emplace_back(Key.str(), Value.str());
      W.Image = Image.Image;
      Kept.push_back(std::move(W));
    }
    if (Kept.empty())
      continue;
    OS.write_zeros(offsetToAlignment(Out.size(), Align(layout::Alignment)));
    if (Kept.size() == Binary.Images.size()) {
      OS << Binary.Data;
      continue;
    }
    // Some of a v2/v3 binary's images: written again, as they were but for
    // the compression level, which the binary does not record (zstd's
    // default is used).
    WriteOptions Options;
    Options.Version = Binary.Version;
    Options.Compress = Binary.Compressed;
    Options.UseZstd = isZstdBody(Binary);
    if (Error E = writeOffloadBinaries(OS, Kept, Options))
      return fail(Where + ": offload binary at offset " + hex(Binary.Offset) +
                  ": " + toString(std::move(E)));
  }
  return std::move(Out);
}

//===----------------------------------------------------------------------===//
// Bundles
//===----------------------------------------------------------------------===//

/// The alignment \p Entries were laid out with from the end of the header
/// (\p HeaderEnd): the largest power of two up to 4096 (HIP's) under which
/// each payload starts where the previous one, aligned up, ends; 1 if none
/// fits.
static uint64_t inferAlignment(ArrayRef<std::pair<uint64_t, uint64_t>> Entries,
                               uint64_t HeaderEnd) {
  for (uint64_t A = 4096; A > 1; A /= 2) {
    uint64_t End = HeaderEnd;
    bool Fits = true;
    for (const auto &[Offset, Size] : Entries) {
      if (Offset != alignTo(End, A)) {
        Fits = false;
        break;
      }
      End = Offset + Size;
    }
    if (Fits)
      return A;
  }
  return 1;
}

Expected<std::vector<bool>> Pruner::selectEntries(ArrayRef<BundleEntry> Entries,
                                                  StringRef Where,
                                                  StringRef Name) {
  std::vector<SelectableImage> Images;
  std::vector<size_t> DeviceIndex(Entries.size(), SIZE_MAX);
  ListedContainer Listed{Where.str(), {}};
  std::vector<ListedImage> Hosts;
  for (auto [I, Entry] : enumerate(Entries)) {
    Expected<BundleEntryID> ID = BundleEntryID::parse(Entry.ID);
    if (!ID)
      return fail(Name + ": bundle entry " + Twine(I) + ": " +
                  toString(ID.takeError()));
    if (ID->isHost()) {
      Hosts.push_back({Entry.ID.str(), Entry.Data.size(),
                       SelectReason::NotRequested, true});
      continue;
    }
    DeviceIndex[I] = Images.size();
    Images.push_back({ImageKind::None, ID->TargetTriple, ID->TargetIDText});
    Listed.Images.push_back({Entry.ID.str(), Entry.Data.size()});
  }
  llvm::append_range(Listed.Images, Hosts);
  ImageSelection Selection = select(Images, std::move(Listed));
  std::vector<bool> Keep;
  for (size_t Index : DeviceIndex)
    Keep.push_back(Index == SIZE_MAX || Selection.isKept(Index));
  return Keep;
}

Expected<Pruner::Bytes> Pruner::pruneBundle(StringRef Data, StringRef Where,
                                            StringRef Name) {
  Expected<std::vector<BundleEntry>> Entries = readBinaryBundle(Data, Name);
  if (!Entries)
    return Entries.takeError();
  Expected<std::vector<bool>> Keep = selectEntries(*Entries, Where, Name);
  if (!Keep)
    return Keep.takeError();
  if (llvm::all_of(*Keep, [](bool K) { return K; }))
    return Bytes(Data.begin(), Data.end());

  // Payloads in header order, as the bundle had them, and laid out again
  // with the alignment they had.
  uint64_t HeaderEnd = BundleMagic.size() + 8;
  std::vector<std::pair<uint64_t, uint64_t>> Layout;
  std::vector<BundleEntryToWrite> Kept;
  for (auto [I, Entry] : enumerate(*Entries)) {
    HeaderEnd += 24 + Entry.ID.size();
    Layout.push_back(
        {uint64_t(Entry.Data.data() - Data.data()), Entry.Data.size()});
    if ((*Keep)[I])
      Kept.push_back({Entry.ID.str(), Entry.Data});
  }
  llvm::sort(Layout);
  Bytes Out;
  raw_svector_ostream OS(Out);
  writeBinaryBundle(OS, Kept, inferAlignment(Layout, HeaderEnd));
  return std::move(Out);
}

Expected<Pruner::Bytes>
Pruner::pruneTextBundle(StringRef Data, StringRef Comment, StringRef Name) {
  Expected<std::vector<BundleEntry>> Entries =
      readTextBundle(Data, Comment, Name);
  if (!Entries)
    return Entries.takeError();
  Expected<std::vector<bool>> Keep =
      selectEntries(*Entries, (Name + " text bundle").str(), Name);
  if (!Keep)
    return Keep.takeError();
  std::vector<BundleEntryToWrite> Kept;
  for (auto [I, Entry] : enumerate(*Entries))
    if ((*Keep)[I])
      Kept.push_back({Entry.ID.str(), Entry.Data});
  Bytes Out;
  raw_svector_ostream OS(Out);
  writeTextBundle(OS, Kept, Comment);
  return std::move(Out);
}

/// The level \p Original was compressed with: the first of the default (3)
/// and the method's other levels (zstd's ultra levels aside) that compresses
/// \p Bundle to the same bytes; std::nullopt if none does.
static std::optional<int>
findCompressionLevel(StringRef Bundle, StringRef Original,
                     const CompressedBundleHeader &H) {
  SmallVector<int, 20> Levels = {3};
  for (int L = 1; L <= (H.Method == compression::Format::Zstd ? 19 : 9); ++L)
    if (L != 3)
      Levels.push_back(L);
  for (int Level : Levels) {
    Expected<SmallVector<char, 0>> Again =
        compressBundle(Bundle, {H.Method, Level, H.Version});
    if (!Again) {
      consumeError(Again.takeError());
      continue;
    }
    if (StringRef(Again->data(), Again->size()) == Original)
      return Level;
  }
  return std::nullopt;
}

Expected<Pruner::Bytes> Pruner::pruneCompressed(StringRef Data, StringRef Where,
                                                StringRef Name) {
  CompressedBundleHeader Header;
  Expected<SmallVector<char, 0>> Bundle =
      decompressBundle(Data, Name, /*VerifyHash=*/true, &Header);
  if (!Bundle)
    return Bundle.takeError();
  StringRef Inflated(Bundle->data(), Bundle->size());
  Expected<Bytes> Pruned = pruneBundle(
      Inflated, (Where + " (v" + Twine(Header.Version) + ")").str(), Name);
  if (!Pruned)
    return Pruned.takeError();
  if (Pruned->size() == Inflated.size())
    return Bytes(Data.begin(), Data.end());
  if (Header.Version == 1)
    return fail(Name + ": a compressed bundle of version 1 is not written "
                       "again: it has no total size");
  // Compressed again as it was: same version and method, and the level
  // that gives the original bytes back.
  // Large zstd bundles are compressed by several threads here, which gives
  // other bytes than clang-offload-bundler's one: no level could match.
  bool Large = Header.Method == compression::Format::Zstd &&
               Inflated.size() >= MultiThreadedZstdThreshold;
  std::optional<int> Level;
  if (!Large)
    Level = findCompressionLevel(Inflated, Data, Header);
  if (!Level)
    Warnings.push_back(
        (Name +
         (Large ? ": the compression level of a bundle this large is "
                  "not looked for"
                : ": no compression level gives the compressed "
                  "bundle's bytes again") +
         "; compressed at level 3, clang-offload-bundler's default")
            .str());
  Expected<SmallVector<char, 0>> Out =
      compressBundle(StringRef(Pruned->data(), Pruned->size()),
                     {Header.Method, Level.value_or(3), Header.Version});
  if (!Out)
    return fail(Name + ": " + toString(Out.takeError()));
  return std::move(*Out);
}

Expected<Pruner::Bytes> Pruner::pruneCudaFatbin(const CudaFatbin &Fatbin,
                                                StringRef Where) {
  std::vector<SelectableImage> Images;
  ListedContainer Listed{Where.str(), {}};
  for (const CudaFatbinEntry &E : Fatbin.Entries) {
    bool PTX = E.Kind == uint16_t(CudaFatbinEntryKind::PTX);
    std::string Arch = "sm_" + std::to_string(E.Arch);
    Images.push_back({PTX ? ImageKind::PTX : ImageKind::Cubin,
                      Triple("nvptx64-nvidia-cuda"), Arch});
    Listed.Images.push_back(
        {Arch + (PTX ? " ptx" : " cubin"),
         E.isCompressed() ? E.UncompressedSize : E.Payload.size()});
  }
  ImageSelection Selection = select(Images, std::move(Listed));
  if (Selection.numKept() == Images.size())
    return Bytes(Fatbin.Data.begin(), Fatbin.Data.end());

  // The kept entries (header and padded payload each, where one ends the
  // next begins) after the header, whose size of the entries is updated:
  // the bytes `fatbinary` writes for them alone.
  Bytes Entries;
  for (auto [I, E] : enumerate(Fatbin.Entries)) {
    if (!Selection.isKept(I))
      continue;
    uint64_t End = I + 1 < Fatbin.Entries.size() ? Fatbin.Entries[I + 1].Offset
                                                 : Fatbin.Data.size();
    llvm::append_range(Entries, Fatbin.Data.slice(E.Offset, End));
  }
  Bytes Out(Fatbin.Data.begin(),
            Fatbin.Data.begin() + Fatbin.Entries.front().Offset);
  support::endian::write64le(Out.data() + 8, Entries.size());
  llvm::append_range(Out, Entries);
  return std::move(Out);
}

Expected<Pruner::Bytes>
Pruner::pruneFatbinSection(StringRef Data, StringRef Where, StringRef Name) {
  // One or more bundles, compressed bundles or CUDA fat binaries, each where
  // the previous one ended or after zero padding (`ld -r` aligns each
  // object's section).
  struct Piece {
    uint64_t Offset, Size;
    Bytes Pruned;
  };
  std::vector<Piece> Pieces;
  uint64_t Pos = 0;
  while (Pos < Data.size()) {
    StringRef Rest = Data.drop_front(Pos);
    if (Rest.front() == 0) {
      ++Pos;
      continue;
    }
    std::string PieceName = (Name + "+" + hex(Pos)).str();
    uint64_t Size;
    Expected<Bytes> Pruned = Bytes();
    if (isCompressedBundle(Rest)) {
      Expected<CompressedBundleHeader> H =
          readCompressedBundleHeader(Rest, Name, Pos);
      if (!H)
        return H.takeError();
      Size = H->TotalSize ? std::min<uint64_t>(*H->TotalSize, Rest.size())
                          : Rest.size();
      Pruned = pruneCompressed(Rest.take_front(Size),
                               at(Where, "compressed bundle", Pos), PieceName);
    } else if (isBinaryBundle(Rest)) {
      Expected<std::vector<BundleEntry>> Entries =
          readBinaryBundle(Rest, PieceName);
      if (!Entries)
        return Entries.takeError();
      Size = BundleMagic.size() + 8;
      for (const BundleEntry &E : *Entries)
        Size = std::max<uint64_t>({Size, uint64_t(E.ID.end() - Rest.data()),
                                   uint64_t(E.Data.end() - Rest.data())});
      Pruned = pruneBundle(Rest.take_front(Size),
                           at(Where, "binary bundle", Pos), PieceName);
    } else if (isCudaFatbin(Rest)) {
      Expected<CudaFatbin> Fatbin = readCudaFatbin(Rest, PieceName);
      if (!Fatbin)
        return Fatbin.takeError();
      Size = Fatbin->Data.size();
      Pruned = pruneCudaFatbin(*Fatbin, at(Where, "CUDA fat binary", Pos));
    } else {
      return fail(Name + ": offset " + hex(Pos) +
                  ": neither an offload bundle, a compressed bundle nor a "
                  "CUDA fat binary");
    }
    if (!Pruned)
      return Pruned.takeError();
    Pieces.push_back({Pos, Size, std::move(*Pruned)});
    Pos += Size;
  }
  // Each fat binary stays where it was (what refers to them does by
  // offset), the tail of its slot zeroed; the section ends where the last
  // one now ends. One fat binary at the start: the section is it.
  if (Pieces.empty())
    return Bytes(Data.begin(), Data.end());
  Bytes Out(Pieces.back().Offset + Pieces.back().Pruned.size(), 0);
  for (const Piece &P : Pieces) {
    if (&P != &Pieces.back() && P.Pruned.size() > P.Size)
      return fail(Name + ": offset " + hex(P.Offset) +
                  ": the pruned fat binary would not fit where it was");
    llvm::copy(P.Pruned, Out.begin() + P.Offset);
  }
  return std::move(Out);
}

//===----------------------------------------------------------------------===//
// Objects
//===----------------------------------------------------------------------===//

Expected<std::optional<Pruner::Bytes>> Pruner::pruneObject(MemoryBufferRef Data,
                                                           StringRef Name) {
  // Named as errors name it: "lib.a(member.o)" in an archive.
  Data = MemoryBufferRef(Data.getBuffer(), Name);
  Expected<std::unique_ptr<ObjectFile>> Obj =
      ObjectFile::createObjectFile(Data);
  if (!Obj)
    return fail(Name +
                ": not a valid object file: " + toString(Obj.takeError()));

  // The config refers to names and contents: keep them alive here.
  std::deque<std::string> Names;
  objcopy::ConfigManager Config;
  StringMap<unsigned> Changed;
  bool HasDeviceCode = false;
  // The __CLANG_OFFLOAD_BUNDLE__ sections: one bundle, an entry each.
  std::vector<BundleEntry> BundleEntries;
  std::vector<std::string> BundleSections;
  // Sections rewritten in place, at their file offsets: nvcc's
  // __nv_relfatbin. ObjCopy's UpdateSection of LLVM 22 leaves the symbols
  // defined in an updated section with st_shndx SHN_XINDEX and no
  // SHT_SYMTAB_SHNDX (llvm/llvm-project#168060), which linkers reject, and
  // nvcc's objects define fatbinData there. A pruned fat binary stays where
  // it was anyway (pruneFatbinSection()), so the section keeps its size,
  // zero after its end, and every symbol and relocation stays valid.
  std::vector<std::pair<uint64_t, Bytes>> InPlace;

  for (const SectionRef &Sec : (*Obj)->sections()) {
    Expected<StringRef> SecName = Sec.getName();
    if (!SecName)
      return fail(Name + ": section " + Twine(Sec.getIndex()) +
                  ": cannot read the name: " + toString(SecName.takeError()));
    bool Offloading = isOffloadingSection(Sec, **Obj, *SecName);
    bool BundleSection = SecName->starts_with(BundleMagic);
    bool Fatbin = *SecName == ".hip_fatbin" || *SecName == ".nv_fatbin" ||
                  *SecName == "__nv_relfatbin";
    if (!Offloading && !BundleSection && !Fatbin)
      continue;
    Expected<StringRef> Contents = Sec.getContents();
    if (!Contents)
      return fail(
          Name + ": section '" + *SecName +
          "': cannot read the contents: " + toString(Contents.takeError()));
    std::string Where = (Name + ":" + *SecName).str();
    HasDeviceCode = true;

    if (BundleSection) {
      BundleEntries.push_back(
          {SecName->drop_front(BundleMagic.size()), *Contents});
      BundleSections.push_back(SecName->str());
      continue;
    }

    if (!Changed.try_emplace(*SecName, 0).second)
      return fail(Name + ": more than one section named '" + *SecName +
                  "': prune each object before merging them");
    Expected<Bytes> Pruned = Offloading
                                 ? pruneOffloadBinaries(*Contents, Where)
                                 : pruneFatbinSection(*Contents, Where, Where);
    if (!Pruned)
      return Pruned.takeError();
    if (StringRef(Pruned->data(), Pruned->size()) == *Contents)
      continue;
    if (*SecName == "__nv_relfatbin" && Pruned->size() <= Contents->size() &&
        (*Obj)->isELF()) {
      Pruned->resize(Contents->size(), '\0');
      InPlace.emplace_back(ELFSectionRef(Sec).getOffset(), std::move(*Pruned));
      continue;
    }
    const std::string &Kept = Names.emplace_back(*SecName);
    Config.Common.UpdateSection.emplace_back(
        Kept, MemoryBuffer::getMemBufferCopy(
                  StringRef(Pruned->data(), Pruned->size()), Kept));
  }
  if (!HasDeviceCode)
    return std::nullopt;

  // Those of the bundle's removed entries go.
  if (!BundleEntries.empty()) {
    Expected<std::vector<bool>> Keep =
        selectEntries(BundleEntries, (Name + " object bundle").str(), Name);
    if (!Keep)
      return Keep.takeError();
    for (auto [I, Section] : enumerate(BundleSections)) {
      if ((*Keep)[I])
        continue;
      const std::string &Removed = Names.emplace_back(Section);
      if (Error E =
              Config.Common.ToRemove.addMatcher(objcopy::NameOrPattern::create(
                  Removed, objcopy::MatchStyle::Literal,
                  [](Error E) { return E; })))
        return std::move(E);
    }
  }
  Bytes Patched(Data.getBuffer().begin(), Data.getBuffer().end());
  for (const auto &[Offset, Section] : InPlace)
    llvm::copy(Section, Patched.begin() + Offset);
  if (Config.Common.UpdateSection.empty() && Config.Common.ToRemove.empty())
    return std::move(Patched);

  // The objcopy that clang-offload-bundler's objects go through, checked
  // the same way.
  if (InPlace.empty())
    return runObjcopy(Config, **Obj, Data);
  MemoryBufferRef PatchedRef(StringRef(Patched.data(), Patched.size()),
                             Data.getBufferIdentifier());
  Expected<std::unique_ptr<ObjectFile>> PatchedObj =
      ObjectFile::createObjectFile(PatchedRef);
  if (!PatchedObj)
    return PatchedObj.takeError();
  return runObjcopy(Config, **PatchedObj, PatchedRef);
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

Expected<std::optional<Pruner::Bytes>> Pruner::pruneFile(MemoryBufferRef Data,
                                                         StringRef Name) {
  StringRef Bytes = Data.getBuffer();
  if (hasOffloadBinaryMagic(Bytes)) {
    auto Out = pruneOffloadBinaries(Bytes, Name);
    if (!Out)
      return Out.takeError();
    return std::move(*Out);
  }
  if (std::optional<StringRef> Comment = getTextBundleComment(Bytes)) {
    auto Out = pruneTextBundle(Bytes, *Comment, Name);
    if (!Out)
      return Out.takeError();
    return std::move(*Out);
  }
  if (isBinaryBundle(Bytes) || isCompressedBundle(Bytes) ||
      isCudaFatbin(Bytes)) {
    auto Out = pruneFatbinSection(Bytes, Name, Name);
    if (!Out)
      return Out.takeError();
    return std::move(*Out);
  }
  switch (identify_magic(Bytes)) {
  case file_magic::elf_relocatable:
  case file_magic::coff_object:
    return pruneObject(Data, Name);
  case file_magic::bitcode:
    return fail(Name + ": LLVM bitcode is not pruned: prune the object "
                       "compiled from it");
  case file_magic::elf_executable:
  case file_magic::elf_shared_object:
    return pruneLinked(Data, Name);
  default:
    return std::nullopt;
  }
}

void printListing(raw_ostream &OS, ArrayRef<ListedContainer> Listing) {
  for (const ListedContainer &C : Listing) {
    OS << C.Where << ":\n";
    for (const ListedImage &Image : C.Images) {
      bool Kept = Image.Host || Image.Reason != SelectReason::NotRequested;
      OS << "  " << (Kept ? "keep  " : "remove") << " "
         << format_decimal(Image.Size, 10) << "  " << Image.Name;
      if (Image.Host)
        OS << " (host)";
      else if (Kept && Image.Reason != SelectReason::Requested)
        OS << " (" << describeSelectReason(Image.Reason) << ")";
      OS << "\n";
    }
  }
}

} // namespace prune
} // namespace offload

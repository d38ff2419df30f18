//===- Containers.cpp - OffloadBinaries, bundles, CCOBs, fat binaries ---===//

#include "Containers.h"
#include "Inspector.h"

#include "format/BundleEntryID.h"
#include "format/CompressedBundle.h"
#include "format/CubinResources.h"
#include "format/InspectCudaFatbin.h"
#include "format/OffloadBundle.h"
#include "format/SPIRVModule.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace offload {

std::string hexOffset(uint64_t V) { return "0x" + utohexstr(V, true); }

bool startsWithContainer(StringRef Data) {
  return hasOffloadBinaryMagic(Data) || isBinaryBundle(Data) ||
         isCompressedBundle(Data) || isCudaFatbin(Data) ||
         getTextBundleComment(Data).has_value();
}

/// What an image holds, from its first bytes.
static StringRef detectImageKind(StringRef Data) {
  if (hasOffloadBinaryMagic(Data))
    return "offload-binary";
  if (isBinaryBundle(Data) || isCompressedBundle(Data) ||
      getTextBundleComment(Data))
    return "bundle";
  if (isCudaFatbin(Data))
    return "fatbinary";
  if (isSPIRVModule(Data))
    return "spirv";
  switch (identify_magic(Data)) {
  case file_magic::bitcode:
    return "bitcode";
  case file_magic::elf_relocatable:
  case file_magic::elf_executable:
  case file_magic::elf_shared_object:
    if (isCubin(Data))
      return "cubin";
    return "object";
  case file_magic::archive:
    return "archive";
  default:
    break;
  }
  if (Data.contains(".target sm_") || Data.contains(".version "))
    return "ptx";
  return "data";
}

/// How many inflated bytes of an image in compressed data tell what it
/// is (detectImageKind() looks at the first few).
static constexpr uint64_t StreamedPrefix = 64 << 10;

/// Image kinds walked into, which must then be inflated whole.
static bool isWalkedKind(StringRef Kind) {
  return Kind == "offload-binary" || Kind == "bundle" || Kind == "fatbinary" ||
         Kind == "object" || Kind == "archive";
}

/// The name of an OffloadBinary's image kind, in the words the tree uses.
static StringRef getImageKindWord(ImageKind Kind) {
  switch (Kind) {
  case ImageKind::None:
    return "none";
  case ImageKind::Object:
    return "object";
  case ImageKind::Bitcode:
    return "bitcode";
  case ImageKind::Cubin:
    return "cubin";
  case ImageKind::Fatbinary:
    return "fatbinary";
  case ImageKind::PTX:
    return "ptx";
  case ImageKind::SPIRV:
    return "spirv";
  }
  return "unknown";
}

void Inspector::walkSequence(StringRef Data, const Context &Ctx,
                             InspectNode &Into) {
  for (uint64_t At = 0; At < Data.size();) {
    // Containers are aligned (8 for OffloadBinaries, up to 4096 for HIP
    // bundles after `ld -r`) and the gaps are zeros.
    if (Data[At] == 0) {
      ++At;
      continue;
    }
    Expected<uint64_t> End = walkOne(Data, At, Ctx, Into);
    if (!End)
      return fail(Into, End.takeError());
    At = *End;
  }
}

Expected<uint64_t> Inspector::walkOne(StringRef Data, uint64_t At,
                                      const Context &Ctx, InspectNode &Into) {
  StringRef Rest = Data.drop_front(At);
  InspectNode Node;
  Node.Offset = At;
  Node.FileOffset = fileOffset(Ctx, Rest.data());
  Context Inner = Ctx;
  Inner.Location = Ctx.Location + "+" + hexOffset(At);
  Inner.Depth = Ctx.Depth + 1;
  Inner.InImage = false;
  uint64_t End;

  if (hasOffloadBinaryMagic(Rest)) {
    // A compressed binary is inflated as far as its strings, then as far as
    // each image's first bytes, which tell what it is; only images that are
    // containers to walk into are inflated whole, the others again, as a
    // stream, when --extract writes them.
    Expected<OffloadBinary> Read = readOffloadBinary(
        Data, At, Store, Ctx.Location, /*BaseOffset=*/0, InflateMode::Metadata);
    if (!Read)
      return Read.takeError();
    auto Binary = std::make_shared<const OffloadBinary>(std::move(*Read));
    std::vector<std::string> Heads(Binary->Images.size());
    std::vector<size_t> Deferred;
    for (auto [I, Image] : enumerate(Binary->Images))
      if (Image.isDeferred())
        Deferred.push_back(I);
    if (Error E = streamOffloadImages(
            *Binary, Deferred,
            [&](size_t I, StringRef Piece) {
              Heads[I].append(Piece.begin(), Piece.end());
              return Error::success();
            },
            StreamedPrefix))
      return std::move(E);
    // The images that are containers to walk into, inflated whole in one
    // pass over the stream.
    std::vector<size_t> Walked;
    for (size_t I : Deferred)
      if (Heads[I].size() != Binary->Images[I].getImageSize() &&
          isWalkedKind(detectImageKind(Heads[I])))
        Walked.push_back(I);
    Expected<std::vector<StringRef>> Wholes =
        loadOffloadImages(*Binary, Walked, Store);
    if (!Wholes)
      return Wholes.takeError();
    DenseMap<size_t, StringRef> Whole;
    for (auto [I, Index] : enumerate(Walked))
      Whole[Index] = (*Wholes)[I];
    Node.TheType = InspectNode::Type::OffloadBinary;
    Node.Format = "v" + std::to_string(Binary->Version);
    Node.Size = Binary->Data.size();
    End = At + Binary->Data.size();
    if (Binary->Compressed)
      Node.Format += " compressed";
    for (auto [I, Image] : enumerate(Binary->Images)) {
      InspectNode Child;
      Child.TheType = InspectNode::Type::Image;
      Child.Name = "entry " + std::to_string(I);
      Child.Offset = Image.ImageOffset;
      Child.Size = Image.getImageSize();
      Child.Data = Image.Image;
      if (!Image.isDeferred()) {
        Child.FileOffset = fileOffset(Ctx, Image.Image.data());
      } else if (!Whole.count(I)) {
        Child.Data =
            Store.keep(MemoryBuffer::getMemBufferCopy(Heads[I], Ctx.Location));
        if (Child.Data.size() < Child.Size)
          Child.Extract = [Binary, I = I](raw_ostream &OS) -> Error {
            return streamOffloadImages(*Binary, I,
                                       [&](size_t, StringRef Piece) {
                                         OS << Piece;
                                         return Error::success();
                                       });
          };
      } else {
        Child.Data = Whole[I];
      }
      Heads[I].clear();
      Heads[I].shrink_to_fit();
      Child.OffloadKind = getOffloadKindName(Image.TheOffloadKind).str();
      Child.Triple = Image.getTriple().str();
      Child.Arch = Image.getArch().str();
      Child.ImageKind = getImageKindWord(Image.TheImageKind).str();
      Child.Location = Inner.Location + " > offload binary entry " +
                       std::to_string(I) + " @" + hexOffset(Image.ImageOffset);
      addImage(std::move(Child), Inner, Node);
    }
  } else if (isBinaryBundle(Rest)) {
    Expected<std::vector<BundleEntry>> Entries =
        readBinaryBundle(Rest, Inner.Location);
    if (!Entries)
      return Entries.takeError();
    Node.TheType = InspectNode::Type::Bundle;
    Node.Format = "binary bundle";
    // The header, then the payloads: the bundle ends after the last one.
    uint64_t Size = BundleMagic.size() + 8;
    for (const BundleEntry &E : *Entries)
      Size += 24 + E.ID.size();
    for (const BundleEntry &E : *Entries)
      Size = std::max<uint64_t>(Size, E.Data.end() - Rest.begin());
    Node.Size = Size;
    End = At + Size;
    walkBundleEntries(*Entries, Rest, Inner, Node);
  } else if (isCompressedBundle(Rest)) {
    Expected<CompressedBundleHeader> Header =
        readCompressedBundleHeader(Rest, Ctx.Location, At);
    if (!Header)
      return Header.takeError();
    // Version 1 has no total size and runs to the end of the data.
    uint64_t Size = Header->TotalSize.value_or(Rest.size());
    if (Size > Rest.size() || Size < Header->HeaderSize)
      return createStringError(Ctx.Location + ": offset " + hexOffset(At) +
                               ": compressed bundle of " + Twine(Size) +
                               " bytes does not fit the " + Twine(Rest.size()) +
                               " bytes left");
    Node.Size = Size;
    End = At + Size;
    if (Error E = walkCompressedBundle(Rest.take_front(Size), Inner, Node))
      return std::move(E);
  } else if (isCudaFatbin(Rest)) {
    Expected<CudaFatbin> Fatbin = readCudaFatbin(Rest, Inner.Location);
    if (!Fatbin)
      return Fatbin.takeError();
    Node.TheType = InspectNode::Type::CudaFatbin;
    Node.Format = "CUDA fat binary v" + std::to_string(Fatbin->Version);
    Node.Size = Fatbin->Data.size();
    End = At + Node.Size;
    for (auto [I, Entry] : enumerate(Fatbin->Entries)) {
      InspectNode Child;
      Child.TheType = InspectNode::Type::Image;
      bool IsPTX = Entry.Kind == uint16_t(CudaFatbinEntryKind::PTX);
      Child.Name = "entry " + std::to_string(I);
      Child.Offset = Entry.PayloadOffset;
      Child.OffloadKind = "cuda";
      Child.Triple = "nvptx64-nvidia-cuda";
      Child.Arch = "sm_" + std::to_string(Entry.Arch);
      Child.ImageKind = IsPTX ? "ptx" : "cubin";
      Child.Location = Inner.Location + " > fatbin entry " + std::to_string(I) +
                       " @" + hexOffset(Entry.PayloadOffset);
      Child.Data = Entry.Payload;
      Child.Size = Entry.Payload.size();
      if (Entry.isCompressed()) {
        Child.CompressedSize = Entry.Payload.size();
        Child.Size = Entry.UncompressedSize;
        Expected<SmallVector<uint8_t, 0>> Out =
            decompressCudaFatbinEntry(Entry, Inner.Location);
        if (!Out) {
          fail(Child, Out.takeError());
          Child.Index = NextIndex++;
          Child.Data = {};
          Node.Children.push_back(std::move(Child));
          continue;
        }
        Child.Data = Store.keep(
            MemoryBuffer::getMemBufferCopy(toStringRef(*Out), Child.Location));
      } else {
        Child.FileOffset = fileOffset(Ctx, Entry.Payload.data());
      }
      addImage(std::move(Child), Inner, Node);
    }
  } else if (std::optional<StringRef> Comment = getTextBundleComment(Rest)) {
    Expected<std::vector<BundleEntry>> Entries =
        readTextBundle(Rest, *Comment, Inner.Location);
    if (!Entries)
      return Entries.takeError();
    Node.TheType = InspectNode::Type::TextBundle;
    Node.Format = "text bundle (" + Comment->str() + ")";
    Node.Size = Rest.size();
    End = Data.size();
    walkBundleEntries(*Entries, Rest, Inner, Node);
  } else {
    return createStringError(Ctx.Location + ": offset " + hexOffset(At) +
                             ": no OffloadBinary, offload bundle, compressed "
                             "bundle or CUDA fat binary starts here");
  }
  Into.Children.push_back(std::move(Node));
  return End;
}

/// The triple of a bundle entry ID without the empty environment that
/// normalized IDs carry ("amdgcn-amd-amdhsa-"), as OffloadBinaries spell it.
static std::string displayTriple(const BundleEntryID &ID) {
  return StringRef(ID.TargetTriple.str()).rtrim('-').str();
}

Error Inspector::walkCompressedBundle(StringRef CCOB, const Context &Inner,
                                      InspectNode &Node) {
  Expected<std::unique_ptr<CompressedBundleReader>> Reader =
      CompressedBundleReader::open(CCOB, Inner.Location);
  if (!Reader)
    return Reader.takeError();
  if (VerifyHashes)
    (*Reader)->enableHash();
  const CompressedBundleHeader &H = (*Reader)->header();
  Node.TheType = InspectNode::Type::CompressedBundle;
  Node.Format = "CCOB v" + std::to_string(H.Version) + " " +
                (H.Method == compression::Format::Zstd ? "zstd" : "zlib");
  Node.InflatedSize = H.UncompressedSize;
  Expected<std::optional<BinaryBundleHeader>> Header =
      readInflatedBundleHeader(**Reader);
  if (!Header)
    return Header.takeError();
  if (!*Header)
    return createStringError(Inner.Location +
                             ": the inflated data is not an offload bundle");
  const std::vector<BundleEntryLocation> &Entries = (*Header)->Entries;

  // Each entry's first bytes, or all of them where it is walked into; the
  // entries come in order of offset, and nothing after the last is
  // inflated.
  std::vector<std::string> Bytes(Entries.size());
  std::vector<size_t> Order(Entries.size());
  for (size_t I = 0; I != Order.size(); ++I)
    Order[I] = I;
  llvm::stable_sort(Order, [&](size_t A, size_t B) {
    return Entries[A].Offset < Entries[B].Offset;
  });
  for (size_t I : Order) {
    const BundleEntryLocation &E = Entries[I];
    if (E.Size == 0)
      continue;
    if (Error Err = (*Reader)->skip(E.Offset - (*Reader)->position()))
      return Err;
    std::string &B = Bytes[I];
    B.resize(std::min(E.Size, StreamedPrefix));
    if (Error Err = (*Reader)->readExactly(B.data(), B.size()))
      return Err;
    Expected<BundleEntryID> ID = BundleEntryID::parse(E.ID);
    if (E.Size == B.size() || (ID && ID->isHost()) ||
        !isWalkedKind(detectImageKind(B)))
      continue;
    // Grown as the data comes, never from the header's size up front.
    while (B.size() < E.Size) {
      size_t At = B.size();
      size_t Chunk = std::min<uint64_t>(E.Size - At, At);
      B.resize(At + Chunk);
      if (Error Err = (*Reader)->readExactly(B.data() + At, Chunk))
        return Err;
    }
  }

  if (VerifyHashes) {
    if (Error Err = (*Reader)->finish())
      return Err;
    if (uint64_t Hash = (*Reader)->hash(); Hash != H.Hash)
      return createStringError(
          Inner.Location + ": offset " + hexOffset(H.HeaderSize - 8) +
          ": compressed bundle: hash " + hexOffset(H.Hash) +
          " does not match the inflated data (" + hexOffset(Hash) + ")");
  }

  InspectNode Bundle;
  Bundle.TheType = InspectNode::Type::Bundle;
  Bundle.Format = "binary bundle";
  Bundle.Size = (*Header)->payloadEnd();
  Context InBundle = Inner;
  InBundle.Location = Inner.Location + " > inflated+0x0";
  InBundle.Depth = Inner.Depth + 1;
  for (size_t I = 0; I != Entries.size(); ++I) {
    const BundleEntryLocation &E = Entries[I];
    StringRef Data =
        Store.keep(MemoryBuffer::getMemBufferCopy(Bytes[I], InBundle.Location));
    Bytes[I].clear();
    Bytes[I].shrink_to_fit();
    std::function<Error(raw_ostream &)> Extract;
    if (Data.size() < E.Size)
      Extract = [CCOB, Name = Inner.Location, E](raw_ostream &OS) -> Error {
        Expected<std::unique_ptr<CompressedBundleReader>> R =
            CompressedBundleReader::open(CCOB, Name);
        if (!R)
          return R.takeError();
        if (Error Err = (*R)->skip(E.Offset))
          return Err;
        return streamBundlePayloads(**R, E,
                                    [&](size_t, StringRef Piece) -> Error {
                                      OS << Piece;
                                      return Error::success();
                                    });
      };
    addBundleEntry(E.ID, Data, E.Size, E.Offset, std::move(Extract), InBundle,
                   Bundle);
  }
  Node.Children.push_back(std::move(Bundle));
  return Error::success();
}

void Inspector::walkBundleEntries(ArrayRef<BundleEntry> Entries, StringRef Base,
                                  const Context &Ctx, InspectNode &Into) {
  // Object bundles have one section per entry and no bundle to be in.
  for (const BundleEntry &Entry : Entries)
    addBundleEntry(
        Entry.ID, Entry.Data, Entry.Data.size(),
        Base.empty() ? std::nullopt
                     : std::optional<uint64_t>(Entry.Data.data() - Base.data()),
        nullptr, Ctx, Into);
}

void Inspector::addBundleEntry(StringRef IDText, StringRef Data, uint64_t Size,
                               std::optional<uint64_t> Offset,
                               std::function<Error(raw_ostream &)> Extract,
                               const Context &Ctx, InspectNode &Into) {
  InspectNode Child;
  Child.Name = IDText.str();
  Child.Size = Size;
  Child.FileOffset = fileOffset(Ctx, Data.data());
  Child.Data = Data;
  Child.Extract = std::move(Extract);
  if (Offset) {
    Child.Offset = *Offset;
    Child.Location = Ctx.Location + " > bundle entry " + Child.Name + " @" +
                     hexOffset(Child.Offset);
  } else {
    Child.Location = Ctx.Location + ":" + BundleMagic.str() + Child.Name;
  }
  Expected<BundleEntryID> ID = BundleEntryID::parse(IDText);
  if (!ID) {
    // Not an ID the bundler would write or read: listed as stored, with
    // the error (the bundler refuses the file).
    fail(Child,
         createStringError(Child.Location + ": " + toString(ID.takeError())));
    Child.TheType = InspectNode::Type::Image;
    Child.ImageKind = detectImageKind(Data).str();
    addImage(std::move(Child), Ctx, Into);
    return;
  }
  if (ID->isHost()) {
    Child.TheType = InspectNode::Type::HostEntry;
    Child.OffloadKind = "host";
    Child.Triple = displayTriple(*ID);
    Into.Children.push_back(std::move(Child));
    return;
  }
  Child.TheType = InspectNode::Type::Image;
  Child.OffloadKind = ID->Kind;
  Child.Triple = displayTriple(*ID);
  Child.Arch = ID->TargetIDText;
  Child.ImageKind = detectImageKind(Data).str();
  addImage(std::move(Child), Ctx, Into);
}

namespace {
/// Feeds what is written to a SPIR-V module reader, and keeps its error.
class SPIRVReaderStream : public raw_ostream {
public:
  explicit SPIRVReaderStream(SPIRVModuleReader &Reader) : Reader(Reader) {}
  ~SPIRVReaderStream() override { flush(); }

  /// The reader's first error, after what was written.
  Error takeError() {
    flush();
    return std::move(Err);
  }

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Pos += Size;
    // The rest of the stream is of no use after an error.
    if (!Err)
      Err = Reader.add(StringRef(Ptr, Size));
  }
  uint64_t current_pos() const override { return Pos; }

  SPIRVModuleReader &Reader;
  Error Err = Error::success();
  uint64_t Pos = 0;
};
} // namespace

void Inspector::readSPIRV(InspectNode &Image) {
  // The whole instruction stream is checked. Of a module in compressed data
  // only the first bytes were inflated: it is inflated again, as a stream,
  // so that memory does not follow its size.
  SPIRVModuleReader Reader(Image.Location);
  if (Image.Extract) {
    SPIRVReaderStream OS(Reader);
    Error Inflate = Image.Extract(OS);
    if (Error E = OS.takeError()) {
      consumeError(std::move(Inflate));
      return fail(Image, std::move(E));
    }
    if (Inflate)
      return fail(Image, std::move(Inflate));
  } else if (Error E = Reader.add(Image.Data)) {
    return fail(Image, std::move(E));
  }
  Expected<SPIRVModuleInfo> Info = Reader.finish();
  if (!Info)
    return fail(Image, Info.takeError());
  Image.SPIRV = std::move(*Info);
}

void Inspector::addImage(InspectNode Image, const Context &Ctx,
                         InspectNode &Into) {
  Image.Index = NextIndex++;
  // SPIR-V as the container says (an OffloadBinary's image kind) or as the
  // bytes say (a bundle entry, a .spv that LLVM's packager calls "none").
  if (Image.Error.empty() &&
      (Image.ImageKind == "spirv" || isSPIRVModule(Image.Data)))
    readSPIRV(Image);
  // An image may be a container itself: a fat binary in an OffloadBinary, a
  // bundle in a bundle entry.
  if (!Image.Data.empty() && Image.Error.empty() && !Image.Extract) {
    Context InImage = Ctx;
    InImage.Location = Image.Location;
    InImage.Depth = Ctx.Depth + 1;
    InImage.InImage = true;
    // Plain code objects are walked too, for offload sections (an OpenMP
    // host-CPU image is an ordinary relocatable object).
    walkBuffer(Image.Data, InImage, Image);
  }
  Into.Children.push_back(std::move(Image));
}

} // namespace offload

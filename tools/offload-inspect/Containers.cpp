//===- Containers.cpp - OffloadBinaries, bundles, CCOBs, fat binaries ---===//

#include "Containers.h"
#include "Inspector.h"

#include "format/BundleEntryID.h"
#include "format/CompressedBundle.h"
#include "format/InspectCudaFatbin.h"
#include "format/OffloadBundle.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace offload {

static constexpr StringLiteral TextBundleStart =
    "__CLANG_OFFLOAD_BUNDLE____START__ ";

std::string hexOffset(uint64_t V) { return "0x" + utohexstr(V, true); }

/// The comment string of a text bundle that starts \p Data, if it is one:
/// "\n<comment> __CLANG_OFFLOAD_BUNDLE____START__ <ID>\n".
std::optional<StringRef> getTextBundleComment(StringRef Data) {
  if (!Data.consume_front("\n"))
    return std::nullopt;
  StringRef Line = Data.take_until([](char C) { return C == '\n'; });
  size_t Marker = Line.find(TextBundleStart);
  if (Marker == StringRef::npos || Marker < 2 || Line[Marker - 1] != ' ')
    return std::nullopt;
  return Line.take_front(Marker - 1);
}

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
  if (Data.size() >= 4 && support::endian::read32le(Data.data()) == 0x07230203)
    return "spirv";
  switch (identify_magic(Data)) {
  case file_magic::bitcode:
    return "bitcode";
  case file_magic::elf_relocatable:
  case file_magic::elf_executable:
  case file_magic::elf_shared_object:
    // e_machine is at 18 in both ELF classes; NVIDIA's is a cubin.
    if (Data.size() >= 20 &&
        support::endian::read16le(Data.data() + 18) == ELF::EM_CUDA)
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
    Expected<OffloadBinary> Binary =
        readOffloadBinary(Data, At, Store, Ctx.Location);
    if (!Binary)
      return Binary.takeError();
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
      Child.FileOffset = fileOffset(Ctx, Image.Image.data());
      Child.Size = Image.Image.size();
      Child.OffloadKind = getOffloadKindName(Image.TheOffloadKind).str();
      Child.Triple = Image.getTriple().str();
      Child.Arch = Image.getArch().str();
      Child.ImageKind = getImageKindWord(Image.TheImageKind).str();
      Child.Location = Inner.Location + " > offload binary entry " +
                       std::to_string(I) + " @" + hexOffset(Image.ImageOffset);
      Child.Data = Image.Image;
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
    Expected<SmallVector<char, 0>> Inflated = decompressBundle(
        Rest.take_front(Size), Inner.Location, /*VerifyHash=*/true);
    if (!Inflated)
      return Inflated.takeError();
    Node.TheType = InspectNode::Type::CompressedBundle;
    Node.Format =
        "CCOB v" + std::to_string(Header->Version) + " " +
        (Header->Method == compression::Format::Zstd ? "zstd" : "zlib");
    Node.Size = Size;
    Node.InflatedSize = Inflated->size();
    End = At + Size;
    StringRef Bytes = Store.keep(MemoryBuffer::getMemBufferCopy(
        StringRef(Inflated->data(), Inflated->size()), Inner.Location));
    Context InInflated = Inner;
    InInflated.Location = Inner.Location + " > inflated";
    if (!isBinaryBundle(Bytes))
      return createStringError(Inner.Location +
                               ": the inflated data is not an offload bundle");
    walkSequence(Bytes, InInflated, Node);
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

void Inspector::walkBundleEntries(ArrayRef<BundleEntry> Entries, StringRef Base,
                                  const Context &Ctx, InspectNode &Into) {
  for (const BundleEntry &Entry : Entries) {
    InspectNode Child;
    Child.Name = Entry.ID.str();
    Child.Size = Entry.Data.size();
    Child.FileOffset = fileOffset(Ctx, Entry.Data.data());
    Child.Data = Entry.Data;
    // Object bundles have one section per entry and no bundle to be in.
    bool InObject = Base.empty();
    if (!InObject) {
      Child.Offset = Entry.Data.data() - Base.data();
      Child.Location = Ctx.Location + " > bundle entry " + Child.Name + " @" +
                       hexOffset(Child.Offset);
    } else {
      Child.Location = Ctx.Location + ":" + BundleMagic.str() + Child.Name;
    }
    Expected<BundleEntryID> ID = BundleEntryID::parse(Entry.ID);
    if (!ID) {
      // Not an ID the bundler would write or read: listed as stored, with
      // the error (the bundler refuses the file).
      fail(Child,
           createStringError(Child.Location + ": " + toString(ID.takeError())));
      Child.TheType = InspectNode::Type::Image;
      Child.ImageKind = detectImageKind(Entry.Data).str();
      addImage(std::move(Child), Ctx, Into);
      continue;
    }
    if (ID->isHost()) {
      Child.TheType = InspectNode::Type::HostEntry;
      Child.OffloadKind = "host";
      Child.Triple = displayTriple(*ID);
      Into.Children.push_back(std::move(Child));
      continue;
    }
    Child.TheType = InspectNode::Type::Image;
    Child.OffloadKind = ID->Kind;
    Child.Triple = displayTriple(*ID);
    Child.Arch = ID->TargetIDText;
    Child.ImageKind = detectImageKind(Entry.Data).str();
    addImage(std::move(Child), Ctx, Into);
  }
}

void Inspector::addImage(InspectNode Image, const Context &Ctx,
                         InspectNode &Into) {
  Image.Index = NextIndex++;
  // An image may be a container itself: a fat binary in an OffloadBinary, a
  // bundle in a bundle entry.
  if (!Image.Data.empty() && Image.Error.empty()) {
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

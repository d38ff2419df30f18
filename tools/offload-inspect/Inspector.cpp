//===- Inspector.cpp - Files, archives and object sections ---------------===//

#include "Inspector.h"
#include "Containers.h"
#include "format/CheckedArchive.h"

#include "format/CompressedBundle.h"
#include "format/FindOffloadBinaries.h"
#include "format/InspectCudaFatbin.h"
#include "format/OffloadBundle.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/Decompressor.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace llvm::object;

namespace offload {

/// Containers nest (a bundle in an OffloadBinary in a section); a crafted
/// file could nest compressed containers much deeper than any compiler does.
static constexpr int MaxDepth = 16;

std::optional<uint64_t> Inspector::fileOffset(const Context &Ctx,
                                              const char *Ptr) const {
  if (Ptr < Ctx.FileData.begin() || Ptr > Ctx.FileData.end())
    return std::nullopt;
  return Ctx.FileBase + (Ptr - Ctx.FileData.begin());
}

void Inspector::fail(InspectNode &Node, Error E) {
  std::string Message = toString(std::move(E));
  // A node may fail in several places (an object's section names).
  Node.Error += (Node.Error.empty() ? "" : "; ") + Message;
  Errors.push_back(std::move(Message));
}

StringRef getExtractExtension(StringRef ImageKind) {
  return StringSwitch<StringRef>(ImageKind)
      .Case("object", "o")
      .Case("bitcode", "bc")
      .Case("cubin", "cubin")
      .Case("ptx", "ptx")
      .Case("fatbinary", "fatbin")
      .Case("spirv", "spv")
      .Case("archive", "a")
      .Case("offload-binary", "offbin")
      .Default("bin");
}

std::optional<InspectNode> Inspector::inspectFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Buffer.getError()) {
    Errors.push_back((Path + ": cannot read: " + EC.message()).str());
    return std::nullopt;
  }
  InspectNode Root;
  Root.TheType = InspectNode::Type::File;
  Root.Name = Path.str();
  StringRef Data = (*Buffer)->getBuffer();
  Buffers.push_back(std::move(*Buffer));
  Root.Size = Data.size();
  Root.FileOffset = 0;
  Root.Data = Data;
  Root.Location = Path.str();
  Context Ctx;
  Ctx.FileData = Data;
  Ctx.Location = Path.str();
  walkBuffer(Data, Ctx, Root);
  return Root;
}

void Inspector::walkBuffer(StringRef Data, const Context &Ctx,
                           InspectNode &Into) {
  if (Ctx.Depth > MaxDepth) {
    fail(Into, createStringError(Ctx.Location +
                                 ": containers nested more "
                                 "than " +
                                 Twine(MaxDepth) + " deep"));
    return;
  }
  MemoryBufferRef Buffer(Data, Ctx.Location);
  file_magic Magic = identify_magic(Data);
  switch (Magic) {
  case file_magic::elf_relocatable:
  case file_magic::elf_executable:
  case file_magic::elf_shared_object:
  case file_magic::coff_object:
  case file_magic::macho_object:
  case file_magic::macho_executable:
  case file_magic::macho_dynamically_linked_shared_lib:
    Into.Format = Magic == file_magic::elf_relocatable     ? "ELF relocatable"
                  : Magic == file_magic::elf_executable    ? "ELF executable"
                  : Magic == file_magic::elf_shared_object ? "ELF shared object"
                                                           : "object";
    return walkObject(Buffer, Ctx, Into);
  case file_magic::archive:
    Into.Format = "archive";
    return walkArchive(Buffer, Ctx, Into);
  case file_magic::bitcode:
    // Device bitcode embeds no images; host bitcode (LTO objects) does.
    Into.Format = "bitcode";
    if (!Ctx.InImage)
      walkBitcode(Buffer, Ctx, Into);
    return;
  default:
    break;
  }
  if (!startsWithContainer(Data)) {
    Into.Format = "data";
    return;
  }
  Into.Format = hasOffloadBinaryMagic(Data) ? "offload binary"
                : isBinaryBundle(Data)      ? "offload bundle"
                : isCompressedBundle(Data)  ? "compressed offload bundle"
                : isCudaFatbin(Data)        ? "CUDA fat binary"
                                            : "text offload bundle";
  walkSequence(Data, Ctx, Into);
}

void Inspector::walkArchive(MemoryBufferRef Buffer, const Context &Ctx,
                            InspectNode &Into) {
  Expected<std::unique_ptr<Archive>> Ar = createCheckedArchive(Buffer);
  if (!Ar)
    return fail(Into, createStringError(Ctx.Location + ": " +
                                        toString(Ar.takeError())));
  Archive &A = **Ar;
  Binaries.push_back(std::move(*Ar));
  Error Err = Error::success();
  for (const Archive::Child &C : A.children(Err)) {
    InspectNode Member;
    Member.TheType = InspectNode::Type::File;
    Expected<StringRef> Name = C.getName();
    Member.Name = Name ? Name->str() : (consumeError(Name.takeError()), "?");
    Context InMember = Ctx;
    InMember.Location = Ctx.Location + "(" + Member.Name + ")";
    InMember.Depth = Ctx.Depth + 1;
    Expected<MemoryBufferRef> MB = C.getMemoryBufferRef();
    if (!MB) {
      fail(Member, createStringError(InMember.Location + ": " +
                                     toString(MB.takeError())));
      Into.Children.push_back(std::move(Member));
      continue;
    }
    // LLVM's reader trusts a member's size field; a damaged one would make
    // the member run past the archive.
    if (!A.isThin() && (MB->getBufferStart() < Buffer.getBufferStart() ||
                        MB->getBufferEnd() > Buffer.getBufferEnd())) {
      fail(Member,
           createStringError(InMember.Location + ": member of " +
                             Twine(MB->getBufferSize()) +
                             " bytes runs past the end of the archive"));
      Into.Children.push_back(std::move(Member));
      continue;
    }
    // A thin archive's member is a file of its own: offsets are its own.
    if (A.isThin()) {
      InMember.FileData = MB->getBuffer();
      InMember.FileBase = 0;
    }
    Member.Size = MB->getBufferSize();
    Member.FileOffset = fileOffset(InMember, MB->getBufferStart());
    Member.Data = MB->getBuffer();
    Member.Location = InMember.Location;
    walkBuffer(MB->getBuffer(), InMember, Member);
    Into.Children.push_back(std::move(Member));
  }
  if (Err)
    fail(Into,
         createStringError(Ctx.Location + ": " + toString(std::move(Err))));
}

void Inspector::walkBitcode(MemoryBufferRef Buffer, const Context &Ctx,
                            InspectNode &Into) {
  // The finder knows where bitcode keeps its embedded binaries; they are
  // copies, so they have no file offset.
  auto Finder = std::make_unique<OffloadBinaryFinder>();
  if (Error E = Finder->addBuffer(Buffer, Ctx.Location))
    return fail(Into, std::move(E));
  for (const FoundOffloadBinary &Found : Finder->binaries()) {
    InspectNode Section;
    Section.TheType = InspectNode::Type::Section;
    Section.Name = Found.Origin.Section;
    Section.Size = Found.Binary.Data.size();
    Context InGlobal = Ctx;
    InGlobal.Location = Ctx.Location + ":" + Found.Origin.Section;
    InGlobal.Depth = Ctx.Depth + 1;
    // Re-read from the finder's copy so that the tree is built one way.
    walkSequence(Found.Binary.Data, InGlobal, Section);
    Into.Children.push_back(std::move(Section));
  }
  KeptFinders.push_back(std::move(Finder));
}

/// Which sections hold what.
enum class SectionContents { None, OffloadBinaries, Bundles, CudaFatbins };

static SectionContents classifySection(const SectionRef &Sec,
                                       const ObjectFile &Obj, StringRef Name) {
  if (Obj.isELF()) {
    ELFSectionRef ELFSec(Sec);
    if (ELFSec.getType() == ELF::SHT_NOBITS)
      return SectionContents::None;
    if (ELFSec.getType() == ELF::SHT_LLVM_OFFLOADING)
      return SectionContents::OffloadBinaries;
  }
  if (Name.starts_with(".llvm.offloading"))
    return SectionContents::OffloadBinaries;
  if (Name.starts_with(".hip_fatbin"))
    return SectionContents::Bundles;
  if (Name.starts_with(".nv_fatbin") || Name.starts_with("__nv_relfatbin"))
    return SectionContents::CudaFatbins;
  return SectionContents::None;
}

void Inspector::walkObject(MemoryBufferRef Buffer, const Context &Ctx,
                           InspectNode &Into) {
  // Object readers need aligned headers; an image inside a container may sit
  // anywhere. Read a copy then, keeping file offsets those of the original.
  Context Aligned = Ctx;
  if (!isAddrAligned(Align(8), Buffer.getBufferStart())) {
    std::optional<uint64_t> Base = fileOffset(Ctx, Buffer.getBufferStart());
    StringRef Copy = Store.keep(MemoryBuffer::getMemBufferCopy(
        Buffer.getBuffer(), Buffer.getBufferIdentifier()));
    Buffer = MemoryBufferRef(Copy, Buffer.getBufferIdentifier());
    Aligned.FileData = Base ? Copy : StringRef();
    Aligned.FileBase = Base.value_or(0);
  }
  walkAlignedObject(Buffer, Aligned, Into);
}

void Inspector::walkAlignedObject(MemoryBufferRef Buffer, const Context &Ctx,
                                  InspectNode &Into) {
  Expected<std::unique_ptr<ObjectFile>> Obj =
      ObjectFile::createObjectFile(Buffer);
  if (!Obj)
    return fail(Into, createStringError(Ctx.Location + ": " +
                                        toString(Obj.takeError())));
  ObjectFile &O = **Obj;
  // A position-independent executable is ET_DYN like a shared library; its
  // interpreter tells them apart.
  if (Into.Format == "ELF shared object" &&
      any_of(O.sections(), [](const SectionRef &Sec) {
        Expected<StringRef> Name = Sec.getName();
        return Name ? *Name == ".interp"
                    : (consumeError(Name.takeError()), false);
      }))
    Into.Format = "ELF executable (PIE)";
  InspectNode ObjectBundle;
  ObjectBundle.TheType = InspectNode::Type::ObjectBundle;
  for (const SectionRef &Sec : O.sections()) {
    Expected<StringRef> NameOrErr = Sec.getName();
    if (!NameOrErr) {
      fail(Into, createStringError(Ctx.Location + ": " +
                                   toString(NameOrErr.takeError())));
      continue;
    }
    StringRef Name = *NameOrErr;
    bool IsBundleEntry = Name.starts_with(BundleMagic);
    SectionContents What = classifySection(Sec, O, Name);
    if (What == SectionContents::None && !IsBundleEntry)
      continue;

    InspectNode Section;
    Section.TheType = InspectNode::Type::Section;
    Section.Name = Name.str();
    Context InSection = Ctx;
    InSection.Location = Ctx.Location + ":" + Name.str();
    InSection.Depth = Ctx.Depth + 1;
    InSection.InImage = false;
    Expected<StringRef> Contents = Sec.getContents();
    if (!Contents) {
      fail(Section, createStringError(InSection.Location + ": " +
                                      toString(Contents.takeError())));
      Into.Children.push_back(std::move(Section));
      continue;
    }
    StringRef Data = *Contents;
    Section.FileOffset = fileOffset(Ctx, Data.data());
    Section.Size = Data.size();
    // `ld --compress-sections`: what follows refers to the inflated bytes.
    if (Sec.isCompressed()) {
      Expected<Decompressor> D = Decompressor::create(
          Name, Data, O.isLittleEndian(), O.getBytesInAddress() == 8);
      if (!D) {
        fail(Section, createStringError(InSection.Location + ": " +
                                        toString(D.takeError())));
        Into.Children.push_back(std::move(Section));
        continue;
      }
      std::unique_ptr<WritableMemoryBuffer> Inflated =
          WritableMemoryBuffer::getNewUninitMemBuffer(D->getDecompressedSize());
      if (!Inflated) {
        fail(Section, createStringError(InSection.Location +
                                        ": cannot allocate the inflated "
                                        "section"));
        Into.Children.push_back(std::move(Section));
        continue;
      }
      MutableArrayRef<uint8_t> Out(
          reinterpret_cast<uint8_t *>(Inflated->getBufferStart()),
          Inflated->getBufferSize());
      if (Error E = D->decompress(Out)) {
        fail(Section, createStringError(InSection.Location + ": " +
                                        toString(std::move(E))));
        Into.Children.push_back(std::move(Section));
        continue;
      }
      Data = toStringRef(Out);
      Section.InflatedSize = Data.size();
      Buffers.push_back(std::move(Inflated));
    }

    if (IsBundleEntry) {
      // An entry of an object bundle: the section is the payload.
      BundleEntry Entry{Name.drop_front(BundleMagic.size()), Data};
      Context InBundle = InSection;
      InBundle.Location = Ctx.Location;
      walkBundleEntries(Entry, /*Base=*/{}, InBundle, ObjectBundle);
      continue;
    }
    walkSequence(Data, InSection, Section);
    Into.Children.push_back(std::move(Section));
  }
  if (!ObjectBundle.Children.empty()) {
    ObjectBundle.Name = BundleMagic.str();
    ObjectBundle.Format = "object bundle";
    Into.Children.push_back(std::move(ObjectBundle));
  }
  Binaries.push_back(std::move(*Obj));
}

} // namespace offload

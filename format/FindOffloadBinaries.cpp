//===- format/FindOffloadBinaries.cpp - OffloadBinaries in any file -------===//

#include "format/FindOffloadBinaries.h"
#include "format/ArchiveMembers.h"
#include "format/CheckedArchive.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/LLVMBitCodes.h"
#include "llvm/Bitstream/BitstreamReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/Decompressor.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"

#include <optional>

using namespace llvm;
using namespace llvm::object;

namespace offload {

std::string OffloadOrigin::describe() const {
  std::string S = Member.empty() ? File : File + "(" + Member + ")";
  if (!Section.empty())
    S += ":" + Section;
  return S + "+0x" + utohexstr(Offset);
}

bool isOffloadingSection(const SectionRef &Sec, const ObjectFile &Obj,
                         StringRef Name) {
  if (Obj.isELF()) {
    ELFSectionRef ELFSec(Sec);
    if (ELFSec.getType() == ELF::SHT_NOBITS)
      return false;
    if (ELFSec.getType() == ELF::SHT_LLVM_OFFLOADING)
      return true;
  }
  return Name.starts_with(".llvm.offloading");
}

namespace {

/// "file" or "lib.a(member)": the name error messages start with.
std::string objectName(const OffloadOrigin &Where) {
  return Where.Member.empty() ? Where.File
                              : Where.File + "(" + Where.Member + ")";
}

Error withContext(const OffloadOrigin &Where, Error E) {
  return createStringError(inconvertibleErrorCode(),
                           objectName(Where) + ": " + toString(std::move(E)));
}

} // namespace

// LLVM 22's bitcode reader sizes an attribute list by the index an
// attribute group record gives, before anything checks it: an index of
// 0xFF7FFFFF asks for ~34 GB and aborts the process ("LLVM ERROR: out of
// memory"). This walks the module's attribute group records (only them;
// every other block is skipped unread) and refuses an index no real module
// can have: a parameter index needs a function type with that many
// parameters, each at least one bit of the file. Anything else this walk
// cannot read is left for the bitcode reader to report.
Error checkAttributeGroupIndices(MemoryBufferRef Buffer) {
  const unsigned char *Begin = Buffer.getBuffer().bytes_begin();
  const unsigned char *End = Buffer.getBuffer().bytes_end();
  if (isBitcodeWrapper(Begin, End) &&
      SkipBitcodeWrapperHeader(Begin, End, /*VerifyBufferSize=*/true))
    return Error::success();
  BitstreamCursor Cursor(ArrayRef<uint8_t>(Begin, End));
  Expected<SimpleBitstreamCursor::word_t> Magic = Cursor.Read(32);
  if (!Magic) {
    consumeError(Magic.takeError());
    return Error::success();
  }
  const uint64_t MaxIndex = uint64_t(End - Begin) * 8;
  std::optional<BitstreamBlockInfo> BlockInfo;
  SmallVector<uint64_t, 64> Record;
  // Top level, then the module block, then an attribute group block.
  unsigned Depth = 0;
  while (!Cursor.AtEndOfStream()) {
    Expected<BitstreamEntry> Entry = Cursor.advance();
    if (!Entry) {
      consumeError(Entry.takeError());
      return Error::success();
    }
    switch (Entry->Kind) {
    case BitstreamEntry::Error:
      return Error::success();
    case BitstreamEntry::EndBlock:
      if (Depth == 0)
        return Error::success();
      --Depth;
      continue;
    case BitstreamEntry::SubBlock: {
      Error E = Error::success();
      if (Entry->ID == bitc::BLOCKINFO_BLOCK_ID) {
        Expected<std::optional<BitstreamBlockInfo>> Info =
            Cursor.ReadBlockInfoBlock();
        if (!Info || !*Info) {
          if (!Info)
            consumeError(Info.takeError());
          return Error::success();
        }
        BlockInfo = std::move(**Info);
        Cursor.setBlockInfo(&*BlockInfo);
      } else if ((Depth == 0 && Entry->ID == bitc::MODULE_BLOCK_ID) ||
                 (Depth == 1 && Entry->ID == bitc::PARAMATTR_GROUP_BLOCK_ID)) {
        E = Cursor.EnterSubBlock(Entry->ID);
        ++Depth;
      } else {
        E = Cursor.SkipBlock();
      }
      if (E) {
        consumeError(std::move(E));
        return Error::success();
      }
      continue;
    }
    case BitstreamEntry::Record: {
      Record.clear();
      Expected<unsigned> Code = Cursor.readRecord(Entry->ID, Record);
      if (!Code) {
        consumeError(Code.takeError());
        return Error::success();
      }
      // [group id, index, attributes...]; the index of the function's own
      // attributes is ~0U.
      if (Depth == 2 && *Code == bitc::PARAMATTR_GRP_CODE_ENTRY &&
          Record.size() >= 2 && Record[1] != ~0U && Record[1] > MaxIndex)
        return createStringError(
            inconvertibleErrorCode(),
            "invalid bitcode: attribute group " + Twine(Record[0]) +
                " is for parameter index " + Twine(Record[1]) +
                ", more than a " + Twine(End - Begin) +
                "-byte file can declare");
      continue;
    }
    }
  }
  return Error::success();
}

Error OffloadBinaryFinder::addFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Buffer.getError())
    return createStringError(EC, "%s: cannot read: %s", Path.str().c_str(),
                             EC.message().c_str());
  MemoryBufferRef Ref = **Buffer;
  Files.push_back(std::move(*Buffer));
  // A thin archive inside may name this very file.
  sys::fs::UniqueID ID;
  bool Known = Path != "-" && !sys::fs::getUniqueID(Path, ID);
  if (Known)
    OpenFiles.push_back(ID);
  scope_exit Pop([&] {
    if (Known)
      OpenFiles.pop_back();
  });
  return addBuffer(Ref, Path);
}

Error OffloadBinaryFinder::addBuffer(MemoryBufferRef Buffer, StringRef Path) {
  OffloadOrigin Where;
  Where.File = Path.str();
  return scan(Buffer, Where);
}

Error OffloadBinaryFinder::scan(MemoryBufferRef Buffer,
                                const OffloadOrigin &Where) {
  switch (identify_magic(Buffer.getBuffer())) {
  case file_magic::elf_relocatable:
  case file_magic::elf_executable:
  case file_magic::elf_shared_object:
  case file_magic::coff_object:
    return scanObject(Buffer, Where);
  case file_magic::archive:
    return scanArchive(Buffer, Where);
  case file_magic::bitcode:
    return scanBitcode(Buffer, Where);
  case file_magic::offload_binary:
    return scanBinaries(Buffer.getBuffer(), 0, Where);
  default:
    return Error::success();
  }
}

Error OffloadBinaryFinder::scanBinaries(StringRef Data, uint64_t BaseOffset,
                                        const OffloadOrigin &Where) {
  std::string Name = objectName(Where);
  if (!Where.Section.empty())
    Name += ":" + Where.Section;
  Expected<std::vector<OffloadBinary>> Binaries =
      readOffloadBinaries(Data, Store, Name, BaseOffset, Mode);
  if (!Binaries)
    return Binaries.takeError();
  for (OffloadBinary &Binary : *Binaries) {
    OffloadOrigin Origin = Where;
    Origin.Offset = BaseOffset + Binary.Offset;
    Found.push_back({std::move(Binary), std::move(Origin)});
  }
  return Error::success();
}

Error OffloadBinaryFinder::scanObject(MemoryBufferRef Buffer,
                                      const OffloadOrigin &Where) {
  Expected<std::unique_ptr<ObjectFile>> Obj =
      ObjectFile::createObjectFile(Buffer);
  if (!Obj)
    return withContext(Where, Obj.takeError());
  for (const SectionRef &Sec : (*Obj)->sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (!Name)
      return withContext(Where, Name.takeError());
    if (!isOffloadingSection(Sec, **Obj, *Name))
      continue;
    Expected<StringRef> Contents = Sec.getContents();
    if (!Contents)
      return withContext(Where, Contents.takeError());
    OffloadOrigin InSection = Where;
    InSection.Section = Name->str();
    uint64_t FileOffset = Contents->data() - Buffer.getBufferStart();

    // `ld --compress-sections` may have compressed it; offsets then refer to
    // the inflated section.
    if (Sec.isCompressed()) {
      Expected<Decompressor> D =
          Decompressor::create(*Name, *Contents, (*Obj)->isLittleEndian(),
                               (*Obj)->getBytesInAddress() == 8);
      if (!D)
        return withContext(InSection, D.takeError());
      // The header's size decides the allocation: neither zlib (about 1032
      // to 1) nor zstd (under 2^17 to 1) inflates more, so a larger claim is
      // malformed (found by fuzz-find-binaries: 21 GB from 1 KB).
      if (D->getDecompressedSize() / (uint64_t(1) << 17) > Contents->size())
        return withContext(
            InSection,
            createStringError(
                inconvertibleErrorCode(),
                "compressed section '" + *Name + "' claims " +
                    Twine(D->getDecompressedSize()) + " bytes, more than " +
                    Twine(Contents->size()) + " compressed bytes can hold"));
      std::unique_ptr<WritableMemoryBuffer> Inflated =
          WritableMemoryBuffer::getNewUninitMemBuffer(D->getDecompressedSize(),
                                                      *Name + " (inflated)");
      if (!Inflated)
        return withContext(InSection,
                           createStringError(inconvertibleErrorCode(),
                                             "cannot allocate the inflated "
                                             "section"));
      MutableArrayRef<uint8_t> Out(
          reinterpret_cast<uint8_t *>(Inflated->getBufferStart()),
          Inflated->getBufferSize());
      if (Error E = D->decompress(Out))
        return withContext(InSection, std::move(E));
      InSection.Section += " (inflated)";
      if (Error E = scanBinaries(Store.keep(std::move(Inflated)), 0, InSection))
        return E;
      continue;
    }
    if (Error E = scanBinaries(*Contents, FileOffset, InSection))
      return E;
  }
  return Error::success();
}

Error OffloadBinaryFinder::scanArchive(MemoryBufferRef Buffer,
                                       const OffloadOrigin &Where) {
  // Each level recurses; a deep enough nest would overflow the stack.
  if (ArchiveDepth == MaxArchiveDepth)
    return withContext(Where,
                       createStringError(inconvertibleErrorCode(),
                                         "archives nested more than " +
                                             Twine(MaxArchiveDepth) + " deep"));
  ++ArchiveDepth;
  scope_exit Leave([&] { --ArchiveDepth; });
  // The bounds of every member header, and a thin archive's members are
  // regular files (a FIFO would wait forever, /dev/zero fill the memory).
  Expected<std::unique_ptr<Archive>> Lib = createCheckedArchive(Buffer);
  if (!Lib)
    return withContext(Where, Lib.takeError());
  // A thin archive's members are files of their own; the archive keeps
  // their buffers, and so must stay alive as long as our views, those found
  // before an error in a later member included.
  const Archive &TheArchive = **Lib;
  Archives.push_back(std::move(*Lib));
  // The walk's errors name the archive, as withContext() does.
  return forEachArchiveMember(
      TheArchive, objectName(Where), [&](const ArchiveMember &Member) -> Error {
        // A thin archive's member is a file, which must not be one that
        // holds this archive: the scan would never end.
        const Archive::Child &Child = Member.child();
        Expected<bool> Thin = isThinMember(Child);
        if (!Thin)
          return withContext(Where, Thin.takeError());
        std::optional<sys::fs::UniqueID> MemberFile;
        if (*Thin) {
          Expected<std::string> Path = Child.getFullName();
          if (!Path)
            return withContext(Where, Path.takeError());
          sys::fs::UniqueID ID;
          if (!sys::fs::getUniqueID(*Path, ID)) {
            if (is_contained(OpenFiles, ID))
              return withContext(
                  Where,
                  createStringError(
                      inconvertibleErrorCode(),
                      "thin archive member '" + Member.name() +
                          "' (header at offset " +
                          Twine(Child.getChildOffset()) + "): '" + *Path +
                          "' is this archive or one that includes it"));
            MemberFile = ID;
          }
        }
        // Contents that cannot be read: the error names the archive, as the
        // finder's always have (LLVM's own names a thin member's file).
        Expected<MemoryBufferRef> Data = Child.getMemoryBufferRef();
        if (!Data)
          return withContext(Where, Data.takeError());
        OffloadOrigin InMember = Where;
        InMember.Member = Where.Member.empty()
                              ? Member.name().str()
                              : Where.Member + ")(" + Member.name().str();
        if (MemberFile)
          OpenFiles.push_back(*MemberFile);
        Error E = scan(*Data, InMember);
        if (MemberFile)
          OpenFiles.pop_back();
        return E;
      });
}

Error OffloadBinaryFinder::scanBitcode(MemoryBufferRef Buffer,
                                       const OffloadOrigin &Where) {
  // Only the module-level records are needed: globals, their initializers
  // and named metadata. Function bodies stay unread.
  if (Error E = checkAttributeGroupIndices(Buffer))
    return withContext(Where, std::move(E));
  LLVMContext Context;
  Expected<std::unique_ptr<Module>> M = getLazyBitcodeModule(Buffer, Context);
  if (!M)
    return withContext(Where, M.takeError());
  NamedMDNode *Embedded = (*M)->getNamedMetadata("llvm.embedded.objects");
  if (!Embedded)
    return Error::success();
  for (const MDNode *Op : Embedded->operands()) {
    if (Op->getNumOperands() < 2)
      continue;
    auto *SectionName = dyn_cast<MDString>(Op->getOperand(1));
    if (!SectionName || SectionName->getString() != ".llvm.offloading")
      continue;
    auto *GV = mdconst::dyn_extract_or_null<GlobalVariable>(Op->getOperand(0));
    if (!GV || !GV->hasInitializer())
      continue;
    auto *Data = dyn_cast<ConstantDataSequential>(GV->getInitializer());
    if (!Data)
      continue;
    // The bytes belong to the context that dies with this function: copy.
    OffloadOrigin InGlobal = Where;
    InGlobal.Section = "@" + GV->getName().str();
    StringRef Copy = Store.keep(MemoryBuffer::getMemBufferCopy(
        Data->getRawDataValues(), InGlobal.Section));
    if (Error E = scanBinaries(Copy, 0, InGlobal))
      return E;
  }
  return Error::success();
}

} // namespace offload

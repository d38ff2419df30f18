//===- format/FindOffloadBinaries.cpp - OffloadBinaries in any file -------===//

#include "format/FindOffloadBinaries.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/Decompressor.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"

using namespace llvm;
using namespace llvm::object;

namespace offload {

std::string OffloadOrigin::describe() const {
  std::string S = Member.empty() ? File : File + "(" + Member + ")";
  if (!Section.empty())
    S += ":" + Section;
  return S + "+0x" + utohexstr(Offset);
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

} // namespace

Error OffloadBinaryFinder::addFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Buffer.getError())
    return createStringError(EC, "%s: cannot read: %s", Path.str().c_str(),
                             EC.message().c_str());
  MemoryBufferRef Ref = **Buffer;
  Files.push_back(std::move(*Buffer));
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
      readOffloadBinaries(Data, Store, Name, BaseOffset);
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
      std::unique_ptr<WritableMemoryBuffer> Inflated =
          WritableMemoryBuffer::getNewUninitMemBuffer(
              D->getDecompressedSize(), *Name + " (inflated)");
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
  Expected<std::unique_ptr<Archive>> Lib = Archive::create(Buffer);
  if (!Lib)
    return withContext(Where, Lib.takeError());
  // A thin archive's members are files of their own; the archive keeps
  // their buffers, and so must stay alive as long as our views, those found
  // before an error in a later member included.
  const Archive &TheArchive = **Lib;
  Archives.push_back(std::move(*Lib));
  // The iteration's error must be checked on every way out of the loop.
  Error Err = Error::success();
  auto Fail = [&](Error E) {
    consumeError(std::move(Err));
    return E;
  };
  for (const Archive::Child &Child : TheArchive.children(Err)) {
    Expected<StringRef> MemberName = Child.getName();
    if (!MemberName)
      return Fail(withContext(Where, MemberName.takeError()));
    Expected<MemoryBufferRef> Member = Child.getMemoryBufferRef();
    if (!Member)
      return Fail(withContext(Where, Member.takeError()));
    OffloadOrigin InMember = Where;
    InMember.Member = Where.Member.empty()
                          ? MemberName->str()
                          : Where.Member + ")(" + MemberName->str();
    if (Error E = scan(*Member, InMember))
      return Fail(std::move(E));
  }
  if (Err)
    return withContext(Where, std::move(Err));
  return Error::success();
}

Error OffloadBinaryFinder::scanBitcode(MemoryBufferRef Buffer,
                                       const OffloadOrigin &Where) {
  // Only the module-level records are needed: globals, their initializers
  // and named metadata. Function bodies stay unread.
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

//===- lld-plugin/DeviceInputs.cpp - Device code in a link's inputs -------===//

#include "lld-plugin/DeviceInputs.h"

#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/ELFObjectFile.h"

using namespace llvm;
using namespace llvm::object;

namespace offload {

static Error inputError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
}

/// Where a relocatable link (--offload-relocatable=link) keeps the images it
/// has linked and registered.
static constexpr StringRef RelocatableImagesSection =
    ".llvm.offloading.relocatable";

/// Runtime entry points whose use marks an object that registers images.
static bool isRegistrationCall(StringRef Name) {
  return Name == "__tgt_register_lib" || Name == "__cudaRegisterFatBinary" ||
         Name == "__hipRegisterFatBinary";
}

Error DeviceInputs::scanTracedInputs(ArrayRef<std::string> Traced) {
  for (StringRef Line : Traced) {
    // "archive(member)"; a plain path may contain parentheses too, so only a
    // line ending in ')' whose archive part is a file is taken for a member.
    size_t Open = Line.find('(');
    if (Line.ends_with(")") && Open != StringRef::npos) {
      StringRef Archive = Line.take_front(Open);
      StringRef Member = Line.drop_front(Open + 1).drop_back();
      Expected<MemoryBufferRef> Buffer = archiveMember(Archive, Member);
      if (!Buffer)
        return Buffer.takeError();
      if (Error E = scanInput(*Buffer, Line))
        return E;
      continue;
    }
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
        Line, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (std::error_code EC = Buffer.getError())
      return inputError(Line, "cannot read: " + EC.message());
    MemoryBufferRef Ref = **Buffer;
    Files.push_back(std::move(*Buffer));
    if (Error E = scanInput(Ref, Line))
      return E;
  }
  return Error::success();
}

Expected<MemoryBufferRef> DeviceInputs::archiveMember(StringRef ArchivePath,
                                                      StringRef Member) {
  auto It = Archives.find(ArchivePath);
  if (It == Archives.end()) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
        ArchivePath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (std::error_code EC = Buffer.getError())
      return inputError(ArchivePath, "cannot read: " + EC.message());
    Expected<std::unique_ptr<Archive>> Lib = Archive::create(**Buffer);
    if (!Lib)
      return inputError(ArchivePath, toString(Lib.takeError()));
    Files.push_back(std::move(*Buffer));
    It = Archives.try_emplace(ArchivePath, std::move(*Lib)).first;
  }
  // LLD traces each extracted member once, in extraction order; members of
  // the same name are told apart by how many were taken before.
  std::string Key = (ArchivePath + "(" + Member + ")").str();
  unsigned Skip = MembersTaken[Key]++;
  Error Err = Error::success();
  for (const Archive::Child &Child : It->second->children(Err)) {
    Expected<StringRef> Name = Child.getName();
    if (!Name)
      return inputError(ArchivePath, toString(Name.takeError()));
    if (*Name != Member || Skip-- != 0)
      continue;
    Expected<MemoryBufferRef> Buffer = Child.getMemoryBufferRef();
    if (!Buffer)
      return inputError(Key, toString(Buffer.takeError()));
    if (Err)
      consumeError(std::move(Err));
    return *Buffer;
  }
  if (Err)
    return inputError(ArchivePath, toString(std::move(Err)));
  return inputError(Key, "member not found in the archive LLD loaded it from");
}

Error DeviceInputs::scanInput(MemoryBufferRef Buffer, StringRef Name) {
  file_magic Magic = identify_magic(Buffer.getBuffer());
  // Shared libraries register their own images; linker scripts and other
  // files hold none.
  if (Magic != file_magic::elf_relocatable && Magic != file_magic::bitcode)
    return Error::success();

  bool CallsRegistration = false;
  if (Magic == file_magic::elf_relocatable) {
    Expected<std::unique_ptr<ObjectFile>> Obj =
        ObjectFile::createObjectFile(Buffer);
    if (!Obj)
      return inputError(Name, toString(Obj.takeError()));
    for (const SymbolRef &Sym : (*Obj)->symbols()) {
      Expected<uint32_t> Flags = Sym.getFlags();
      Expected<StringRef> SymName = Sym.getName();
      if (!Flags || !SymName) {
        consumeError(Flags.takeError());
        consumeError(SymName.takeError());
        continue;
      }
      if ((*Flags & SymbolRef::SF_Undefined) && isRegistrationCall(*SymName))
        CallsRegistration = true;
    }
    for (const SectionRef &Sec : (*Obj)->sections()) {
      Expected<StringRef> SecName = Sec.getName();
      if (!SecName)
        return inputError(Name, toString(SecName.takeError()));
      if (SecName->starts_with("__CLANG_OFFLOAD_BUNDLE__"))
        return inputError(Name, "holds an offload bundle (section " +
                                    *SecName +
                                    "); linking bundled device code is not "
                                    "supported yet");
    }
  }

  size_t Before = Finder.binaries().size();
  if (Error E = Finder.addBuffer(Buffer, Name))
    return E;
  for (const FoundOffloadBinary &Found : Finder.binaries().drop_front(Before)) {
    // Images a relocatable link already linked and registered.
    if (Found.Origin.Section == RelocatableImagesSection)
      continue;
    // An object that embeds images and registers them (clang-linker-wrapper's
    // or offload-wrapper's output) means this link's images are taken care
    // of: we must not register them a second time.
    if (CallsRegistration) {
      if (!RegisteredBy)
        RegisteredBy = Name.str();
      continue;
    }
    for (const OffloadImage &Image : Found.Binary.Images)
      Images.push_back({&Image, Name.str(), Found.Origin.describe()});
  }
  return Error::success();
}

} // namespace offload

//===- lld-plugin/RegisterImages.cpp - The registration object ------------===//

#include "lld-plugin/RegisterImages.h"

#include "format/OffloadBinaryWriter.h"
#include "wrapper-ir/Emit.h"
#include "wrapper-ir/Registration.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace offload {

Expected<std::string>
writeRegistrationObject(ArrayRef<PreparedDeviceLink> Links,
                        const Triple &HostTriple, StringRef EntriesSection,
                        bool Relocatable, const WorkDir &Dir) {
  // The OpenMP runtime takes each linked image with its metadata, as an
  // OffloadBinary of its own.
  std::vector<std::unique_ptr<MemoryBuffer>> Linked;
  std::vector<std::string> Packed;
  for (const PreparedDeviceLink &Link : Links) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Image =
        MemoryBuffer::getFile(Link.Output, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (std::error_code EC = Image.getError())
      return createStringError(EC, "cannot read the device link output '%s': %s",
                               Link.Output.c_str(), EC.message().c_str());
    ImageToWrite ToWrite;
    ToWrite.TheImageKind = ImageKind::Object;
    ToWrite.TheOffloadKind = Link.Job->Kind;
    ToWrite.Strings = {{"triple", Link.Job->TargetTriple.str()},
                       {"arch", Link.Job->Arch}};
    ToWrite.Image = (*Image)->getBuffer();
    std::string Binary;
    raw_string_ostream OS(Binary);
    if (Error E = writeOffloadBinaries(OS, {ToWrite}, WriteOptions()))
      return std::move(E);
    Packed.push_back(std::move(Binary));
    Linked.push_back(std::move(*Image));
  }

  std::vector<ImageToRegister> Images;
  ByteStore Store;
  for (const std::string &Binary : Packed) {
    Expected<OffloadBinary> Read = readOffloadBinary(Binary, 0, Store);
    if (!Read)
      return Read.takeError();
    const OffloadImage &Image = Read->Images.front();
    ImageToRegister R;
    R.Data = Binary;
    R.ImageBegin = Image.ImageOffset;
    R.ImageEnd = Image.ImageOffset + Image.Image.size();
    R.Arch = Image.getArch().str();
    Images.push_back(std::move(R));
  }

  RegistrationOptions Options;
  Options.Relocatable = Relocatable;
  Options.EntriesSection = EntriesSection.str();
  LLVMContext Context;
  Expected<std::unique_ptr<Module>> M =
      buildRegistrationModule(Context, HostTriple, Images, Options);
  if (!M)
    return M.takeError();
  if (Error E = setTargetDataLayout(**M))
    return std::move(E);
  Expected<SmallString<0>> Object = emitModule(**M, EmitOptions());
  if (!Object)
    return Object.takeError();
  return Dir.write("registration.o", *Object);
}

Expected<RelocatableRegistration>
planRelocatableRegistration(ArrayRef<PreparedDeviceLink> Links) {
  uint64_t Hash = 0;
  for (const PreparedDeviceLink &Link : Links) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Image =
        MemoryBuffer::getFile(Link.Output, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (std::error_code EC = Image.getError())
      return createStringError(EC, "cannot read '%s': %s",
                               Link.Output.c_str(), EC.message().c_str());
    Hash = xxh3_64bits((*Image)->getBuffer()) ^ (Hash * 31);
  }
  RelocatableRegistration R;
  R.EntriesSection = "llvm_offload_entries_" + utohexstr(Hash, true, 16);
  R.Script = "SECTIONS {\n  " + R.EntriesSection +
             " : { *(llvm_offload_entries " + R.EntriesSection +
             ") }\n  /DISCARD/ : { *(.llvm.offloading) }\n}\n";
  return R;
}

} // namespace offload

//===- format/NvccModule.cpp - nvcc's relocatable device code -------------===//

#include "format/NvccModule.h"
#include "format/FormatError.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace llvm::object;

namespace offload {

std::string nvlinkModuleIDOfPath(StringRef Path) {
  std::string ID = Path.str();
  for (char &C : ID)
    C = isAlnum(C) ? C : '_';
  return ID;
}

bool isCudaDeviceRuntime(StringRef Path) {
  return sys::path::filename(Path) == "libcudadevrt.a";
}

Expected<std::vector<CudaFatbin>> readCudaFatbinSequence(StringRef Section,
                                                         StringRef Name) {
  std::vector<CudaFatbin> Fatbins;
  for (uint64_t At = 0; At < Section.size();) {
    StringRef Rest = Section.drop_front(At);
    // Padding up to the next fat binary, or to the end.
    if (Rest.front() == '\0') {
      uint64_t Next = alignTo(At + 1, 8);
      if (Section.substr(At, Next - At).find_first_not_of('\0') !=
          StringRef::npos)
        return formatError(Name, At, "bytes between fat binaries");
      At = Next;
      continue;
    }
    // Its errors' offsets are from its start, where it is named.
    Expected<CudaFatbin> Fatbin =
        readCudaFatbin(Rest, At ? (Name + "+0x" + utohexstr(At)).str() : Name);
    if (!Fatbin)
      return Fatbin.takeError();
    // Entry offsets from the start of the section.
    for (CudaFatbinEntry &Entry : Fatbin->Entries) {
      Entry.Offset += At;
      Entry.PayloadOffset += At;
    }
    At += Fatbin->Data.size();
    Fatbins.push_back(std::move(*Fatbin));
  }
  return std::move(Fatbins);
}

Expected<std::optional<NvccModuleCode>>
readNvccModuleCode(const ObjectFile &Obj, StringRef Name) {
  std::optional<StringRef> Code, IDs;
  for (const SectionRef &Sec : Obj.sections()) {
    Expected<StringRef> SecName = Sec.getName();
    if (!SecName)
      return createStringError(Name + ": " + toString(SecName.takeError()));
    if (*SecName != NvccRelocatableSection && *SecName != NvccModuleIDSection)
      continue;
    Expected<StringRef> Contents = Sec.getContents();
    if (!Contents)
      return createStringError(Name + ":" + *SecName + ": " +
                               toString(Contents.takeError()));
    (*SecName == NvccRelocatableSection ? Code : IDs) = *Contents;
  }
  if (!Code)
    return std::nullopt;
  std::string Where = (Name + ":" + NvccRelocatableSection).str();
  NvccModuleCode Module;
  for (StringRef Rest = IDs.value_or(""); !Rest.empty();) {
    auto [ID, After] = Rest.split('\0');
    Rest = After;
    // "def <ID>": a unit an nvcc -dlink output (merged in by ld -r)
    // registers, not one of this object's.
    if (ID.empty() || ID.starts_with("def "))
      continue;
    // The unit's host code calls __cudaRegisterLinkedBinary<ID>: nvcc's IDs
    // start with '_' (a name of C's).
    if (!ID.starts_with("_") ||
        llvm::any_of(ID, [](char C) { return !isAlnum(C) && C != '_'; }))
      return formatError((Name + ":" + NvccModuleIDSection).str(),
                         ID.data() - IDs->data(),
                         "'" + ID + "' is not an nvcc module ID");
    Module.ModuleIDs.push_back(ID.str());
  }
  if (Module.ModuleIDs.empty())
    return createStringError(Where +
                             ": relocatable device code without a "
                             "module ID (no " +
                             NvccModuleIDSection + " section)");
  Expected<std::vector<CudaFatbin>> Fatbins =
      readCudaFatbinSequence(*Code, Where);
  if (!Fatbins)
    return Fatbins.takeError();
  if (Fatbins->size() != Module.ModuleIDs.size())
    return createStringError(Where + ": " + Twine(Fatbins->size()) +
                             " fat binaries for " +
                             Twine(Module.ModuleIDs.size()) +
                             " module IDs in " + NvccModuleIDSection);
  for (const CudaFatbin &Fatbin : *Fatbins) {
    Module.Fatbins.push_back(Fatbin.Data);
    for (const CudaFatbinEntry &Entry : Fatbin.Entries) {
      bool IsPTX = Entry.Kind == uint16_t(CudaFatbinEntryKind::PTX);
      Module.Images.push_back(
          {"sm_" + std::to_string(Entry.Arch), IsPTX, Entry});
    }
  }
  return std::move(Module);
}

} // namespace offload

//===- lld-plugin/HostLinkInfo.cpp - What device links take of the host ---===//

#include "lld-plugin/HostLinkInfo.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"

using namespace llvm;

namespace offload {

/// The triple an ld -m emulation links for.
static Triple tripleForEmulation(StringRef Emulation) {
  StringRef Arch = StringSwitch<StringRef>(Emulation)
                       .Case("elf_x86_64", "x86_64")
                       .Case("elf_i386", "i386")
                       .Cases({"aarch64linux", "aarch64elf"}, "aarch64")
                       .Cases({"elf64lppc", "elf64lppc_fbsd"}, "powerpc64le")
                       .Case("elf64ppc", "powerpc64")
                       .Case("elf64lriscv", "riscv64")
                       .Case("elf64_s390", "s390x")
                       .Case("elf64loongarch", "loongarch64")
                       .Default("");
  if (Arch.empty())
    return Triple();
  return Triple(Arch, "unknown", "linux", "gnu");
}

HostLinkInfo getHostLinkInfo(const LLDCommandLine &LLD,
                             const LoadedInputs &Loaded) {
  StringSet<> LoadedFiles;
  for (const std::string &F : Loaded.Files)
    LoadedFiles.insert(F);
  for (const std::string &F : Loaded.Archives)
    LoadedFiles.insert(F);
  HostLinkInfo Info;
  Info.HostTriple = Triple(sys::getDefaultTargetTriple());
  for (const opt::Arg *A : LLD.list()) {
    StringRef Name = LLDCommandLine::optionName(*A);
    bool IsInput = A->getOption().getKind() == opt::Option::InputClass;
    StringRef Arg = A->getNumValues() ? A->getValue() : "";
    if (Name == "m") {
      Triple T = tripleForEmulation(Arg);
      if (T.getArch() != Triple::UnknownArch)
        Info.HostTriple = T;
    } else if (Name == "dynamic-linker") {
      Info.DynamicLinker = Arg.str();
    } else if (Name == "L") {
      Info.SearchArgs.push_back(DeviceLinkArg::searchDir(Arg));
    } else if (Name == "sysroot") {
      Info.SearchArgs.push_back({DeviceLinkArg::Role::Sysroot, Arg.str()});
    } else if (Name == "l") {
      Info.Libraries.push_back(DeviceLinkArg::library(Arg));
    } else if (Name == "whole-archive") {
      Info.Libraries.push_back({DeviceLinkArg::Role::WholeArchive, ""});
    } else if (Name == "no-whole-archive") {
      Info.Libraries.push_back({DeviceLinkArg::Role::NoWholeArchive, ""});
    } else if (Name == "rpath") {
      Info.Libraries.push_back(DeviceLinkArg::option(("-rpath=" + Arg).str()));
    } else if (IsInput) {
      // Libraries named by path (CMake does so; sanitizer runtimes too):
      // archives and shared objects, as upstream's CPU device link takes.
      // Only what the host link loads: a separate option value (an output,
      // a script) is not an input.
      file_magic Magic;
      if (LoadedFiles.contains(Arg) && !identify_magic(Arg, Magic) &&
          (Magic == file_magic::archive ||
           Magic == file_magic::elf_shared_object)) {
        Info.Libraries.push_back(DeviceLinkArg::input(Arg));
        continue;
      }
      StringRef Name = sys::path::filename(Arg);
      // A shared object needs the position-independent crtbeginS/crtendS,
      // wherever the host link used crtbegin.o or crtbeginT.o.
      auto Shared = [&](StringRef Base) {
        SmallString<128> P(sys::path::parent_path(Arg));
        sys::path::append(P, Base);
        return P.str().str();
      };
      if (Name == "crti.o")
        Info.StartFiles.insert(Info.StartFiles.begin(), Arg.str());
      else if (Name.starts_with("crtbegin") && Name.ends_with(".o"))
        Info.StartFiles.push_back(Shared("crtbeginS.o"));
      else if (Name.starts_with("crtend") && Name.ends_with(".o"))
        Info.EndFiles.insert(Info.EndFiles.begin(), Shared("crtendS.o"));
      else if (Name == "crtn.o")
        Info.EndFiles.push_back(Arg.str());
    }
  }
  return Info;
}

} // namespace offload

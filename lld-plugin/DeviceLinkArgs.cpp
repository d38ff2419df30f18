//===- lld-plugin/DeviceLinkArgs.cpp - A device link's arguments ----------===//

#include "lld-plugin/DeviceLinkArgs.h"

using namespace llvm;

namespace offload {

void DeviceLinkArg::spell(std::vector<std::string> &Args) const {
  switch (TheRole) {
  case Role::Option:
  case Role::Input:
    Args.push_back(Value);
    return;
  case Role::Library:
    Args.push_back("-l" + Value);
    return;
  case Role::SearchDir:
    Args.push_back("-L" + Value);
    return;
  case Role::Sysroot:
    Args.push_back("--sysroot=" + Value);
    return;
  case Role::WholeArchive:
    Args.push_back("--whole-archive");
    return;
  case Role::NoWholeArchive:
    Args.push_back("--no-whole-archive");
    return;
  case Role::Output:
    Args.push_back("-o");
    Args.push_back(Value);
    return;
  }
}

std::vector<std::string> spell(ArrayRef<DeviceLinkArg> Planned) {
  std::vector<std::string> Args;
  for (const DeviceLinkArg &A : Planned)
    A.spell(Args);
  return Args;
}

SearchPaths searchPathsOf(ArrayRef<DeviceLinkArg> Planned) {
  SearchPaths Paths;
  for (const DeviceLinkArg &A : Planned)
    if (A.TheRole == DeviceLinkArg::Role::SearchDir)
      Paths.Dirs.push_back(A.Value);
    else if (A.TheRole == DeviceLinkArg::Role::Sysroot)
      Paths.Sysroot = A.Value;
  return Paths;
}

} // namespace offload

//===- lld-plugin/HostLinkInfo.h - What device links take of the host link ===//
//
// What CPU device links borrow from the host link's command line: its
// triple (-m), search paths, C runtime files, dynamic linker and libraries,
// read from LLD's arguments (LLDCommandLine) and what the link loads.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_HOSTLINKINFO_H
#define LLD_OFFLOAD_LLDPLUGIN_HOSTLINKINFO_H

#include "lld-plugin/DeviceLinkArgs.h"
#include "lld-plugin/LLDCommandLine.h"
#include "lld-plugin/RunLLD.h"

#include "llvm/TargetParser/Triple.h"

#include <string>
#include <vector>

namespace offload {

class LinkInputs;

/// What device links borrow from the host link's command line.
struct HostLinkInfo {
  llvm::Triple HostTriple;
  /// -L directories and --sysroot, in order.
  std::vector<DeviceLinkArg> SearchArgs;
  /// The C runtime objects around a shared object (crti.o, crtbeginS.o;
  /// crtendS.o, crtn.o), when the host link has them.
  std::vector<std::string> StartFiles, EndFiles;
  /// The host link's dynamic linker (-dynamic-linker), when it has one;
  /// given to CPU device links as an input when the file exists here.
  std::string DynamicLinker;
  /// The host link's libraries, in order, as upstream's CPU device link
  /// takes them: -l<name>, archives and shared objects named by path,
  /// --whole-archive/--no-whole-archive and -rpath.
  std::vector<DeviceLinkArg> Libraries;
  /// The host command line's inputs as found for it, when known: where its
  /// -l<name>s are, which CPU device links need not look for again.
  const LinkInputs *Named = nullptr;
  /// For nvlink beside nvcc's units, when the host link loads objects of
  /// its own (DeviceInputs::loadsObjectsBesideNvcc()): an empty host object,
  /// which stands for them as nvcc's link gives them to nvlink (an input
  /// without the units' host tables keeps nvlink from dropping kernels that
  /// no unit's host code names). Empty otherwise.
  std::string NvlinkHostObject;
};

/// Reads what device links need from the host link's arguments. \p Loaded
/// (what the link loads: from the command line, a probe or the host link's
/// trace) tells the libraries named by path from other
/// arguments that are not options: only files the host link loads count.
HostLinkInfo getHostLinkInfo(const LLDCommandLine &LLD,
                             const LoadedInputs &Loaded);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_HOSTLINKINFO_H

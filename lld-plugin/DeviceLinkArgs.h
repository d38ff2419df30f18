//===- lld-plugin/DeviceLinkArgs.h - A device link's arguments -*- C++ -*-===//
//
// A device link's command line as the plan makes it: each argument with
// what it is (a file read, a library searched for, a directory searched, the
// output, an option), so that what decides the link's bytes is known
// without reading its command line back: the cache key is made of the
// contents of what is read and of the options, never of where the files
// are (DeviceLinkCache.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICELINKARGS_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICELINKARGS_H

#include "lld-plugin/LLDCommandLine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace offload {

struct DeviceLinkArg {
  enum class Role {
    /// An option, taken as written: "-shared", "-plugin-opt=mcpu=gfx90a".
    Option,
    /// A file the link reads: an image, a device library, crti.o.
    Input,
    /// -l<name>: the file the search finds is read.
    Library,
    /// -L<dir>: where libraries are searched for.
    SearchDir,
    /// --sysroot=<dir>: what '=' in a search directory stands for.
    Sysroot,
    /// --whole-archive and --no-whole-archive: whether archives after it
    /// are taken whole.
    WholeArchive,
    NoWholeArchive,
    /// -o <file>.
    Output,
  };
  Role TheRole;
  /// The option, file, library name or directory.
  std::string Value;

  static DeviceLinkArg option(llvm::StringRef A) {
    return {Role::Option, A.str()};
  }
  static DeviceLinkArg input(llvm::StringRef Path) {
    return {Role::Input, Path.str()};
  }
  static DeviceLinkArg library(llvm::StringRef Name) {
    return {Role::Library, Name.str()};
  }
  static DeviceLinkArg searchDir(llvm::StringRef Dir) {
    return {Role::SearchDir, Dir.str()};
  }
  static DeviceLinkArg output(llvm::StringRef Path) {
    return {Role::Output, Path.str()};
  }

  /// Appends it as written on a command line to \p Args.
  void spell(std::vector<std::string> &Args) const;
};

/// \p Planned as a command line.
std::vector<std::string> spell(llvm::ArrayRef<DeviceLinkArg> Planned);

/// The search paths that \p Planned sets.
SearchPaths searchPathsOf(llvm::ArrayRef<DeviceLinkArg> Planned);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICELINKARGS_H

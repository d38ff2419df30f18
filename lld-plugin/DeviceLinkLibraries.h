//===- lld-plugin/DeviceLinkLibraries.h - A CPU device link's libraries -*-===//
//
// A CPU device link gets the host link's libraries, as upstream's does, so
// that device code may call what the host may. A large program names
// hundreds of static archives (LLVM's own: 210 of them), and LLD reads the
// symbol table of every member of each, for a device link that takes none:
// 100 ms of a 600 ms link. So a device link first runs without the static
// archives, tracing what it loads, and is run again with them when one of
// their members would have been taken: when the link fails (a symbol only
// they define), or when an archive defines a symbol that a file the link
// loaded leaves undefined, unless a file before the archive defines it (as
// LLD decides: a member is taken for a symbol still undefined or lazy when
// referenced).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICELINKLIBRARIES_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICELINKLIBRARIES_H

#include "lld-plugin/DeviceLinkArgs.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace offload {

class LinkInputs;

/// A CPU device link's libraries, the static archives set aside.
struct DeviceLinkLibraries {
  /// The arguments to link with: every library but the omitted archives.
  std::vector<DeviceLinkArg> Kept;
  /// Each library of the whole list, in order: the file LLD finds for it
  /// ("" if none), and whether it is left out.
  struct Library {
    std::string Path;
    bool Omitted = false;
  };
  std::vector<Library> Libraries;
  /// How many --trace lines the link prints before the libraries' (its
  /// objects and shared objects named before them), or 0 when unknown.
  size_t LeadingLines = 0;

  bool omitsAny() const {
    return llvm::any_of(Libraries, [](const Library &L) { return L.Omitted; });
  }
};

/// Splits the host link's \p Libraries (-l<name>, paths, --whole-archive,
/// -rpath=, as HostLinkInfo has them) into what a first device link takes
/// and the static archives it leaves out (not under --whole-archive).
/// -l<name> is found as LLD finds it in the -L<dir>s and --sysroot= of
/// \p SearchArgs, or taken from what \p Host found for the host link:
/// a large program's hundreds of libraries are not looked for twice.
DeviceLinkLibraries omitStaticArchives(llvm::ArrayRef<DeviceLinkArg> Libraries,
                                       llvm::ArrayRef<DeviceLinkArg> SearchArgs,
                                       const LinkInputs *Host = nullptr);

/// The archive at \p Path as far as its symbol table: its first member when
/// that is a GNU symbol table (read, not mapped), else the whole file.
/// Null if it cannot be read.
std::unique_ptr<llvm::MemoryBuffer>
readArchiveSymbolTable(llvm::StringRef Path);

/// True if LLD, given the omitted archives of \p Libs too, would have taken
/// a member of one, judging by the --trace output \p Trace of the link
/// without them and the archives' symbol tables. Whatever cannot be read
/// counts as needed.
bool omittedArchivesNeeded(llvm::StringRef Trace,
                           const DeviceLinkLibraries &Libs);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICELINKLIBRARIES_H

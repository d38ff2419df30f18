//===- lld-plugin/WorkDir.h - Where intermediate files live -----*- C++ -*-===//
//
// LLD reads its inputs from files, so device images and the registration
// object go to disk for the length of one link: into a private temporary
// directory removed at the end, or, with --offload-save-temps, into
// "<output>.offload-temps/" under names that do not change between runs.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_WORKDIR_H
#define LLD_OFFLOAD_LLDPLUGIN_WORKDIR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace offload {

/// A directory for one link's intermediate files.
class WorkDir {
public:
  /// A fresh directory: "<Output>.offload-temps" when \p Keep, else a unique
  /// temporary directory.
  static llvm::Expected<std::unique_ptr<WorkDir>> create(llvm::StringRef Output,
                                                         bool Keep);
  ~WorkDir();

  /// The path of the file \p Name in the directory.
  std::string path(llvm::StringRef Name) const;
  /// Writes \p Data to the file \p Name and returns its path.
  llvm::Expected<std::string> write(llvm::StringRef Name,
                                    llvm::StringRef Data) const;
  const std::string &dir() const { return Dir; }

private:
  WorkDir(std::string Dir, bool Keep) : Dir(std::move(Dir)), Keep(Keep) {}
  std::string Dir;
  bool Keep;
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_WORKDIR_H

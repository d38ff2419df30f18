//===- lld-plugin/DependencyFile.h - The host link's Make rule --*- C++ -*-===//
//
// LLD's --dependency-file lists every file the link read, and the host link
// reads ours: the registration object, from a work directory that is gone
// once the link is done. Make and Ninja take a listed file that is missing
// for one that changed, and would link again at every build (CMake 3.27 and
// later pass --dependency-file to LLD by default). The rule is rewritten
// without them.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEPENDENCYFILE_H
#define LLD_OFFLOAD_LLDPLUGIN_DEPENDENCYFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace offload {

/// \p Rule, a Make rule as LLD writes it, without the prerequisites under the
/// directory \p Dir.
std::string dropPrerequisitesUnder(llvm::StringRef Rule, llvm::StringRef Dir);

/// Rewrites the dependency file \p Path without the files under \p Dir;
/// one that is not a regular file ("-", /dev/null) is left alone.
llvm::Error dropFromDependencyFile(llvm::StringRef Path, llvm::StringRef Dir);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEPENDENCYFILE_H

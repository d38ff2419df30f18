//===- support/Version.h - What every tool says for --version ---*- C++ -*-===//
//
// A bug report needs to say which tool it is about, which lld-offload it
// came from and which LLVM it was built on: every tool's --version says all
// three, the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_VERSION_H
#define LLD_OFFLOAD_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace offload {

/// lld-offload's version, e.g. "0.1.0".
llvm::StringRef lldOffloadVersion();

/// Prints "<Tool> (lld-offload <version>)" and the LLVM version the tool was
/// built with, as the tools' --version does.
void printToolVersion(llvm::raw_ostream &OS, llvm::StringRef Tool);

} // namespace offload

#endif

//===- tools/offload-prune/Messages.h - How errors name things --*- C++ -*-===//
//
// How Pruner.cpp and InPlace.cpp name places, so that a container is named
// the same in --list and in errors; errors are the tools' (fail()).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_TOOLS_OFFLOAD_PRUNE_MESSAGES_H
#define LLD_OFFLOAD_TOOLS_OFFLOAD_PRUNE_MESSAGES_H

#include "tools/common/ToolSupport.h"

#include "llvm/ADT/StringExtras.h"

#include <string>

namespace offload {
namespace prune {

using tool::fail;

inline std::string hex(uint64_t V) { return "0x" + llvm::utohexstr(V, true); }

/// Where a container sits: "<where> <what> @0x<offset>".
inline std::string at(llvm::StringRef Where, llvm::StringRef What,
                      uint64_t Offset) {
  return (Where + " " + What + " @" + hex(Offset)).str();
}

} // namespace prune
} // namespace offload

#endif // LLD_OFFLOAD_TOOLS_OFFLOAD_PRUNE_MESSAGES_H

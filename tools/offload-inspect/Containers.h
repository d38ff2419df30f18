//===- Containers.h - Helpers shared by the inspector's walkers -----------===//

#ifndef LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_CONTAINERS_H
#define LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_CONTAINERS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace offload {

/// "0x1F00": how the tree and the messages write offsets.
std::string hexOffset(uint64_t V);

/// True if \p Data starts with a container the inspector walks into: an
/// OffloadBinary, a bundle (binary, text or compressed) or a CUDA fat binary.
bool startsWithContainer(llvm::StringRef Data);

} // namespace offload

#endif // LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_CONTAINERS_H

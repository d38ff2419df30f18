//===- Resources.h - The kernels of every code object found ---------------===//
//
// offload-inspect --resources: the GPU code objects among what the inspector
// found (device images, and inputs or archive members that are code objects
// themselves), each read for its kernels' resources.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_RESOURCES_H
#define LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_RESOURCES_H

#include "Inspector.h"

#include "format/KernelResources.h"

namespace offload {

/// The kernels of the code objects under one input.
struct InputKernels {
  std::string Input;
  std::vector<KernelResources> Kernels;
};

/// The kernels of every code object under \p Roots, in the order the tree
/// lists them, one entry per input; a code object that cannot be read adds
/// its error (naming its location, the offset and the problem) to
/// \p Errors.
std::vector<InputKernels> findKernelResources(llvm::ArrayRef<InspectNode> Roots,
                                              std::vector<std::string> &Errors);

} // namespace offload

#endif // LLD_OFFLOAD_TOOLS_OFFLOAD_INSPECT_RESOURCES_H

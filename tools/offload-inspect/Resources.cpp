//===- Resources.cpp - The kernels of every code object found -------------===//

#include "Resources.h"

using namespace llvm;

namespace offload {

/// Reads every node under \p Node that holds a whole file or image.
static void addKernels(const InspectNode &Node,
                       std::vector<KernelResources> &Kernels,
                       std::vector<std::string> &Errors) {
  bool Whole = !Node.Data.empty() && !Node.Extract && Node.Error.empty();
  if (Whole && (Node.TheType == InspectNode::Type::File ||
                Node.TheType == InspectNode::Type::Image)) {
    Expected<std::vector<KernelResources>> Read =
        readKernelResources(Node.Data, Node.Location);
    if (Read)
      llvm::append_range(Kernels, *Read);
    else
      Errors.push_back(toString(Read.takeError()));
  }
  for (const InspectNode &Child : Node.Children)
    addKernels(Child, Kernels, Errors);
}

std::vector<InputKernels>
findKernelResources(ArrayRef<InspectNode> Roots,
                    std::vector<std::string> &Errors) {
  std::vector<InputKernels> Found;
  for (const InspectNode &Root : Roots) {
    InputKernels Input;
    Input.Input = Root.Name;
    addKernels(Root, Input.Kernels, Errors);
    Found.push_back(std::move(Input));
  }
  return Found;
}

} // namespace offload

//===- Resources.cpp - The kernels of every code object found -------------===//

#include "Resources.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace offload {

/// Reads every node under \p Node that holds a whole file or image.
static void addKernels(const InspectNode &Node,
                       std::vector<KernelResources> &Kernels,
                       std::vector<std::string> &Errors) {
  auto Read = [&](StringRef Data) {
    Expected<std::vector<KernelResources>> Rows =
        readKernelResources(Data, Node.Location);
    if (Rows)
      llvm::append_range(Kernels, *Rows);
    else
      Errors.push_back(toString(Rows.takeError()));
  };
  bool Whole = !Node.Data.empty() && !Node.Extract && Node.Error.empty();
  if (Whole && (Node.TheType == InspectNode::Type::File ||
                Node.TheType == InspectNode::Type::Image))
    Read(Node.Data);
  // A cubin in compressed data is not walked into, so only its first bytes
  // were inflated: inflated here, whole, to read its kernels.
  if (Node.Extract && Node.Error.empty() && Node.ImageKind == "cubin") {
    SmallString<0> Bytes;
    raw_svector_ostream OS(Bytes);
    if (Error E = Node.Extract(OS))
      Errors.push_back(toString(std::move(E)));
    else
      Read(Bytes);
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

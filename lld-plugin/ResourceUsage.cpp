//===- lld-plugin/ResourceUsage.cpp - The linked kernels' resources -------===//

#include "lld-plugin/ResourceUsage.h"

#include "format/KernelResourceTable.h"
#include "support/AtomicOutput.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace offload {

/// The kernels of every link's output, in the links' order.
static std::vector<KernelResources>
readLinkedKernels(ArrayRef<PreparedDeviceLink> Links, StringRef Output,
                  function_ref<void(Error)> Warn) {
  std::vector<KernelResources> Kernels;
  for (const PreparedDeviceLink &Link : Links) {
    // SPIR-V holds no resource counts: the runtime's compile for the GPU
    // it finds decides them.
    if (Link.runner() == DeviceLinkRunner::SPIRV)
      continue;
    std::string Container =
        (Output + ": device link " + Link.Job->name()).str();
    Expected<std::unique_ptr<MemoryBuffer>> Linked = Link.readOutput();
    Expected<std::vector<KernelResources>> Read =
        Linked ? readKernelResources((*Linked)->getBuffer(), Container)
               : Expected<std::vector<KernelResources>>(createStringError(
                     inconvertibleErrorCode(),
                     Container + ": " + toString(Linked.takeError())));
    if (!Read) {
      Warn(Read.takeError());
      continue;
    }
    llvm::append_range(Kernels, *Read);
  }
  return Kernels;
}

Error reportResourceUsage(ArrayRef<PreparedDeviceLink> Links,
                          const OffloadOptions &Options, StringRef Output,
                          raw_ostream &Log, function_ref<void(Error)> Warn) {
  if (!Options.PrintResourceUsage && Options.ResourceUsageFile.empty())
    return Error::success();
  std::vector<KernelResources> Kernels = readLinkedKernels(Links, Output, Warn);
  if (Options.PrintResourceUsage) {
    printKernelResourceTable(Log, Kernels, /*Demangle=*/true);
  }
  if (Options.ResourceUsageFile.empty())
    return Error::success();
  Error Written = writeFileAtomically(
      Options.ResourceUsageFile, [&](OutputFileStream &OS) -> Error {
        json::OStream J(OS, /*IndentSize=*/2);
        J.object([&] {
          J.attributeArray("kernels", [&] {
            for (const KernelResources &Kernel : Kernels)
              writeKernelResourcesJSON(J, Kernel, /*Demangle=*/true);
          });
        });
        OS << "\n";
        return Error::success();
      });
  if (Written)
    return createStringError(inconvertibleErrorCode(),
                             "--offload-resource-usage: " +
                                 toString(std::move(Written)));
  return Error::success();
}

} // namespace offload

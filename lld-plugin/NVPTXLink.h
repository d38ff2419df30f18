//===- lld-plugin/NVPTXLink.h - NVPTX device links ------------------*- C++
//-*-//
//
// An NVPTX device link with bitcode among its images or device libraries, as
// clang-linker-wrapper does it: the bitcode (and the library members the
// link needs) through LTO to PTX for the job's sm_NN, the CUDA toolkit's ptxas to a relocatable cubin,
// and its nvlink over that cubin and the job's other cubins. The link runs
// in a worker process of ld.lld-offload (LTO holds global state, and the
// links of several archs run in parallel like LLD's).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_NVPTXLINK_H
#define LLD_OFFLOAD_LLDPLUGIN_NVPTXLINK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace offload {

/// One NVPTX device link.
struct NVPTXLinkRequest {
  /// The CUDA toolkit (bin/ptxas, bin/nvlink).
  std::string CudaPath;
  /// "sm_90".
  std::string Arch;
  /// The linked cubin; intermediates are written next to it.
  std::string Output;
  /// Bitcode files and cubins, in link order.
  std::vector<std::string> Inputs;
  /// Device libraries: bitcode files (linked whole) and archives of bitcode
  /// (members linked when they define a symbol the link needs).
  std::vector<std::string> Libraries;
  /// More arguments for nvlink (--offload-device-linker-arg).
  std::vector<std::string> NVLinkArgs;

  /// The worker's command line for this request (after the worker flag).
  std::vector<std::string> toArgs() const;
  /// Reads a worker's command line made by toArgs().
  static llvm::Expected<NVPTXLinkRequest>
  fromArgs(llvm::ArrayRef<std::string> Args);
};

/// Runs \p Request: LTO of its bitcode to PTX, ptxas, nvlink. Errors carry
/// the tools' messages.
llvm::Error linkNVPTX(const NVPTXLinkRequest &Request);

/// The argument that starts ld.lld-offload as an NVPTX link worker.
constexpr const char *NVPTXWorkerFlag = "--offload-nvptx-link-worker";

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_NVPTXLINK_H

//===- lld-plugin/NVPTXLink.h - NVPTX device links ------------------*- C++
//-*-//
//
// An NVPTX device link with bitcode among its images or device libraries, as
// clang-linker-wrapper does it: the bitcode (and the library members the
// link needs) through LTO to PTX for the job's sm_NN, the CUDA toolkit's ptxas
// to a relocatable cubin, and its nvlink over that cubin and the job's other
// cubins. The link runs in this process, or, when links run in parallel, in a
// worker process of ld.lld-offload that reads its request from a file
// (NVPTXLinkRequest.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_NVPTXLINK_H
#define LLD_OFFLOAD_LLDPLUGIN_NVPTXLINK_H

#include "lld-plugin/NVPTXLinkRequest.h"

#include "llvm/Support/Error.h"

namespace offload {

/// Runs \p Request: LTO of its bitcode to PTX, ptxas, nvlink. Errors carry
/// the tools' messages.
llvm::Error linkNVPTX(const NVPTXLinkRequest &Request);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_NVPTXLINK_H

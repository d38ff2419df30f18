//===- format/AMDGPUResources.h - Kernels of an AMDGPU code object -*- C++ -*-//
//===//
//
// An AMDHSA code object (v3 to v6) describes each kernel twice: in the
// NT_AMDGPU_METADATA note, a msgpack map under "amdhsa.kernels" (registers,
// spills, segment sizes, wavefront size, largest work-group), and in its
// 64-byte kernel descriptor, the "<kernel>.kd" symbol that the loader reads
// (segment sizes, wave32, dynamic stack, WGP mode). The note gives the
// counts; the descriptor, which is what the hardware is set up from, gives
// the segment sizes and must agree with the note where both say something.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_AMDGPURESOURCES_H
#define LLD_OFFLOAD_FORMAT_AMDGPURESOURCES_H

#include "format/KernelResources.h"

namespace offload {

/// The kernels of the AMDGPU code object \p Data (an ELF file for EM_AMDGPU),
/// as readKernelResources() describes them. Errors name \p Location, the
/// offset in \p Data of the note, descriptor or header field at fault and
/// what is wrong with it.
llvm::Expected<std::vector<KernelResources>>
readAMDGPUKernelResources(llvm::StringRef Data, llvm::StringRef Location);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_AMDGPURESOURCES_H

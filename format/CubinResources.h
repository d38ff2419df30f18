//===- format/CubinResources.h - Per-kernel resources of a cubin -*- C++
//-*-===//
//
// What each kernel of an NVIDIA cubin (an EM_CUDA ELF file, as ptxas and
// nvlink write it) needs to launch: registers, barriers, shared, local and
// constant memory, launch bounds. NVIDIA does not document the layout; what
// is read here was pinned against ptxas -v and nvlink of CUDA 13.0 for
// sm_75 to sm_120 (see unittests/format/CubinResourcesPtxasTest.cpp):
//
//   kernels       STT_FUNC symbols with bit 0x10 (STO_CUDA_ENTRY) in st_other
//                 (device functions lack it); each lives in .text.<kernel>.
//   .nv.info      SHT_CUDA_INFO (0x70000000) records about any symbol:
//                 EIATTR_REGCOUNT, EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE,
//                 each a {u32 symbol index, u32 value} payload.
//   .nv.info.<k>  SHT_CUDA_INFO records about one kernel, whose .text section
//                 is the sh_info of the section: EIATTR_MAX_THREADS,
//                 EIATTR_REQNTID (u32 x, y, z), EIATTR_MAXREG_COUNT,
//                 EIATTR_NUM_BARRIERS.
//   .nv.shared.<k>, .nv.constant0.<k>
//                 the kernel's static shared memory and constant bank 0 (its
//                 parameters and what the driver puts there), tied to the
//                 kernel by sh_info; only their sizes are used.
//
// A record is {u8 format, u8 attribute, u16 value}; EIFMT_SVAL (4) records
// use the u16 as the size of a payload that follows. EIFMT_NVAL (1),
// EIFMT_BVAL (2) and EIFMT_HVAL (3) records are those four bytes alone.
//
// The SM version sits in e_flags: bits 0-7 under CUDA's first ELF ABI
// (EI_ABIVERSION 7 and below), bits 8-15 under the second (EI_ABIVERSION 8,
// which CUDA 13 writes for every SM).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_CUBINRESOURCES_H
#define LLD_OFFLOAD_FORMAT_CUBINRESOURCES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace offload {

/// What one kernel of a cubin uses. The comments name the line of `ptxas -v`
/// that reports the same figure.
struct CubinKernelResources {
  /// The kernel's symbol name, as stored (mangled).
  std::string Name;
  /// The cubin's SM, "sm_90" (with an "a" for the accelerated variants where
  /// e_flags mark them; CUDA 13.0's ptxas marks neither sm_90a nor sm_100a).
  std::string Arch;
  /// "Used N registers": EIATTR_REGCOUNT, else (cubins older than that
  /// attribute) the top byte of the .text section's sh_info.
  uint32_t Registers = 0;
  /// "used N barriers": EIATTR_NUM_BARRIERS, 0 without it.
  uint32_t Barriers = 0;
  /// "N bytes smem": the size of .nv.shared.<kernel>, less the 1 KiB that
  /// executable cubins for sm_90 and later reserve at its start. Dynamic
  /// shared memory is a launch parameter and not included.
  uint64_t SharedBytes = 0;
  /// "N bytes stack frame": EIATTR_FRAME_SIZE, per thread. Register spills
  /// live here; how many bytes ptxas spilled is not recorded in the cubin.
  uint64_t LocalBytes = 0;
  /// "N bytes cumulative stack size" (the frame plus what the callees need):
  /// EIATTR_MIN_STACK_SIZE, per thread. Relocatable cubins (ptxas -c) lack
  /// it, as their callees are not known yet; then 0.
  uint64_t StackBytes = 0;
  /// "N bytes cmem[0]": the size of .nv.constant0.<kernel>. (CUDA 13's ptxas
  /// prints it for SMs before sm_90 only.)
  uint64_t ConstantBytes = 0;
  /// The register limit ptxas compiled for (EIATTR_MAXREG_COUNT: .maxnreg,
  /// __launch_bounds__' minimum blocks, -maxrregcount); 255 when unlimited.
  std::optional<uint32_t> MaxRegisters;
  /// The product of the block dimensions of EIATTR_MAX_THREADS (.maxntid,
  /// __launch_bounds__), else of EIATTR_REQNTID (.reqntid).
  std::optional<uint32_t> MaxThreadsPerBlock;
};

/// True if \p Bytes start like an ELF file for EM_CUDA (190), in either byte
/// order and class. readCubinResources() reads only the 64-bit little-endian
/// ones (what ptxas writes for 64-bit addressing) and refuses the others.
bool isCubin(llvm::StringRef Bytes);

/// The SM a cubin was compiled for ("sm_90", "sm_90a"), from its ELF header.
llvm::Expected<std::string> readCubinArch(llvm::MemoryBufferRef Cubin);

/// Every kernel of \p Cubin with its resources, in symbol table order. Sizes
/// and indices are checked against the data; errors name the buffer
/// identifier, the file offset and the problem.
llvm::Expected<std::vector<CubinKernelResources>>
readCubinResources(llvm::MemoryBufferRef Cubin);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_CUBINRESOURCES_H

//===- lld-plugin/SPIRVLink.h - SPIR-V device links -------------*- C++ -*-===//
//
// SPIR-V device code is linked in this process, with no translator and no
// other program:
//   - LLVM bitcode (HIP's portable amdgcnspirv image): the modules linked as
//     llvm-link links them (IRMover, no optimization after), then LLVM's
//     SPIR-V backend at -O0, as clang's -use-spirv-backend device link does
//     (clang -cc1 -triple=spirv64-amd-amdhsa -emit-obj -disable-llvm-optzns);
//   - SPIR-V modules (OpenMP's spirv64-intel images, compiled to SPIR-V at
//     compile time): SPIRV-Tools' linker, as clang's pipeline runs
//     spirv-link.
// A SPIR-V link never runs in a worker process: nothing in it is LLD's, so
// it can run beside the workers, in this process.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_SPIRVLINK_H
#define LLD_OFFLOAD_LLDPLUGIN_SPIRVLINK_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace offload {

/// One SPIR-V device link.
struct SPIRVLinkRequest {
  /// The device triple ("spirv64-amd-amdhsa").
  std::string Triple;
  /// The linked SPIR-V module.
  std::string Output;
  /// The images, in link order, then the device libraries: all bitcode, or
  /// all SPIR-V modules.
  std::vector<std::string> Inputs;
  /// True when the inputs are bitcode: LLVM's SPIR-V backend makes the
  /// module. Else SPIRV-Tools links SPIR-V modules.
  bool Bitcode = true;

  /// For --offload-verbose and --offload-dry-run: what the link does, as
  /// arguments of ours ("--spirv-backend" or "--spirv-tools", "--triple=",
  /// inputs, "-o").
  std::vector<std::string> args() const;
};

/// Runs \p Request. Errors name the input or the step that failed, and
/// carry LLVM's or SPIRV-Tools' message; nothing is left at Output then.
llvm::Error linkSPIRV(const SPIRVLinkRequest &Request);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_SPIRVLINK_H

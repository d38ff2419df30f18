//===- format/NvccModule.h - nvcc's relocatable device code -----*- C++ -*-===//
//
// What `nvcc -rdc=true` (or -dc) leaves in a host object for a later device
// link, each compilation unit a "module" named by its module ID:
//
//   __nv_relfatbin   a fat binary of the unit's relocatable cubins and PTX,
//                    one per arch; after `ld -r`, one per unit, back to back
//                    (8-aligned, zero padding between);
//   __nv_module_id   the unit's module ID, NUL-terminated; after `ld -r`,
//                    one per unit (16-aligned, zero padding between).
//
// The unit's host code registers its kernels and variables through a
// callback it hands to __cudaRegisterLinkedBinary<module ID>, which the
// device link's registration defines (the toolkit's crt/link.stub; an
// `nvcc -dlink` output defines it, with the linked fat binary).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_NVCCMODULE_H
#define LLD_OFFLOAD_FORMAT_NVCCMODULE_H

#include "format/InspectCudaFatbin.h"

#include "llvm/Object/ObjectFile.h"

#include <optional>
#include <vector>

namespace offload {

/// The section of the relocatable device code, and of the module IDs.
constexpr llvm::StringLiteral NvccRelocatableSection = "__nv_relfatbin";
constexpr llvm::StringLiteral NvccModuleIDSection = "__nv_module_id";
/// The prefix of the function a module's host code calls to register,
/// followed by its module ID (which starts with '_').
constexpr llvm::StringLiteral NvccRegisterLinkedPrefix =
    "__cudaRegisterLinkedBinary";
/// The prefix of a module's fat binary wrapper, followed by its module ID.
constexpr llvm::StringLiteral NvccFatbinWrapperPrefix = "__fatbinwrap";

/// One arch's relocatable device code of a module: a cubin, or PTX that
/// nvlink compiles.
struct NvccModuleImage {
  /// sm_NN for a cubin; sm_NN too for PTX of compute_NN.
  std::string Arch;
  bool IsPTX = false;
  /// Its fat binary entry (the payload may be compressed).
  CudaFatbinEntry Entry;
};

/// The relocatable device code of one host object.
struct NvccModuleCode {
  /// The module IDs, in section order.
  std::vector<std::string> ModuleIDs;
  /// Each module's fat binary (one for each ID, in order).
  std::vector<llvm::StringRef> Fatbins;
  /// Each fat binary's images, in section order.
  std::vector<NvccModuleImage> Images;
};

/// The module ID nvlink gives an input that has none (a fat binary, a
/// cubin) in its --register-link-binaries list: the input's path, each
/// character but a letter or digit made '_'.
std::string nvlinkModuleIDOfPath(llvm::StringRef Path);

/// Whether \p Path is the CUDA device runtime, libcudadevrt.a: nvlink's
/// library (nvcc's device link passes -lcudadevrt), never a device input
/// of the link itself, though its members hold relocatable device code.
bool isCudaDeviceRuntime(llvm::StringRef Path);

/// Reads the fat binaries that follow each other in \p Section (8-aligned,
/// zero padding between). Errors name \p Name and the offset.
llvm::Expected<std::vector<CudaFatbin>>
readCudaFatbinSequence(llvm::StringRef Section, llvm::StringRef Name);

/// Reads the relocatable device code of the ELF relocatable object \p Obj,
/// named \p Name in messages; std::nullopt when it has none (no
/// __nv_relfatbin). A fat binary that does not read, or an object with
/// relocatable device code and no module ID, is an error naming the file,
/// the section and the offset.
llvm::Expected<std::optional<NvccModuleCode>>
readNvccModuleCode(const llvm::object::ObjectFile &Obj, llvm::StringRef Name);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_NVCCMODULE_H

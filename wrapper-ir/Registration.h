//===- wrapper-ir/Registration.h - Registration modules ---------*- C++ -*-===//
//
// Builds the host module that makes device images known to their runtime at
// program start: the data structures that describe the images and a
// constructor that hands them to the runtime (and a matching unregistration
// at exit). The module is built in memory with LLVM's IRBuilder, for a given
// host triple, and can then be emitted by wrapper-ir/Emit.h.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_WRAPPERIR_REGISTRATION_H
#define LLD_OFFLOAD_WRAPPERIR_REGISTRATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdint>
#include <memory>
#include <string>

namespace offload {

/// Which runtime the images are registered with.
enum class RegistrationKind { OpenMP, Cuda, HIP };

/// The OpenMP registration layout.
enum class OpenMPLayout {
  /// LLVM 22: each image is an OffloadBinary embedded whole in
  /// `.llvm.offloading`, registered through `__tgt_register_lib`.
  LLVM22,
  /// The older clang-offload-wrapper: raw device images, plus one
  /// `__tgt_image_info` per image passed to `__tgt_register_image_info`
  /// (called only where the runtime defines it) and the target IDs in
  /// `.offload_arch_list`.
  Legacy,
};

/// One device image to register.
struct ImageToRegister {
  /// The bytes embedded in the host: an OffloadBinary (OpenMP, LLVM 22
  /// layout), the raw device image (OpenMP, legacy layout) or the fat binary
  /// (CUDA, HIP).
  llvm::StringRef Data;
  /// The device image within Data, as [ImageBegin, ImageEnd): what the
  /// OpenMP runtime is given. For an OffloadBinary this is its image field.
  uint64_t ImageBegin = 0;
  uint64_t ImageEnd = 0;
  /// Legacy layout: the image's target ID (e.g. gfx90a:xnack+) and compile
  /// options (may be empty).
  std::string Arch;
  std::string CompileOptions;
};

/// What to build.
struct RegistrationOptions {
  RegistrationKind Kind = RegistrationKind::OpenMP;
  OpenMPLayout Layout = OpenMPLayout::LLVM22;
  /// The section holding the offload entries; the module refers to its
  /// `__start_`/`__stop_` bounds. Objects from older compilers use
  /// `omp_offloading_entries`.
  std::string EntriesSection = "llvm_offload_entries";
  /// For a relocatable (`ld -r`) link: embed OpenMP images in
  /// `.llvm.offloading.relocatable` so that a later link does not take them
  /// for device code still to be linked.
  bool Relocatable = false;
  /// CUDA: register surfaces and textures too (HIP always does).
  bool CudaSurfacesAndTextures = false;
  /// CUDA: the nvcc modules (-rdc units, by module ID) whose relocatable
  /// device code the fat binary links. Their host code registers through
  /// __cudaRegisterLinkedBinary<ID>, which the module then defines for each,
  /// as the CUDA toolkit's crt/link.stub does for nvcc's link: the fat
  /// binary (a version 2 wrapper, with the units' own fat binaries) is
  /// registered once every unit has called in, the units' callbacks register
  /// their kernels and variables, then the offload entries of other inputs
  /// (clang's CUDA objects) are registered on the same handle.
  std::vector<std::string> NvccModules;
};

/// Builds the registration module for \p Images on \p HostTriple. CUDA and
/// HIP register exactly one fat binary; OpenMP registers one or more images.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildRegistrationModule(llvm::LLVMContext &Context,
                        const llvm::Triple &HostTriple,
                        llvm::ArrayRef<ImageToRegister> Images,
                        const RegistrationOptions &Options);

/// Builds the module that clang's old HIP driver (-fgpu-rdc) links into a
/// program: \p Fatbin in .hip_fatbin as __hip_fatbin_<cuid> and a null
/// module handle in .hip_gpubin_handle as __hip_gpubin_handle_<cuid>, for
/// every compilation unit of \p CUIDs (the first defines them, the others
/// are aliases). The units' own host code registers the fat binary.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildHIPFatbinDefinitions(llvm::LLVMContext &Context,
                          const llvm::Triple &HostTriple,
                          llvm::StringRef Fatbin,
                          llvm::ArrayRef<std::string> CUIDs);

} // namespace offload

#endif // LLD_OFFLOAD_WRAPPERIR_REGISTRATION_H

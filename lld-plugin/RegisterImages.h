//===- lld-plugin/RegisterImages.h - The registration object ----*- C++ -*-===//
//
// Packs each linked device image as an OffloadBinary and builds the object
// that registers them all with the offload runtime, for the host link.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_REGISTERIMAGES_H
#define LLD_OFFLOAD_LLDPLUGIN_REGISTERIMAGES_H

#include "lld-plugin/DeviceLink.h"

#include "format/CompressedBundle.h"

#include <optional>

namespace offload {

class DeviceLinkCache;

/// How the registration objects are made.
struct RegistrationSettings {
  /// The offload entries section the objects register.
  std::string EntriesSection = "llvm_offload_entries";
  /// The variant for a relocatable output.
  bool Relocatable = false;
  /// Compress HIP fat binaries (CCOB).
  std::optional<BundleCompression> Compression;
  /// The CUDA toolkit, whose fatbinary makes CUDA fat binaries.
  std::string CudaPath = "/usr/local/cuda";
  /// Old-driver HIP units (-fgpu-rdc) by CUID: when set, the HIP fat binary
  /// is defined for their own registration code instead of registered.
  std::vector<std::string> HIPFatbinUnits;
  /// Where registration objects of cached images are kept, if anywhere.
  DeviceLinkCache *Cache = nullptr;
  /// Say what the cache gave (--offload-verbose).
  bool Verbose = false;
};

/// Writes one object per offload kind among \p Links that registers its
/// linked images: OpenMP images packed as OffloadBinaries for
/// __tgt_register_lib; HIP images bundled into one fat binary (a host entry
/// and one hip-amdgcn-amd-amdhsa--<target ID> entry per arch, 4096-aligned,
/// as clang-linker-wrapper bundles them) for __hipRegisterFatBinary, or
/// defined as __hip_fatbin_<cuid> for old-driver units that register it; CUDA
/// cubins made into one fat binary by the toolkit's fatbinary, for
/// __cudaRegisterFatBinary.
/// The objects written, and the size of the largest fat binary among them.
struct RegistrationObjects {
  std::vector<std::string> Paths;
  uint64_t LargestFatbin = 0;
};
llvm::Expected<RegistrationObjects> writeRegistrationObjects(
    llvm::ArrayRef<PreparedDeviceLink> Links, const llvm::Triple &HostTriple,
    const RegistrationSettings &Settings, const WorkDir &Dir);

/// A registration object writeRegistrationObjects() would take from
/// Settings.Cache: its key, and the links whose images it holds.
struct RegistrationKey {
  std::string Key;
  std::vector<const PreparedDeviceLink *> Links;
};
/// Those of \p Links: a link whose object either tier keeps needs its image
/// no more, so they are looked up first (and all at once). None for a
/// relocatable output (its entries section is named after the images), nor
/// for an object with an image that has no key.
std::vector<RegistrationKey>
registrationKeys(llvm::ArrayRef<PreparedDeviceLink> Links,
                 const llvm::Triple &HostTriple,
                 const RegistrationSettings &Settings);

/// The HIP fat binary of \p Links (their HIP images), as registered: a
/// bundle with an empty host entry and one \p EntryKind-amdgcn-amd-amdhsa--
/// <target ID> entry per image ("hip" as clang-linker-wrapper writes them,
/// "hipv4" as clang's old driver does).
llvm::Expected<llvm::SmallVector<char, 0>>
makeHIPFatbin(llvm::ArrayRef<const PreparedDeviceLink *> Links,
              const std::optional<BundleCompression> &Compression,
              llvm::StringRef EntryKind);

/// The linker script that keeps the inputs' offload entries under
/// --gc-sections. The registration finds them between
/// __start_llvm_offload_entries and __stop_llvm_offload_entries, but under
/// LLD's default -z start-stop-gc such a reference keeps no section: the
/// entries, and with them every kernel and variable the runtime is told of,
/// would be collected. OVERWRITE_SECTIONS places them where LLD would place
/// them anyway, without an anchor section that a program may lack.
constexpr const char *KeepEntriesScript =
    "OVERWRITE_SECTIONS {\n"
    "  llvm_offload_entries : { KEEP(*(llvm_offload_entries)) }\n"
    "}\n";

/// For a relocatable link that links device code now: a name of its own for
/// the entries section (derived from the linked images, so stable across
/// runs), and the linker script that moves the inputs' entries there and
/// drops their raw device images (keeping the entries under --gc-sections,
/// as KeepEntriesScript does). Two such outputs can then be linked
/// together, each registering its own images.
struct RelocatableRegistration {
  std::string EntriesSection;
  std::string Script;
};
llvm::Expected<RelocatableRegistration>
planRelocatableRegistration(llvm::ArrayRef<PreparedDeviceLink> Links);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_REGISTERIMAGES_H

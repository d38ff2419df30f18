//===- lld-plugin/RegisterImages.h - The registration object ----*- C++ -*-===//
//
// Packs each linked device image as an OffloadBinary and builds the object
// that registers them all with the offload runtime, for the host link.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_REGISTERIMAGES_H
#define LLD_OFFLOAD_LLDPLUGIN_REGISTERIMAGES_H

#include "lld-plugin/DeviceLink.h"

namespace offload {

/// Writes the registration object for the linked images of \p Links to
/// \p Dir and returns its path. The object registers the offload entries of
/// \p EntriesSection; \p Relocatable selects the variant for a relocatable
/// output.
llvm::Expected<std::string>
writeRegistrationObject(llvm::ArrayRef<PreparedDeviceLink> Links,
                        const llvm::Triple &HostTriple,
                        llvm::StringRef EntriesSection, bool Relocatable,
                        const WorkDir &Dir);

/// For a relocatable link that links device code now: a name of its own for
/// the entries section (derived from the linked images, so stable across
/// runs), and the linker script that moves the inputs' entries there and
/// drops their raw device images. Two such outputs can then be linked
/// together, each registering its own images.
struct RelocatableRegistration {
  std::string EntriesSection;
  std::string Script;
};
llvm::Expected<RelocatableRegistration>
planRelocatableRegistration(llvm::ArrayRef<PreparedDeviceLink> Links);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_REGISTERIMAGES_H

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
/// \p Dir and returns its path. \p Relocatable selects the variant for a
/// relocatable output.
llvm::Expected<std::string>
writeRegistrationObject(llvm::ArrayRef<PreparedDeviceLink> Links,
                        const llvm::Triple &HostTriple, bool Relocatable,
                        const WorkDir &Dir);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_REGISTERIMAGES_H

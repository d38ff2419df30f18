//===- lld-plugin/DevicePlan.h - Grouping images into device links -*- C++ -*-//
//
// Device images are linked in groups: one device link per (offload kind,
// triple, arch). An image built for the generic arch of a triple serves every
// specific arch of that triple and joins each of their links. AMDGPU images
// are linked per complete target ID (gfx90a:xnack+, gfx90a:xnack-): an image
// that leaves a feature unset joins every link of its processor it is
// compatible with. Everything that cannot be linked is reported here, before
// any work is done.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICEPLAN_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICEPLAN_H

#include "lld-plugin/DeviceInputs.h"
#include "lld-plugin/DeviceLinkKey.h"

#include "llvm/TargetParser/Triple.h"

namespace offload {

/// One device link: the images of one offload kind, triple and arch (its
/// DeviceLinkKey, which also names it: name(), fileName()).
struct DeviceLinkJob : DeviceLinkKey {
  std::vector<const DeviceImage *> Images;
  /// True when some image is LLVM bitcode: the link runs LTO.
  bool NeedsLTO = false;
};

/// Groups \p Images into device links, in the order their groups first
/// appear in the link.
///
/// AMDGPU images are linked per complete target ID: for each processor (of
/// one offload kind and triple), every link sets each feature that some image
/// of the processor sets, the way some image of the link sets it, and takes
/// every image compatible with it (isTargetIDCompatible). So "gfx90a:xnack+"
/// and "gfx90a:xnack-" images make two links, and a "gfx90a" image beside
/// them joins both, with no "gfx90a" link of its own.
///
/// Fails, naming the inputs and the images, for an AMDGPU image no such link
/// can take (one would need both settings of a feature), for malformed or
/// unknown target IDs, for images no device link here can handle (unknown
/// triples, images that are not objects or bitcode), and for HIP code of
/// clang's two offload drivers together (\p HIPFatbinUnits: the old driver's
/// -fgpu-rdc units, DeviceInputs::hipFatbinUnits()).
llvm::Expected<std::vector<DeviceLinkJob>>
planDeviceLinks(llvm::ArrayRef<DeviceImage> Images,
                llvm::ArrayRef<std::string> HIPFatbinUnits = {});

/// Whether images of triple \p T built for \p ArchA and \p ArchB may be
/// linked together, as planDeviceLinks plans: the same arch, a generic one,
/// or AMDGPU target IDs of one processor that set no feature both ways. (A
/// superset: planDeviceLinks may still keep them apart.)
bool mayShareDeviceLink(const llvm::Triple &T, llvm::StringRef ArchA,
                        llvm::StringRef ArchB);

/// "openmp x86_64-pc-linux-gnu generic (object)", for messages.
std::string describeImage(const OffloadImage &Image);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICEPLAN_H

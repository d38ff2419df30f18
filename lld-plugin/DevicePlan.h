//===- lld-plugin/DevicePlan.h - Grouping images into device links -*- C++ -*-//
//
// Device images are linked in groups: one device link per (offload kind,
// triple, arch). An image built for the generic arch of a triple serves every
// specific arch of that triple and joins each of their links. Everything that
// cannot be linked is reported here, before any work is done.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICEPLAN_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICEPLAN_H

#include "lld-plugin/DeviceInputs.h"

#include "llvm/TargetParser/Triple.h"

namespace offload {

/// One device link: the images of one offload kind, triple and arch.
struct DeviceLinkJob {
  OffloadKind Kind = OffloadKind::None;
  llvm::Triple TargetTriple;
  std::string Arch;
  std::vector<const DeviceImage *> Images;
  /// True when some image is LLVM bitcode: the link runs LTO.
  bool NeedsLTO = false;

  /// "openmp-x86_64-pc-linux-gnu-generic": names temporary files and
  /// messages.
  std::string name() const;
  /// name() made safe for the names of the job's work files: an image's
  /// triple and arch come from whoever built it, and may hold "/" or "..".
  /// \p Changed, where given, says whether it differs from name().
  std::string fileName(bool *Changed = nullptr) const;
};

/// Groups \p Images into device links, in the order their groups first
/// appear in the link. Fails, naming the inputs and the images, for target
/// IDs that conflict (a feature on in one image and off in another of the
/// same processor) and for images no device link here can handle (GPU
/// targets, unknown triples, images that are not objects or bitcode), and
/// for HIP code of clang's two offload drivers together (\p HIPFatbinUnits:
/// the old driver's -fgpu-rdc units, DeviceInputs::hipFatbinUnits()).
llvm::Expected<std::vector<DeviceLinkJob>>
planDeviceLinks(llvm::ArrayRef<DeviceImage> Images,
                llvm::ArrayRef<std::string> HIPFatbinUnits = {});

/// "openmp x86_64-pc-linux-gnu generic (object)", for messages.
std::string describeImage(const OffloadImage &Image);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICEPLAN_H

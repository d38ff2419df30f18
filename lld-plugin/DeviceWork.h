//===- lld-plugin/DeviceWork.h - A link's device code and its links -*- C++ -*-//
//
// The passes of a link between knowing what the host link loads and the
// host link itself: find the device code and plan its links, prepare them
// (command lines, images from the device-link cache), and write the
// objects that register the linked images.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICEWORK_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICEWORK_H

#include "lld-plugin/DeviceInputs.h"
#include "lld-plugin/DeviceLink.h"
#include "lld-plugin/DevicePlan.h"
#include "lld-plugin/LinkOptions.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace offload {

class DeviceLinkCache;
class LinkInputs;
class WorkDir;

/// The device code of a link's loaded inputs and the links it asks for.
struct DeviceWork {
  std::unique_ptr<DeviceInputs> Inputs = std::make_unique<DeviceInputs>();
  std::vector<DeviceLinkJob> Jobs;
  HostLinkInfo Host;
  /// Everything the device links and the registration are made of: equal
  /// descriptions, equal links.
  std::string Description;
  /// CPU device links take every host library, static archives included.
  bool EveryLibrary = false;

  /// True if the images are registered by an input already, or there are
  /// none: the host link needs nothing of ours (but the runtime, when an
  /// input calls its registration).
  bool registersNothing() const;
  /// True if a job links OpenMP images: the host link needs the runtime.
  bool linksOpenMP() const;
};

/// Finds the device code in the \p Loaded inputs, plus what it needs from
/// archive members the host left out, and groups it into device links;
/// says once per link (\p Warned) what the options naming a triple or a
/// runtime miss.
llvm::Expected<DeviceWork> findDeviceWork(const LinkCommandLine &CL,
                                          const LoadedInputs &Loaded,
                                          const LinkInputs &Named,
                                          llvm::StringSet<> &Warned);

/// Builds each job's command line, and takes what \p Cache (when given)
/// has of it: the registration object that holds its image, or the image;
/// writes out the images of the links that run. On a dry run, says what
/// would be linked and what the cache would give.
llvm::Expected<std::vector<PreparedDeviceLink>>
prepareDeviceLinks(const LinkCommandLine &CL, const DeviceWork &Work,
                   const WorkDir &Dir, DeviceLinkCache *Cache);

/// Starts sending the images of the \p Links that ran, and needed no
/// archive they left out, to the cache's server, if it has one: beside the
/// host link.
void uploadCompleteDeviceLinks(DeviceLinkCache &Cache,
                               llvm::ArrayRef<PreparedDeviceLink> Links);

/// Keeps the images of the \p Links that ran in \p Cache (and sends those
/// that left an archive out to its server), and prunes it. What cannot be
/// kept is a warning.
void keepDeviceLinks(DeviceLinkCache &Cache,
                     llvm::ArrayRef<PreparedDeviceLink> Links);

/// The libraries the host link gets beside the registration objects of
/// \p Links: the CUDA device runtime (libcudadevrt.a) with nvcc's code.
std::vector<std::string> hostLibraries(const LinkCommandLine &CL,
                                       llvm::ArrayRef<PreparedDeviceLink> Links);

/// Builds the objects that register the linked images at startup (one per
/// offload kind) and returns the host link's arguments for them: the
/// objects, hostLibraries(), and the scripts a relocatable output or a
/// large fat binary needs, after \p Keep (keepEntries()). Objects of
/// cached images come from \p Cache, when given, and are kept there.
llvm::Expected<std::vector<std::string>>
registerImages(const LinkCommandLine &CL, const DeviceWork &Work,
               llvm::ArrayRef<PreparedDeviceLink> Links, const WorkDir &Dir,
               DeviceLinkCache *Cache, std::vector<std::string> Keep);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICEWORK_H

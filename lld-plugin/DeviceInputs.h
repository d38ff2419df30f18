//===- lld-plugin/DeviceInputs.h - Device code in a link's inputs -*- C++ -*-=//
//
// Finds the device images in the files a host link loads. Which files and
// archive members those are is LLD's decision (search paths, linker scripts,
// --as-needed, lazy archive extraction...): a probe link asks LLD to --trace
// them, and only what it loaded is searched for device code.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICEINPUTS_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICEINPUTS_H

#include "format/FindOffloadBinaries.h"

#include "llvm/ADT/StringMap.h"

#include <optional>

namespace offload {

/// A device image found in a host link input.
struct DeviceImage {
  const OffloadImage *Image;
  /// "a.o", "lib.a(m.o)": the input it came from.
  std::string Input;
  /// Where in that input, for messages.
  std::string Where;
};

/// The device code of a link's loaded inputs.
class DeviceInputs {
public:
  /// Searches the inputs named by an LLD --trace (one file or
  /// "archive(member)" per line) for device code.
  llvm::Error scanTracedInputs(llvm::ArrayRef<std::string> Traced);

  /// Device images, in link order.
  llvm::ArrayRef<DeviceImage> images() const { return Images; }

  /// The input that already registers device images (clang-linker-wrapper's
  /// wrapper object, an offload-wrapper object): set when the link needs no
  /// registration of ours.
  const std::optional<std::string> &alreadyRegisteredBy() const {
    return RegisteredBy;
  }

private:
  llvm::Error scanInput(llvm::MemoryBufferRef Buffer, llvm::StringRef Name);
  llvm::Expected<llvm::MemoryBufferRef> archiveMember(llvm::StringRef Archive,
                                                      llvm::StringRef Member);

  OffloadBinaryFinder Finder;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Files;
  llvm::StringMap<std::unique_ptr<llvm::object::Archive>> Archives;
  /// Members already taken from each archive, for duplicate member names.
  llvm::StringMap<unsigned> MembersTaken;
  std::vector<DeviceImage> Images;
  std::optional<std::string> RegisteredBy;
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICEINPUTS_H

//===- lld-plugin/DeviceLinkKey.h - What names one device link --*- C++ -*-===//
//
// A device link is named by its offload kind, its triple and its arch
// (target ID): the key that groups images while they are found
// (DeviceInputs) and the jobs that are planned (DeviceLinkJob). One type,
// one spelling of each: name() in messages, fileName() in work files.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICELINKKEY_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICELINKKEY_H

#include "format/OffloadBinary.h"

#include "llvm/TargetParser/Triple.h"

#include <string>
#include <tuple>

namespace offload {

/// The offload kind, triple and arch of one device link.
struct DeviceLinkKey {
  OffloadKind Kind = OffloadKind::None;
  /// Normalized (Triple::normalize).
  llvm::Triple TargetTriple;
  /// As the images say it; "" or "generic" for the triple's generic arch.
  std::string Arch;

  /// The key of the images \p Image is one of: its kind, its normalized
  /// triple, its arch as given.
  static DeviceLinkKey of(const OffloadImage &Image);

  /// "openmp-x86_64-pc-linux-gnu-generic": names temporary files and
  /// messages.
  std::string name() const;
  /// name() made safe for the names of the link's work files
  /// (safeFileNamePart, with room for ".<n>.<ext>"): an image's triple and
  /// arch come from whoever built it, and may hold "/" or "..". \p Changed,
  /// where given, says whether it differs from name().
  std::string fileName(bool *Changed = nullptr) const;

  /// Same offload kind and triple (spelled the same), whatever the arch.
  bool sameKindAndTriple(const DeviceLinkKey &Other) const {
    return Kind == Other.Kind && TargetTriple.str() == Other.TargetTriple.str();
  }

  friend bool operator<(const DeviceLinkKey &A, const DeviceLinkKey &B) {
    return std::make_tuple(A.Kind, llvm::StringRef(A.TargetTriple.str()),
                           llvm::StringRef(A.Arch)) <
           std::make_tuple(B.Kind, llvm::StringRef(B.TargetTriple.str()),
                           llvm::StringRef(B.Arch));
  }
  friend bool operator==(const DeviceLinkKey &A, const DeviceLinkKey &B) {
    return A.sameKindAndTriple(B) && A.Arch == B.Arch;
  }
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICELINKKEY_H

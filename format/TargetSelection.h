//===- format/TargetSelection.h - Which images a request keeps -*- C++ -*-===//
//
// The one rule of which device images a user's choice of targets keeps, for
// offload-prune and the linker's --offload-arch= alike. A request is a list
// of target IDs (--offload-arch=) and/or triples (--offload-targets=); given
// the images of one container (an OffloadBinary section, a bundle), it says
// which of them are kept:
// * a target ID without features (gfx90a) keeps every image of its processor
//   (gfx90a, gfx90a:xnack+, gfx90a:xnack-);
// * a target ID with features (gfx90a:xnack+) keeps the images
//   clang-offload-bundler's rule finds compatible (isTargetIDCompatible():
//   gfx90a:xnack+ and gfx90a), never a conflicting one;
// * an AMDGPU generic image (gfx9-generic, ...) serves a requested member
//   processor when the container has no image for it, and is kept when the
//   generic target itself is requested;
// * with KeepNewestPTX, the PTX image of the newest CUDA architecture is kept
//   too, so that later GPUs can compile it;
// * with triples only, every image of those triples is kept; with both, an
//   image must be of a requested triple, and of a requested target ID where
//   some requested ID is a processor of that triple's architecture.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_TARGETSELECTION_H
#define LLD_OFFLOAD_FORMAT_TARGETSELECTION_H

#include "format/BundleEntryID.h"
#include "format/OffloadBinary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"

#include <string>
#include <vector>

namespace offload {

/// The AMDGPU generic target whose code runs on \p Processor (gfx9-generic
/// for gfx906), or "" if there is none; from the one table of generic
/// targets and their members, as LLVM's AMDGPUUsage lists them.
llvm::StringRef getAMDGPUGenericTarget(llvm::StringRef Processor);

/// The processors that the generic target \p Generic serves, in the order
/// AMDGPUUsage lists them; empty if \p Generic is no generic target.
std::vector<llvm::StringRef> getAMDGPUGenericMembers(llvm::StringRef Generic);

/// What a user asks to keep.
struct TargetRequest {
  /// --offload-arch= values, parsed.
  std::vector<TargetID> Archs;
  /// --offload-targets= values.
  std::vector<llvm::Triple> Triples;
  /// --keep-ptx: also keep the newest PTX image of each container.
  bool KeepNewestPTX = false;

  /// Parses the target IDs \p Archs and triples \p Triples (single values,
  /// already split at commas). An empty value, a malformed target ID or a
  /// triple with an unknown architecture is an error naming it; so is a
  /// request naming nothing.
  static llvm::Expected<TargetRequest>
  create(llvm::ArrayRef<std::string> Archs, llvm::ArrayRef<std::string> Triples,
         bool KeepNewestPTX = false);
};

/// A device image as the rule sees it.
struct SelectableImage {
  ImageKind Kind = ImageKind::None;
  llvm::Triple TargetTriple;
  /// The target ID as stored (an OffloadBinary's arch=, the bundle entry
  /// ID's last field); "" when there is none.
  std::string TargetIDText;
};

/// Why an image is kept, or that it is not.
enum class SelectReason {
  NotRequested,
  /// It is for a requested target ID.
  Requested,
  /// It is the generic image serving a requested member processor that has
  /// no image of its own in the container.
  GenericForMember,
  /// It is the newest PTX (KeepNewestPTX).
  NewestPTX,
  /// It is of a requested triple, for which no target ID was requested.
  RequestedTriple,
};

/// "requested", "generic", "newest PTX", "triple": for listings.
std::string describeSelectReason(SelectReason Reason);

/// The rule's answer for one container.
struct ImageSelection {
  /// One per image, in the order given.
  std::vector<SelectReason> Reasons;
  /// One per requested target ID: whether it kept any image.
  std::vector<bool> ArchUsed;

  bool isKept(size_t Index) const {
    return Reasons[Index] != SelectReason::NotRequested;
  }
  size_t numKept() const;
};

/// Which of \p Images, the device images of one container, \p Request keeps.
ImageSelection selectImages(const TargetRequest &Request,
                            llvm::ArrayRef<SelectableImage> Images);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_TARGETSELECTION_H

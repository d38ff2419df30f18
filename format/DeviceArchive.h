//===- format/DeviceArchive.h - Heterogeneous device archives ---*- C++ -*-===//
//
// clang-offload-bundler -type=a -unbundle turns a static library of bundled
// objects (a heterogeneous device archive) into one archive per requested
// target, holding the compatible code object of every member, named as
// clang-offload-bundler 22 names them.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_DEVICEARCHIVE_H
#define LLD_OFFLOAD_FORMAT_DEVICEARCHIVE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace offload {

/// What to unbundle from an archive.
struct ArchiveUnbundleRequest {
  /// The archive to read.
  std::string Input;
  /// Requested targets (bundle entry IDs as given with -targets) and the
  /// archive to write for each, in the same order.
  std::vector<std::string> Targets;
  std::vector<std::string> Outputs;
  /// -allow-missing-bundles: an empty archive when nothing matches.
  bool AllowMissingBundles = false;
  /// -check-input-archive: refuse members whose code objects have
  /// conflicting target IDs.
  bool CheckInputArchive = false;
  /// -hip-openmp-compatible.
  bool HipOpenMPCompatible = false;
};

/// Writes one device archive per target (atomically: nothing is written if
/// any member is malformed). Errors name the archive, the member and the
/// problem.
llvm::Error unbundleArchive(const ArchiveUnbundleRequest &Request);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_DEVICEARCHIVE_H

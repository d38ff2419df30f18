//===- format/BundleEntryID.h - Offload bundle entry and target IDs -*- C++ -*-//
//
// A bundle entry ID names one entry of an offload bundle:
//   <offload kind>-<arch>-<vendor>-<os>-<environment>[-<target ID>]
// e.g. hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+ or host-x86_64-unknown-linux-gnu-.
// A target ID is <processor>(:<feature>(+|-))*. These are the rules
// clang-offload-bundler applies; the linker uses the same ones.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_BUNDLEENTRYID_H
#define LLD_OFFLOAD_FORMAT_BUNDLEENTRYID_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>
#include <string>

namespace offload {

/// A target ID split into its processor and features (sorted by name).
struct TargetID {
  std::string Processor;
  /// (feature, on) pairs; a feature not listed is "any".
  llvm::SmallVector<std::pair<std::string, bool>, 2> Features;

  /// Parses \p Text; an error names what is malformed (a feature without
  /// '+'/'-', a feature given twice).
  static llvm::Expected<TargetID> parse(llvm::StringRef Text);
  /// The canonical form: the processor and the features in alphabetical
  /// order.
  std::string str() const;
  /// The value of \p Feature: on, off, or std::nullopt for any.
  std::optional<bool> feature(llvm::StringRef Feature) const;
  /// True if \p Other sets the same features as this one (each on or off,
  /// not necessarily the same way): "gfx90a:xnack+" and "gfx90a:xnack-" do,
  /// "gfx90a" and "gfx90a:xnack+" do not.
  bool setsSameFeatures(const TargetID &Other) const;
  /// The first feature (by name) that this sets one way and \p Other the
  /// other way, if any: "gfx90a:xnack+" and "gfx90a:xnack-" give "xnack";
  /// then no code object can be compatible with both.
  std::optional<std::string> featureSetOtherwise(const TargetID &Other) const;
  /// Sets \p Feature on or off, keeping the features sorted by name.
  void setFeature(llvm::StringRef Feature, bool On);
};

/// clang-offload-bundler's check of target IDs that may not sit side by side
/// (its getConflictTargetIDCombination, behind -check-input-archive): taken
/// in sorted order, once each, an ID whose processor was seen before
/// conflicts when it sets a feature the first ID of that processor left
/// unset. An ID that does not parse (TargetID::parse) is skipped, as the
/// bundler skips it. The IDs may be whole bundle entry IDs; their
/// "processor" is then everything before the first ':', kind and triple
/// included. Returns the first conflicting pair (first seen, conflicting).
std::optional<std::pair<std::string, std::string>>
findConflictingTargetIDs(llvm::ArrayRef<llvm::StringRef> IDs);

/// True if a code object built for \p CodeObject can run on a processor
/// configured as \p Target: same processor, and every feature the code object
/// sets on or off is set the same way by the target; a feature it leaves unset
/// matches either setting. This is the rule clang-offload-bundler, comgr and
/// the HIP runtime apply to pick a code object, stated once here: unbundling
/// (isCodeObjectCompatible) and the device-link plan (an image joins each
/// link whose target ID it is compatible with) both ask it.
bool isTargetIDCompatible(const TargetID &CodeObject, const TargetID &Target);

/// A parsed bundle entry ID.
struct BundleEntryID {
  std::string Kind;
  llvm::Triple TargetTriple;
  /// The target ID, or "" when there is none (or the processor is unknown,
  /// as clang-offload-bundler treats it).
  std::string TargetIDText;

  /// Parses \p Text (five or six '-'-separated fields).
  static llvm::Expected<BundleEntryID> parse(llvm::StringRef Text);
  /// The normalized ID: the triple with four fields (three and an empty
  /// environment for AMDHSA, as its runtimes expect), then the target ID.
  std::string str() const;
  bool isHost() const { return Kind == "host"; }
  /// host, openmp, hip and hipv4 are the kinds bundles hold.
  bool hasKnownKind() const;
};

/// Whether a code object's entry \p CodeObject may serve a request for
/// \p Target: kinds equal or compatible (hip and hipv4 always; with
/// \p HipOpenMPCompatible also hip* and openmp), triples compatible, target
/// IDs compatible.
bool isCodeObjectCompatible(const BundleEntryID &CodeObject,
                            const BundleEntryID &Target,
                            bool HipOpenMPCompatible = false);

/// True if \p Processor is an AMDGPU or NVPTX processor LLVM knows, i.e. one
/// that a target ID can name.
bool isKnownOffloadProcessor(llvm::StringRef Processor);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_BUNDLEENTRYID_H

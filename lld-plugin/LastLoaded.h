//===- lld-plugin/LastLoaded.h - What the last same link loaded -*- C++ -*-===//
//
// A link whose archives hold device code must know which members LLD takes
// before it can plan its device links, and asking LLD (the probe) costs a
// symbol resolution: most of what a relink with cached device links costs
// beyond the plain host link. With the device-link cache on, a link
// remembers what its host link loaded, under a key of its command line and
// its archives' identities; the next link of the same command line over the
// same archives (a relink after a change to an object) plans from that
// instead of asking. It is a guess, checked as every plan is: the host
// link's trace must show the same device code, and no member with device
// code may be there because of the registration objects or the runtime
// (then the guess made itself true, where asking LLD first would not have
// taken the member: LLD's --why-extract says why each member was taken). A
// guess that fails is forgotten, and the link asks LLD as if there were
// none: the output never depends on the cache's state.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_LASTLOADED_H
#define LLD_OFFLOAD_LLDPLUGIN_LASTLOADED_H

#include "lld-plugin/RunLLD.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace offload {

class DeviceLinkCache;
class LLDCommandLine;
class LinkInputs;

/// The key of what a link with LLD's arguments \p LLD, run in this
/// directory, loads: those arguments but the ones that name outputs (a
/// probe's), and the identities (size, modification time, inode) of the
/// archives \p Named names.
std::string lastLoadedKey(const LLDCommandLine &LLD, const LinkInputs &Named);

/// What the last link under \p Key loaded, if \p Cache remembers it. A
/// record that cannot be read is none.
std::optional<LoadedInputs> recallLastLoaded(DeviceLinkCache &Cache,
                                             llvm::StringRef Key);

/// Remembers \p Loaded under \p Key.
llvm::Error rememberLastLoaded(DeviceLinkCache &Cache, llvm::StringRef Key,
                               const LoadedInputs &Loaded);

/// True if LLD's --why-extract report \p WhyExtract shows a member with
/// device code (\p HoldsDeviceCode) taken, directly or through other
/// members, for a file that the command line (\p Named) does not name (a
/// registration object, the runtime): one that a link without them would
/// not take.
bool registrationTookDeviceCode(
    llvm::StringRef WhyExtract, const LinkInputs &Named,
    llvm::function_ref<bool(llvm::StringRef)> HoldsDeviceCode);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_LASTLOADED_H

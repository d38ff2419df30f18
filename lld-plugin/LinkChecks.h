//===- lld-plugin/LinkChecks.h - Options checked against the plan -*- C++ -*-=//
//
// What a link's options miss, said before any device link runs: a triple
// no device link is for, a device library that is not there, an OpenMP
// runtime that cannot serve device code, an offload runtime the host link
// will not find. And the arguments that add that runtime to the host link.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_LINKCHECKS_H
#define LLD_OFFLOAD_LLDPLUGIN_LINKCHECKS_H

#include "lld-plugin/DevicePlan.h"
#include "lld-plugin/LinkOptions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace offload {

/// The OpenMP offload runtime for a final link whose command line lacks it:
/// from --offload-runtime-path=<dir> when given, else searched last in the
/// LLVM library directory. Empty for a relocatable link or one that names
/// the runtime.
std::vector<std::string> runtimeArguments(const LinkCommandLine &CL);

/// Checks \p CL's options against the device links \p Jobs: an error for
/// what would fail later with a worse message (a missing device library,
/// libgomp with OpenMP device code, an offload runtime LLD will not find),
/// and the warnings to print (options naming a triple no link is for).
llvm::Expected<std::vector<std::string>>
checkLinkOptions(const LinkCommandLine &CL, llvm::ArrayRef<DeviceLinkJob> Jobs);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_LINKCHECKS_H

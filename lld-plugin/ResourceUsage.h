//===- lld-plugin/ResourceUsage.h - The linked kernels' resources -*- C++ -*-=//
//
// --offload-resource-usage[=<file>]: with relocatable device code and device
// LTO, a kernel's registers, spills, LDS, scratch and occupancy are only
// known once its device link has run. After the device links, the kernels
// of the code objects they made are shown as offload-inspect --resources
// shows them: a table on stderr, or JSON in a file for CI to compare
// between commits.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_RESOURCEUSAGE_H
#define LLD_OFFLOAD_LLDPLUGIN_RESOURCEUSAGE_H

#include "lld-plugin/DeviceLink.h"

#include "llvm/Support/raw_ostream.h"

namespace offload {

/// Reports the kernels of \p Links' outputs (linked or taken from the
/// device-link cache) as \p Options ask: a table on \p Log, JSON written
/// atomically into the file named. Each link's kernels are under
/// "<Output>: device link <job>". A code object that cannot be read is left
/// out and its error given to \p Warn; a file that cannot be written is an
/// error.
llvm::Error reportResourceUsage(llvm::ArrayRef<PreparedDeviceLink> Links,
                                const OffloadOptions &Options,
                                llvm::StringRef Output, llvm::raw_ostream &Log,
                                llvm::function_ref<void(llvm::Error)> Warn);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_RESOURCEUSAGE_H

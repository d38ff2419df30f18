//===- lld-plugin/DeviceLinkDistributor.h - Device links on a farm -*- C++ -*-//
//
// Device links that miss the cache can run on a build farm's machines,
// through the program that already distributes the host's ThinLTO backend
// jobs for LLD: a DTLTO distributor (LLD 22's --thinlto-distributor=, or
// ours, --offload-distributor=). It is given a JSON file of jobs in LLD's
// format, {"common": {"linker_output", "args", "inputs"}, "jobs": [{"args",
// "inputs", "outputs"}]}, runs common.args + job.args of each job wherever
// it likes, and leaves the outputs in place.
//
// A job is one whole AMDGPU device link, for one arch: the remote compiler
// (clang) runs the link LLD runs here, each of its arguments given with
// -Xlinker, so the image is the bytes of the local link. An NVPTX link with
// LTO sends its LTO, clang's NVPTX link stopped at the PTX (--lto-emit-asm),
// then in a second round its ptxas, clang's driver assembling that PTX: the
// PTX and the cubin are ours byte for byte. nvlink runs here: it notes its
// -L directories in the cubin, and clang's link gives it the remote
// machine's. A CPU link stays here: a few milliseconds of LLD next to a
// process start on a farm, and it needs the host's libraries. Paths in the
// jobs are relative to the work directory, where the distributor is
// started; files outside it (device libraries) are named by absolute paths,
// for the distributor to bring along.
//
// Whatever goes wrong out there (no distributor, an exit status, a hang
// past the timeout, an output missing or of the wrong kind) leaves those
// links to run here, with one warning: the link is never wrong, nor failed,
// by the farm.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICELINKDISTRIBUTOR_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICELINKDISTRIBUTOR_H

#include "lld-plugin/DeviceLink.h"
#include "lld-plugin/LinkOptions.h"

#include <optional>
#include <string>
#include <vector>

namespace offload {

/// Where device links are sent, and the command that runs them there.
struct DeviceLinkDistributor {
  std::string Program;
  std::vector<std::string> Args;
  /// The remote compiler and its arguments before and after the job's.
  std::string RemoteCompiler;
  std::vector<std::string> PrependArgs, CompilerArgs;
  unsigned TimeoutSeconds = 600;
  /// The link's output, as the JSON's common.linker_output names it.
  std::string LinkerOutput;
};

/// The distributor the link names: --offload-distributor= (none with
/// "none"), else LLD's --thinlto-distributor=; its remote compiler is LLD's
/// --thinlto-remote-compiler= or, by default, \p DefaultCompiler (the clang
/// of the LLVM this linker was built with).
std::optional<DeviceLinkDistributor>
findDeviceLinkDistributor(const LinkCommandLine &CL,
                          llvm::StringRef DefaultCompiler);

/// Whether \p Link would be sent: an AMDGPU link, or an NVPTX link with
/// LTO, that the cache did not have.
bool isDistributed(const PreparedDeviceLink &Link);

/// The JSON of the jobs for the links of \p Links that are sent, with paths
/// relative to \p Dir, a file per round: the first, and the ptxas of the
/// NVPTX links whose LTO it sends (once that is back).
std::vector<std::string> distributorJSON(const DeviceLinkDistributor &D,
                                         llvm::ArrayRef<PreparedDeviceLink> Links,
                                         const WorkDir &Dir);

/// Sends the links of \p Links that are sent to the distributor, waits for
/// it (at most its timeout) and marks those whose outputs are there and of
/// the right kind as done (PreparedDeviceLink::Distributed; an NVPTX link
/// as taken so far, NVPTXLinkRequest::Given: its LTO, then in a second
/// round its ptxas). A fault is one
/// warning; the others are left to run here.
void distributeDeviceLinks(const DeviceLinkDistributor &D,
                           llvm::MutableArrayRef<PreparedDeviceLink> Links,
                           const WorkDir &Dir, bool Verbose);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICELINKDISTRIBUTOR_H

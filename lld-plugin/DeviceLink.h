//===- lld-plugin/DeviceLink.h - Linking device images ----------*- C++ -*-===//
//
// A CPU device link is an LLD link of the images into a shared object
// (-shared -Bsymbolic), with LTO when they are bitcode, and, when the device
// is the host's own kind of CPU, with the C runtime files and libraries of the
// host link, as clang gives them to the device link upstream. Links run
// in-process one after the other, or in parallel in worker processes
// (LLD cannot run twice at once in one process).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICELINK_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICELINK_H

#include "lld-plugin/DeviceLinkLibraries.h"
#include "lld-plugin/DevicePlan.h"
#include "lld-plugin/HostLinkInfo.h"
#include "lld-plugin/LinkOptions.h"
#include "lld-plugin/NVPTXLinkRequest.h"
#include "lld-plugin/RunLLD.h"
#include "lld-plugin/SPIRVLink.h"
#include "lld-plugin/WorkDir.h"

#include <map>

namespace offload {

/// How a prepared device link runs: the one answer that the passes which
/// run, describe or send device links switch on.
enum class DeviceLinkRunner {
  /// LLD, with Args: in this process, or in a worker.
  LLD,
  /// Another program (the CUDA toolkit's nvlink), with Args.
  Program,
  /// Our NVPTX link (NVPTXLinkRequest): in this process, or in a worker.
  NVPTX,
  /// Our SPIR-V link (SPIRVLinkRequest): in this process only.
  SPIRV,
};

/// One command of a device link, for --offload-verbose and
/// --offload-dry-run.
struct DeviceLinkCommand {
  std::string Program;
  std::vector<std::string> Args;
};

/// A device link ready to run: LLD's arguments (or another program's, for
/// targets LLD does not link), or an NVPTX or SPIR-V link's request, and
/// its output.
struct PreparedDeviceLink {
  const DeviceLinkJob *Job;
  /// The program to run; empty for LLD or an NVPTX link, in this process
  /// or a worker.
  std::string Program;
  /// An NVPTX link with bitcode (NVPTXLink.h), run by us: no Args. A worker
  /// gets it in a request file.
  std::optional<NVPTXLinkRequest> NVPTX;
  /// A SPIR-V link (SPIRVLink.h), run by us in this process: no Args.
  std::optional<SPIRVLinkRequest> SPIRV;
  /// Its arguments as planned, each with what it is: what the cache key is
  /// made of (for an NVPTX request, its parts).
  std::vector<DeviceLinkArg> Planned;
  /// The command line (spell(Planned)); none for an NVPTX request.
  std::vector<std::string> Args;
  /// Its images, each an input at a path of the work directory: written
  /// only when the link runs (writeInputs()), not when the cache has its
  /// output; the cache key reads them here.
  std::vector<std::pair<std::string, llvm::StringRef>> Unwritten;
  std::string Output;
  /// With nvcc's relocatable device code: the file where nvlink lists the
  /// nvcc modules it linked (--register-link-binaries), each one a
  /// DEFINE_REGISTER_FUNC(<module ID>) line, for the registration.
  std::string NvccModuleList;
  /// The modules nvlink is given as fat binaries (of `ld -r` outputs), by
  /// the ID it lists each under (format/NvccModule.h,
  /// nvlinkModuleIDOfPath()).
  std::map<std::string, std::string> NvccFatbinModules;
  /// A CPU device link first run without the host's static archives
  /// (DeviceLinkLibraries.h): its libraries, and the arguments with every
  /// one, for the run again when an archive is needed. Args trace what the
  /// link loads, into Trace once it has run.
  DeviceLinkLibraries Libraries;
  std::vector<std::string> FullArgs;
  std::string Trace;
  /// Its output came from the device-link cache, under CacheKey: nothing
  /// to run.
  bool Cached = false;
  std::string CacheKey;
  /// A distributor linked it, elsewhere (DeviceLinkDistributor.h): its
  /// output is there, nothing to run.
  bool Distributed = false;
  /// What the cache had, kept in memory (the entry, and the image in it),
  /// written to the work directory only for a tool that reads files. None
  /// when the cache keeps the registration object that holds the image:
  /// then the image is not read at all (readOutput() fails).
  std::unique_ptr<llvm::MemoryBuffer> CachedEntry;
  llvm::StringRef CachedImage;

  bool omitsArchives() const { return Libraries.omitsAny(); }
  /// How it runs.
  DeviceLinkRunner runner() const;
  /// What runs it, for messages ("LLD", "nvlink", "the SPIR-V link (...)").
  std::string runnerName() const;
  /// The commands it runs, as --offload-verbose prints them.
  std::vector<DeviceLinkCommand> commands() const;
  /// True if it links nvcc's relocatable device code (NvccModuleList).
  bool linksNvccModules() const { return !NvccModuleList.empty(); }
  /// Writes the Unwritten inputs.
  llvm::Error writeInputs();
  /// Reads each bitcode image as LTO will: one that does not parse is an
  /// error naming where it is, before LTO sees it (a broken size in it can
  /// make LTO allocate until it aborts). Only for links that run: an image
  /// the cache has linked before parsed then.
  llvm::Error checkBitcodeInputs() const;
  /// Its output image: what the cache had, or the file Output. An error
  /// names the file.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readOutput() const;
  /// Makes the file Output hold the image, for a tool that reads files.
  llvm::Error writeOutput() const;
};

/// True if a device link run without the host's static archives would have
/// taken a member of one (omittedArchivesNeeded()): it must run again with
/// them. Reads files only: may run beside LLD.
bool omittedArchivesNeeded(llvm::ArrayRef<PreparedDeviceLink> Links);

/// The path of the CUDA toolkit's \p Tool under \p CudaPath, or an error
/// saying what is missing and how to point at a toolkit.
llvm::Expected<std::string> findCudaTool(llvm::StringRef CudaPath,
                                         llvm::StringRef Tool);

/// Writes the job's images to \p Dir and builds its command line: LLD for
/// CPUs and AMDGPU, nvlink for NVPTX. A CPU device link with the host's
/// libraries leaves its static archives out, unless \p EveryLibrary.
llvm::Expected<PreparedDeviceLink>
prepareDeviceLink(const DeviceLinkJob &Job, const HostLinkInfo &Host,
                  const OffloadOptions &Options, const WorkDir &Dir,
                  bool EveryLibrary = false);

/// Runs the links, \p Options.Jobs at a time (or as many as GNU make's
/// jobserver allows). \p Self is this executable, started in worker mode for
/// parallel links. On failure the error names the job and its inputs and
/// carries LLD's messages. A link that leaves the host's static archives out
/// and fails runs again with them; one that succeeds keeps its trace.
llvm::Error runDeviceLinks(LLDSession &Session,
                           llvm::MutableArrayRef<PreparedDeviceLink> Links,
                           const OffloadOptions &Options, llvm::StringRef Self,
                           const WorkDir &Dir);

/// The argument that starts this executable as a device-link worker: the
/// arguments after it go to LLD as they are.
constexpr const char *WorkerFlag = "--offload-device-link-worker";
/// The environment variable that tells a worker its parent's process ID, so
/// that it can tell whether the parent died before the worker asked to die
/// with it (prctl's PR_SET_PDEATHSIG).
constexpr const char *WorkerParentVar = "LLD_OFFLOAD_WORKER_PARENT";

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICELINK_H

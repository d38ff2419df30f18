//===- lld-plugin/LinkOptions.h - The linker's command line -----*- C++ -*-===//
//
// ld.lld-offload takes ld.lld's command line plus options of its own, all of
// which start with --offload- (and --no-offload). Ours are taken out; the
// rest reach LLD untouched. Response files are expanded first, as LLD would.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_LINKOPTIONS_H
#define LLD_OFFLOAD_LLDPLUGIN_LINKOPTIONS_H

#include "lld-plugin/LLDCommandLine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace offload {

/// The environment variable that chooses the targets where link flags
/// cannot be added (--offload-arch=).
constexpr const char *OffloadArchVar = "LLD_OFFLOAD_ARCH";

/// What to do with device code in a relocatable (-r) link.
enum class RelocatableMode {
  /// Keep it fat: LLD merges the .llvm.offloading sections and a later link
  /// finds every image.
  Fat,
  /// Device-link and wrap now, into the relocatable output.
  Link,
};

/// Our options (--offload-*).
struct OffloadOptions {
  bool Disabled = false;     // --no-offload
  bool Verbose = false;      // --offload-verbose
  bool DryRun = false;       // --offload-dry-run
  bool SaveTemps = false;    // --offload-save-temps
  unsigned Jobs = 1;         // --offload-jobs=N
  bool UseJobserver = false; // --offload-jobs=jobserver
  RelocatableMode Relocatable = RelocatableMode::Fat;
  std::string RuntimePath; // --offload-runtime-path=
  /// The runtime path was given: the runtime is taken from there.
  bool RuntimePathGiven = false;
  /// --offload-device-linker-arg=[<triple>=]<arg>: (triple or "", arg).
  std::vector<std::pair<std::string, std::string>> DeviceLinkerArgs;
  /// --offload-arch=<target-id>[,...] (or LLD_OFFLOAD_ARCH) and
  /// --offload-targets=<triple>[,...]: the targets the link is for; empty:
  /// every target the inputs have (format/TargetSelection.h).
  std::vector<std::string> Archs, Targets;
  /// --offload-extract=<arch>: take device code of this arch from every
  /// archive member, used by the host or not.
  std::vector<std::string> ExtractArchs;
  /// --offload-device-lib=[<triple>=]<file>: device libraries (bitcode or
  /// archives) linked into the device links of a triple, or of all.
  std::vector<std::pair<std::string, std::string>> DeviceLibs;
  /// --offload-compress[=<level>]: compress HIP fat binaries (CCOB).
  bool Compress = false;
  int CompressionLevel = 3;
  /// --offload-compress-version=2|3.
  uint16_t CompressionVersion = 3;
  /// --offload-distributor=<program>|none and --offload-distributor-arg=:
  /// the DTLTO distributor device links are sent to
  /// (DeviceLinkDistributor.h); LLD's --thinlto-distributor= when not
  /// given, "none" for no distributor.
  std::optional<std::string> Distributor;
  std::vector<std::string> DistributorArgs;
  /// --offload-distributor-timeout=<seconds>: how long the distributor may
  /// take before its jobs run here.
  unsigned DistributorTimeout = 600;
  /// --offload-cuda-path=<dir>: the CUDA toolkit (nvlink, fatbinary).
  std::string CudaPath = "/usr/local/cuda";
  /// --offload-large-fatbin-threshold=<bytes>: fat binaries this large are
  /// placed after .bss, out of the way of small-code-model references.
  uint64_t LargeFatbinThreshold = 1ULL << 30;
  /// --offload-cache-dir=<dir>: keep linked device images there
  /// (DeviceLinkCache.h); LLD_OFFLOAD_CACHE_DIR when not given.
  std::string CacheDir;
  /// --offload-cache-policy=<policy>: how the cache is pruned, in the
  /// syntax of --thinlto-cache-policy.
  std::string CachePolicy;
  /// --offload-remote-cache=<url>|<attr>=<value>...: the cache's HTTP tier
  /// (RemoteCache.h); LLD_OFFLOAD_REMOTE_CACHE when not given.
  std::string RemoteCache;
  /// --offload-resource-usage: the linked kernels' resources as a table on
  /// stderr; --offload-resource-usage=<file>: as JSON in <file>.
  bool PrintResourceUsage = false;
  std::string ResourceUsageFile;
};

/// The command line split in two.
struct LinkCommandLine {
  OffloadOptions Offload;
  /// LLD's arguments, without argv[0], and LLD's reading of them.
  LLDCommandLine LLD;
  /// What LLD's reading says of the link (LLDCommandLine's answers, asked
  /// once): the host link's output (-o), "a.out" by default.
  std::string Output = "a.out";
  bool Relocatable = false; // -r
  bool Shared = false;      // -shared
  /// Informational runs (--version, --help): nothing to link.
  bool InfoOnly = false;
  /// -v or -V: the version first; nothing to link without input files.
  bool PrintsVersion = false;
  /// --help: our overview and options, then LLD's (printInfo).
  bool Help = false;
};

/// Expands response files and splits \p Args (argv without argv[0]).
/// \p DefaultRuntimePath is where -lomptarget is looked for last.
llvm::Expected<LinkCommandLine>
parseLinkCommandLine(llvm::ArrayRef<const char *> Args,
                     llvm::StringRef DefaultRuntimePath);

/// "<LLD's version line>, ld.lld-offload (lld-offload <version>)\n": what
/// -v, -V and --version print.
std::string versionLine();

/// What --version, --help, or -v without input files print: \p LLDOut
/// (what LLD printed for them) with versionLine() in place of LLD's own
/// version line and, for --help (\p Help), our overview and options first.
void printInfo(llvm::raw_ostream &OS, llvm::StringRef LLDOut, bool Help);

/// True if \p LLD already links the OpenMP offload runtime.
inline bool linksOffloadRuntime(const LLDCommandLine &LLD) {
  return LLD.namesLibrary("omptarget");
}

/// What to do when LLVM's offload runtime (libomptarget.so, libomp.so) is
/// not found, for the messages that say so.
constexpr const char *OffloadRuntimeAdvice =
    "install liboffload and libomp (Debian: liboffload-22-dev, "
    "libomp-22-dev), or give their directory with "
    "--offload-runtime-path=<dir>";

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_LINKOPTIONS_H

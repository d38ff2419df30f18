//===- lld-plugin/NVPTXLinkRequest.h - What an NVPTX link does --*- C++ -*-===//
//
// One NVPTX device link with LTO (NVPTXLink.h), as data: planned by the
// device link, run by linkNVPTX() in this process, or handed to a worker
// process (this executable again) in a request file. The file is MessagePack
// (LLVM's BinaryFormat/MsgPack): paths are bytes, not text, and go through
// unchanged, which JSON's UTF-8 strings would not promise.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_NVPTXLINKREQUEST_H
#define LLD_OFFLOAD_LLDPLUGIN_NVPTXLINKREQUEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace offload {

/// One NVPTX device link.
struct NVPTXLinkRequest {
  /// The CUDA toolkit (bin/ptxas, bin/nvlink).
  std::string CudaPath;
  /// "sm_90".
  std::string Arch;
  /// The linked cubin; intermediates are written next to it.
  std::string Output;
  /// Bitcode files and cubins, in link order.
  std::vector<std::string> Inputs;
  /// Device libraries: bitcode files (linked whole) and archives of bitcode
  /// (members linked when they define a symbol the link needs).
  std::vector<std::string> Libraries;
  /// More arguments for nvlink (--offload-device-linker-arg).
  std::vector<std::string> NVLinkArgs;
  /// How far a distributor's machines took the link (DeviceLinkDistributor.h):
  /// to the PTX (ptxFile() holds it: ptxas and nvlink remain) or to the
  /// relocatable cubin (ltoCubinFile(): nvlink remains).
  enum class Stage : uint8_t { None, PTX, Cubin };
  Stage Given = Stage::None;

  /// The PTX that LTO writes, and the relocatable cubin ptxas makes of it.
  std::string ptxFile() const { return Output + ".lto.s"; }
  std::string ltoCubinFile() const { return Output + ".lto.cubin"; }
  /// The CUDA toolkit's \p Tool ("ptxas", "nvlink").
  std::string toolPath(llvm::StringRef Tool) const;
  /// ptxas's arguments, from ptxFile() to ltoCubinFile().
  std::vector<std::string> ptxasArgs() const;
  /// nvlink's arguments over \p Cubins (ltoCubinFile() first when LTO made
  /// code).
  std::vector<std::string> nvlinkArgs(llvm::ArrayRef<std::string> Cubins) const;

  /// One step of the link, for --offload-verbose and --offload-dry-run: a
  /// program and its arguments. "LTO" is our own, in this process or the
  /// worker: its "--lib=" arguments are the device libraries.
  struct Step {
    std::string Program;
    std::vector<std::string> Args;
  };
  /// LTO, ptxas, nvlink (those not Given). Which inputs are bitcode is read
  /// from the files, as linkNVPTX() does: they must be written. At run time
  /// LTO and ptxas are skipped when LTO has nothing to compile (no bitcode
  /// input, and nothing the cubins need from the libraries).
  std::vector<Step> steps() const;
};

/// Writes \p Request to the file \p Path, for a worker.
llvm::Error writeNVPTXLinkRequest(const NVPTXLinkRequest &Request,
                                  llvm::StringRef Path);
/// Reads the request in the file \p Path (writeNVPTXLinkRequest()); errors
/// name the file.
llvm::Expected<NVPTXLinkRequest> readNVPTXLinkRequest(llvm::StringRef Path);

/// The argument that starts ld.lld-offload as an NVPTX link worker; the
/// one argument after it is the path of a request file.
constexpr const char *NVPTXWorkerFlag = "--offload-nvptx-link-worker";

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_NVPTXLINKREQUEST_H

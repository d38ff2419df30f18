//===- lld-plugin/LinkChecks.h - Options checked against the plan -*- C++ -*-=//
//
// What a link's options miss, said before any device link runs: a triple
// no device link is for, a device library that is not there, an OpenMP
// runtime that cannot serve device code, an offload runtime the host link
// will not find. And the arguments that add that runtime to the host link.
// The CUDA and HIP runtimes are the command line's to link, and anything
// the link loads may define what the registration calls (a stand-in
// object, a linker script's input): their absence is said once the host
// link shows it.
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

#include "llvm/Support/raw_ostream.h"

#include <string>

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

/// A stream of LLD's messages that says them at once, but for its errors
/// for undefined symbols (their line, its ">>> " lines, and the empty line
/// after them), which it holds in \p Held for takeMissingRuntimeErrors()
/// (a fatal error ends the process from one of LLD's threads: what a
/// stream held would be lost with it).
class UndefinedSymbolErrors : public llvm::raw_ostream {
public:
  UndefinedSymbolErrors(llvm::raw_ostream &To, std::string &Held)
      : To(To), Held(Held) {
    SetUnbuffered();
  }
  ~UndefinedSymbolErrors() override { flush(); }

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Pos; }

  llvm::raw_ostream &To;
  std::string &Held;
  std::string Line;
  bool InError = false;
  uint64_t Pos = 0;
};

/// LLD's messages \p Messages, of a host link that failed, with its errors
/// for the registration functions of the \p Kind (CUDA or HIP) runtime that
/// no input defines taken out: each names the registration object, a work
/// file gone after the link, and none says what is missing. The error that
/// takes their place names the runtime library and the option that links
/// it; success if \p Messages has none.
llvm::Error takeMissingRuntimeErrors(std::string &Messages, OffloadKind Kind,
                                     const OffloadOptions &Opts);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_LINKCHECKS_H

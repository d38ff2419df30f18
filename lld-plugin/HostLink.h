//===- lld-plugin/HostLink.h - The host link and LLD's answers --*- C++ -*-===//
//
// The host link as the command line asks for it, plus what ld.lld-offload
// adds (registration objects, scripts, the runtime); the probe that asks LLD
// what a link loads; what LLD prints for --version and --help; and the
// --time-trace that covers ours and LLD's passes alike.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_HOSTLINK_H
#define LLD_OFFLOAD_LLDPLUGIN_HOSTLINK_H

#include "lld-plugin/LinkOptions.h"
#include "lld-plugin/RunLLD.h"
#include "lld-plugin/WorkDir.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TimeProfiler.h"

#include <chrono>
#include <string>
#include <vector>

namespace offload {

class DeviceInputs;

/// The name messages start with.
constexpr const char *ToolName = "ld.lld-offload";

/// Says \p E as an error of ours; returns 1, the link's status.
int reportError(llvm::Error E);
/// Says \p E as a warning of ours.
void reportWarning(llvm::Error E);

/// "ld.lld-offload: <What>: <Program> <Args...>", quoted as a shell would.
void printCommand(llvm::StringRef What, llvm::ArrayRef<std::string> Args,
                  llvm::StringRef Program = "ld.lld");

/// Times one pass: into the time trace when one is recorded, and onto
/// stderr under --offload-verbose.
class Pass {
public:
  Pass(llvm::StringRef Name, bool Verbose);
  ~Pass();

private:
  llvm::StringRef Name;
  bool Verbose;
  llvm::TimeTraceScope Scope;
  std::chrono::steady_clock::time_point Start;
};

/// --time-trace covers the whole link, ours and LLD's passes alike: the
/// options are taken from LLD's arguments, the profiler runs here, and
/// LLD's own scopes record into it. Written when this goes.
class TimeTrace {
public:
  explicit TimeTrace(LinkCommandLine &CL);
  ~TimeTrace();

private:
  bool Enabled = false;
  std::string File, Output;
};

/// The host link as asked for, plus \p Extra. With \p Traced, LLD also
/// reports what the link loads, into \p Traced (inputs under \p Dir, ours,
/// left out), and its standard output is printed only if the command line
/// asked for --trace itself. LLD's messages go to \p Err. Returns LLD's
/// status.
int linkHost(LLDSession &Session, const LinkCommandLine &CL,
             llvm::ArrayRef<std::string> Extra, const WorkDir *Dir = nullptr,
             LoadedInputs *Traced = nullptr,
             llvm::raw_ostream &Err = llvm::errs());

/// What LLD prints for an informational command line (--version, --help),
/// with what is ours added. Returns LLD's status.
int printInfo(LLDSession &Session, const LinkCommandLine &CL);

/// Asks LLD what the link loads (a probe that stops once symbols are
/// resolved), for the reason \p Why. A host link that fails fails here,
/// with LLD's messages.
llvm::Expected<LoadedInputs> askLLD(LLDSession &Session,
                                    const LinkCommandLine &CL,
                                    const WorkDir &Dir, llvm::StringRef Why);

/// What keeps the inputs' offload entries, and what they name, as they are
/// in the host link: under --gc-sections, the entries themselves
/// (KeepEntriesScript); under --icf=all, the distinct addresses of the
/// symbols they name (\p Inputs' entryTargets(), when given), which the
/// runtime maps to kernels and variables: two kernels' identical CUDA stubs
/// would be folded into one. Nothing otherwise.
llvm::Expected<std::vector<std::string>>
keepEntries(const LinkCommandLine &CL, const WorkDir &Dir,
            const DeviceInputs *Inputs);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_HOSTLINK_H

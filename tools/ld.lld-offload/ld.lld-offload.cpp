//===- ld.lld-offload.cpp - LLD with an offload extension -----------------===//
//
// ld.lld's command line, and the link it asks for, plus the device code the
// inputs carry. The link is lld-plugin's link() (Link.cpp), as ld.lld's is
// lld::elf::link; here are the process's start and end, and the worker
// modes that parallel device links run this executable in.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DeviceLink.h"
#include "lld-plugin/HostLink.h"
#include "lld-plugin/Link.h"
#include "lld-plugin/NVPTXLink.h"
#include "lld-plugin/RemoteCache.h"
#include "lld-plugin/RunLLD.h"
#include "support/CrashReport.h"
#include "support/MappedFileFaults.h"

#include "llvm/Support/Compiler.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

using namespace llvm;
using namespace offload;

#if LLVM_ADDRESS_SANITIZER_BUILD
// The sanitizer build (docs/sanitizers.md) of the executable that runs LLD
// carries what is known to be wrong inside Debian's uninstrumented LLD 22, so
// that a run by hand reports what a test run reports: only our findings.
// LLD's writeArchiveStats() (--print-archive-stats, which the probe and the
// traced host link pass to learn every archive searched) keys a map with a
// view of a temporary string, freed at once, when an archive gave nothing;
// naming that archive again (clang's -lgcc ... -lgcc) compares against the
// freed bytes, through ASan's memcmp interceptor. Only the member counts
// depend on that comparison; the archive paths we read do not.
extern "C" const char *__asan_default_suppressions() {
  return "interceptor_via_fun:writeArchiveStats\n";
}
#endif

/// A worker dies with the link that started it, rather than go on writing
/// into a work directory that is being removed; also when that link died
/// before the worker got here.
static void dieWithParent() {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char *Parent = getenv(WorkerParentVar);
  if (Parent && std::to_string(getppid()) != Parent)
    _exit(1);
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  // A full disk under a memory-mapped output is an error, not a crash.
  reportMappedFileFaults(ToolName);
  // A crash in LLD, in any of its threads, is an error that says where.
  reportCrashes(ToolName);
  // LLD's process state, for every run of LLD in this process.
  LLDSession Session;
  bool Worker = Argc > 1 && (StringRef(Argv[1]) == WorkerFlag ||
                             StringRef(Argv[1]) == NVPTXWorkerFlag);
  if (Worker)
    dieWithParent();
  // A parallel device link runs here, in a worker process of its own.
  if (Argc > 1 && StringRef(Argv[1]) == WorkerFlag) {
    std::vector<std::string> Args(Argv + 2, Argv + Argc);
    return Session.run(Args, outs(), errs());
  }
  // A parallel NVPTX link with LTO, likewise: its request is in a file.
  if (Argc > 1 && StringRef(Argv[1]) == NVPTXWorkerFlag) {
    Expected<NVPTXLinkRequest> Request =
        Argc == 3 ? readNVPTXLinkRequest(Argv[2])
                  : Expected<NVPTXLinkRequest>(createStringError(
                        inconvertibleErrorCode(),
                        Twine(NVPTXWorkerFlag) +
                            " takes one argument: a request file"));
    Error E = Request ? linkNVPTX(*Request) : Request.takeError();
    if (!E)
      return 0;
    WithColor::error(errs(), ToolName) << toString(std::move(E)) << "\n";
    return 1;
  }
  std::string Self = sys::fs::getMainExecutable(Argv[0], (void *)&dieWithParent);
  // The arguments, copied; then the remote cache's secrets masked where a
  // crash report (and ps) would show them.
  std::vector<std::string> Owned(Argv + 1, Argv + Argc);
  std::vector<const char *> Args;
  for (const std::string &A : Owned)
    Args.push_back(A.c_str());
  for (int I = 1; I < Argc; ++I)
    maskRemoteCacheSecrets(Argv[I]);
  int Status = link(Args, Self, Session);
  // The link is done and what it made is in place: end as ld.lld ends,
  // without freeing LLD's state (destructors of its threads' allocations,
  // 10-20 ms of a large link), which the exit frees whole; LLVM's reports
  // at shutdown (-time-passes) still printed. Sanitizer builds end as
  // programs do, so that leaks are still looked for.
#if !LLVM_ADDRESS_SANITIZER_BUILD
  llvm_shutdown();
  outs().flush();
  errs().flush();
  sys::Process::Exit(Status, /*NoCleanup=*/true);
#endif
  return Status;
}

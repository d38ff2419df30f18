//===- fuzz/fuzz-device-link.cpp - ld.lld-offload's device link fuzzer ----===//
//
// Links the input, taken as an OpenMP device image for the host's CPU (an
// ELF object, or bitcode when it starts with its magic), through
// ld.lld-offload's device-link path: planDeviceLinks, prepareDeviceLink and
// runDeviceLinks, which run LLD in-process on one thread under crash
// recovery. Each input is linked in a child process of its own (LLD cannot
// run again after a fatal error or a crash). The rules the linker keeps,
// and whose breach is a finding (abort):
//   - the child ends with an exit code, never a signal;
//   - a failed link is an error that says which device link failed.
// Seeds: device images extracted from clang-22's OpenMP objects (fuzz/run.sh).
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DeviceInputs.h"
#include "lld-plugin/DeviceLink.h"
#include "lld-plugin/DevicePlan.h"
#include "lld-plugin/WorkDir.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace offload;

/// Exit codes of the child.
enum : int { Linked = 0, Refused = 1, Silent = 3 };

static int linkInChild(const uint8_t *Data, size_t Size) {
  StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  DeviceImage Image;
  Image.Image.TheOffloadKind = OffloadKind::OpenMP;
  Image.Image.TheImageKind =
      Bytes.starts_with("BC") ? ImageKind::Bitcode : ImageKind::Object;
  Image.Image.Image = Bytes;
  Image.Image.Strings = {{"triple", "x86_64-pc-linux-gnu"},
                         {"arch", "generic"}};
  Image.Input = "fuzz";
  Image.Where = "fuzz:.llvm.offloading+0x0";
  std::vector<DeviceImage> Images = {Image};
  Expected<std::vector<DeviceLinkJob>> Jobs = planDeviceLinks(Images, {});
  if (!Jobs) {
    consumeError(Jobs.takeError());
    return Refused;
  }
  Expected<std::unique_ptr<WorkDir>> Dir = WorkDir::create("fuzz", false);
  if (!Dir) {
    consumeError(Dir.takeError());
    return Refused;
  }
  HostLinkInfo Host;
  Host.HostTriple = Triple("x86_64-pc-linux-gnu");
  OffloadOptions Options;
  Options.RuntimePath = "/usr/lib/llvm-22/lib";
  std::vector<PreparedDeviceLink> Links;
  for (const DeviceLinkJob &Job : *Jobs) {
    Expected<PreparedDeviceLink> Link =
        prepareDeviceLink(Job, Host, Options, **Dir);
    if (!Link) {
      consumeError(Link.takeError());
      return Refused;
    }
    Links.push_back(std::move(*Link));
  }
  Error E = runDeviceLinks(Links, Options, "", **Dir);
  if (!E)
    return Linked;
  std::string Message = toString(std::move(E));
  // The error names the device link and has something to say after it.
  if (StringRef(Message).contains("device link for ") &&
      StringRef(Message).rtrim().size() > 40)
    return Refused;
  return Silent;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  pid_t Child = fork();
  if (Child < 0)
    return 0;
  if (Child == 0)
    _exit(linkInChild(Data, Size));
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0)
    ;
  if (WIFSIGNALED(Status) || WEXITSTATUS(Status) == Silent)
    abort(); // a finding: a signal, or an error that says nothing
  return 0;
}

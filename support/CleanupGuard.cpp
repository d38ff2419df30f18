//===- support/CleanupGuard.cpp - Cleaning up after a killed link ---------===//
//
// The helper reads one line from a socket whose other end only this process
// holds: "done" when the link cleaned up itself; end of file, without it,
// when the link ended any other way. Then it removes what it was given.
//
//===----------------------------------------------------------------------===//

#include "support/CleanupGuard.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace llvm;

namespace offload {

/// The helper: $1 is the work directory ("" for none), $2 the output. A
/// device-link worker or a CUDA tool may still be writing into the work
/// directory for a moment after the link died: it is removed until gone.
static const char HelperScript[] =
    "PATH=/usr/bin:/bin\n"
    "read -r said\n"
    "[ \"$said\" = done ] && exit 0\n"
    "n=0\n"
    "while [ -n \"$1\" ] && [ -e \"$1\" ] && [ $n -lt 100 ]; do\n"
    "  rm -rf -- \"$1\"\n"
    "  [ -e \"$1\" ] && sleep 0.02\n"
    "  n=$((n + 1))\n"
    "done\n"
    "x='[0-9a-f]'\n"
    "rm -f -- \"$2\".tmp$x$x$x$x$x$x$x\n";

static Error helperError(int Errno) {
  return createStringError(std::error_code(Errno, std::generic_category()),
                           "cannot start the clean-up helper (/bin/sh): %s",
                           strerror(Errno));
}

Expected<std::unique_ptr<CleanupGuard>> CleanupGuard::start(StringRef Output,
                                                            StringRef WorkDir) {
  // The helper does not follow a later change of directory.
  SmallString<256> Out(Output), Dir(WorkDir);
  sys::fs::make_absolute(Out);
  if (!Dir.empty())
    sys::fs::make_absolute(Dir);

  int Fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, Fds) != 0)
    return helperError(errno);

  // Its standard input is the socket; standard output and error stay; every
  // other descriptor (a make jobserver's pipe among them) is closed.
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_adddup2(&Actions, Fds[1], STDIN_FILENO);
  posix_spawn_file_actions_addclosefrom_np(&Actions, STDERR_FILENO + 1);
  // A session of its own, out of reach of signals to the link's process
  // group, and the signals that stop a job blocked for good.
  posix_spawnattr_t Attr;
  posix_spawnattr_init(&Attr);
  sigset_t Blocked;
  sigemptyset(&Blocked);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN,
                  SIGTTOU, SIGUSR1, SIGUSR2})
    sigaddset(&Blocked, Sig);
  posix_spawnattr_setsigmask(&Attr, &Blocked);
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);

  const char *Argv[] = {
      "sh",        "-c",        HelperScript, "ld.lld-offload-cleanup",
      Dir.c_str(), Out.c_str(), nullptr};
  pid_t Pid;
  int Err = ::posix_spawn(&Pid, "/bin/sh", &Actions, &Attr,
                          const_cast<char *const *>(Argv), environ);
  posix_spawnattr_destroy(&Attr);
  posix_spawn_file_actions_destroy(&Actions);
  ::close(Fds[1]);
  if (Err) {
    ::close(Fds[0]);
    return helperError(Err);
  }
  return std::unique_ptr<CleanupGuard>(new CleanupGuard(Fds[0]));
}

CleanupGuard::~CleanupGuard() {
  // MSG_NOSIGNAL: a helper that is gone must not end us with SIGPIPE.
  static const char Done[] = "done\n";
  while (::send(Socket, Done, sizeof(Done) - 1, MSG_NOSIGNAL) < 0 &&
         errno == EINTR) {
  }
  ::close(Socket);
}

} // namespace offload

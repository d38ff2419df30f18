//===- support/CleanupGuard.cpp - Cleaning up after a killed process ------===//
//
// The parent sends records over a socket: an operation byte, a path, a NUL.
// The helper reads until the socket closes, which happens however the parent
// ends; only a 'q' record (sent by the destructor) means it ended cleanly.
//
//===----------------------------------------------------------------------===//

#include "support/CleanupGuard.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace offload {

namespace {
enum Op : char { RemoveDirectory = 'd', RemoveOutputTemps = 'o', Done = 'q' };
} // namespace

/// Whether \p Name is a FileOutputBuffer temporary of the output \p Base.
static bool isOutputTemporary(StringRef Name, StringRef Base) {
  return Name.consume_front(Base) && Name.consume_front(".tmp") &&
         Name.size() == 7 && llvm::all_of(Name, [](char C) {
           return isDigit(C) || (C >= 'a' && C <= 'f');
         });
}

static void removeTemporariesOf(StringRef Output) {
  StringRef Dir = sys::path::parent_path(Output);
  StringRef Base = sys::path::filename(Output);
  std::error_code EC;
  for (sys::fs::directory_iterator I(Dir.empty() ? "." : Dir, EC), E;
       I != E && !EC; I.increment(EC))
    if (isOutputTemporary(sys::path::filename(I->path()), Base))
      sys::fs::remove(I->path());
}

static void removeTree(StringRef Dir) {
  // A device-link worker or a CUDA tool may still be writing into it for a
  // moment after its parent died: try again while the directory is there.
  for (int Try = 0; Try != 100 && sys::fs::exists(Dir); ++Try) {
    sys::fs::remove_directories(Dir, /*IgnoreErrors=*/true);
    if (sys::fs::exists(Dir))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// Keeps standard output and error and \p Socket (moved to descriptor 3);
/// closes the rest, a make jobserver's pipe among them.
static int keepOnlyStdioAnd(int Socket) {
  if (Socket != 3) {
    ::dup2(Socket, 3);
    ::close(Socket);
  }
  int Null = ::open("/dev/null", O_RDONLY);
  if (Null >= 0 && Null != STDIN_FILENO) {
    ::dup2(Null, STDIN_FILENO);
    ::close(Null);
  }
  if (::close_range(4, ~0U, 0) != 0)
    for (long FD = 4, Max = sysconf(_SC_OPEN_MAX); FD < Max && FD < 65536; ++FD)
      ::close(FD);
  return 3;
}

/// The helper. It starts with every signal blocked (see start()), ignores
/// those that would end it, and only then takes the parent's mask \p Mask:
/// a signal sent in between is discarded, not acted on.
[[noreturn]] static void runHelper(int Socket, const sigset_t &Mask) {
  for (int Sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN,
                  SIGTTOU, SIGUSR1, SIGUSR2})
    ::signal(Sig, SIG_IGN);
  ::pthread_sigmask(SIG_SETMASK, &Mask, nullptr);
  // Out of the parent's process group, so that a signal to the whole group
  // (a build system stopping a job) leaves the helper to clean up.
  ::setsid();
  Socket = keepOnlyStdioAnd(Socket);

  std::string Records;
  char Buf[4096];
  for (;;) {
    ssize_t N = ::read(Socket, Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Records.append(Buf, N);
  }
  std::vector<std::pair<char, StringRef>> Paths;
  bool Clean = false;
  for (StringRef Rest = Records; !Rest.empty();) {
    auto [Record, Next] = Rest.split('\0');
    Rest = Next;
    if (Record.empty())
      continue;
    if (Record[0] == Done)
      Clean = true;
    else
      Paths.push_back({Record[0], Record.drop_front()});
  }
  if (!Clean)
    for (auto [Operation, Path] : Paths) {
      if (Operation == RemoveDirectory)
        removeTree(Path);
      else if (Operation == RemoveOutputTemps)
        removeTemporariesOf(Path);
    }
  ::_exit(0);
}

Expected<std::unique_ptr<CleanupGuard>> CleanupGuard::start() {
  int Fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, Fds) != 0)
    return createStringError(std::error_code(errno, std::generic_category()),
                             "cannot start the clean-up helper: %s",
                             strerror(errno));
  // Signals wait until the helper ignores them (runHelper); here, until the
  // fork is done, so that none is lost.
  sigset_t All, Mask;
  sigfillset(&All);
  ::pthread_sigmask(SIG_SETMASK, &All, &Mask);
  pid_t Pid = ::fork();
  if (Pid == 0) {
    ::close(Fds[0]);
    runHelper(Fds[1], Mask);
  }
  int Errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &Mask, nullptr);
  ::close(Fds[1]);
  if (Pid < 0) {
    ::close(Fds[0]);
    return createStringError(std::error_code(Errno, std::generic_category()),
                             "cannot start the clean-up helper: %s",
                             strerror(Errno));
  }
  return std::unique_ptr<CleanupGuard>(new CleanupGuard(Fds[0]));
}

CleanupGuard::~CleanupGuard() {
  send(Done, "");
  ::close(Socket);
}

void CleanupGuard::send(char Operation, StringRef Path) {
  // The helper does not follow a later change of directory.
  SmallString<256> Absolute(Path);
  if (!Absolute.empty())
    sys::fs::make_absolute(Absolute);
  std::string Record = Operation + Absolute.str().str();
  Record.push_back('\0');
  StringRef Rest = Record;
  while (!Rest.empty()) {
    // MSG_NOSIGNAL: a helper that is gone must not kill us with SIGPIPE.
    ssize_t N = ::send(Socket, Rest.data(), Rest.size(), MSG_NOSIGNAL);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    Rest = Rest.drop_front(N);
  }
}

void CleanupGuard::removeDirectory(StringRef Dir) {
  send(RemoveDirectory, Dir);
}

void CleanupGuard::removeOutputTemporaries(StringRef Output) {
  send(RemoveOutputTemps, Output);
}

} // namespace offload

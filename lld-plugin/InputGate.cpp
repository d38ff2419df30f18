//===- lld-plugin/InputGate.cpp - An input the host link waits for --------===//

#include "lld-plugin/InputGate.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace offload {

/// What a shut gate gives LLD: not an object, so a linker script, and not
/// one (LLD says "unknown directive", an error, not a fatal one).
static const char StopLine[] =
    "ld.lld-offload: this link stops here and is done again\n";

static Error pipeError(StringRef Path, StringRef What) {
  return createStringError(std::error_code(errno, std::generic_category()),
                           "%s: %s: %s", Path.str().c_str(), What.str().c_str(),
                           strerror(errno));
}

static Error restore(StringRef Path, StringRef Bytes) {
  ::unlink(Path.str().c_str());
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  if (!EC) {
    OS << Bytes;
    OS.close();
    EC = OS.error();
  }
  return EC ? createFileError(Path, EC) : Error::success();
}

Expected<std::unique_ptr<InputGate>>
InputGate::create(StringRef Path, std::function<bool()> Decide) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!File)
    return createFileError(Path, File.getError());
  std::unique_ptr<InputGate> Gate(
      new InputGate(Path.str(), (*File)->getBuffer().str()));
  File->reset();
  std::string P = Path.str();
  if (::unlink(P.c_str()) != 0)
    return pipeError(Path, "cannot remove");
  // Read and write: the pipe lives while the gate holds it, whether or not
  // LLD has opened it yet, and LLD's open does not block.
  if (::mkfifo(P.c_str(), 0600) != 0 ||
      (Gate->Pipe = ::open(P.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0 ||
      (Gate->Stop = ::eventfd(0, EFD_CLOEXEC)) < 0) {
    Error E = pipeError(Path, "cannot make a named pipe");
    if (Gate->Pipe >= 0)
      ::close(Gate->Pipe);
    Gate->Pipe = -1;
    Gate->Finished = true;
    return joinErrors(std::move(E), restore(Path, Gate->Bytes));
  }
  // Fewer turns between the gate and LLD for a large object.
  (void)::fcntl(Gate->Pipe, F_SETPIPE_SZ, 1 << 20);
  Gate->Thread = std::thread(&InputGate::run, Gate.get(), std::move(Decide));
  return std::move(Gate);
}

InputGate::~InputGate() {
  if (!Finished)
    (void)finish();
}

void InputGate::run(std::function<bool()> Decide) {
  Opened = Decide();
  Messages.decide(Opened);
  feed(Opened ? StringRef(Bytes) : StringRef(StopLine));
  // LLD reads to the end: the end is when no one holds the pipe for writing.
  ::close(Pipe);
}

bool InputGate::feed(StringRef Data) {
  size_t Done = 0;
  for (;;) {
    bool Written = Done == Data.size();
    if (Written) {
      // Everything read: LLD holds it now.
      int Unread = 0;
      if (::ioctl(Pipe, FIONREAD, &Unread) != 0 || Unread == 0)
        return true;
    }
    struct pollfd Fds[2] = {{Pipe, short(Written ? 0 : POLLOUT), 0},
                            {Stop, POLLIN, 0}};
    // Until LLD has read the rest, look again now and then.
    struct timespec Again = {0, 100 * 1000};
    int N = ::ppoll(Fds, 2, Written ? &Again : nullptr, nullptr);
    if (N < 0 && errno != EINTR)
      return false;
    if (N <= 0)
      continue;
    if (Fds[1].revents)
      return false; // LLD is done without it
    if (!Written && (Fds[0].revents & POLLOUT)) {
      ssize_t W = ::write(Pipe, Data.data() + Done, Data.size() - Done);
      if (W < 0 && errno != EAGAIN && errno != EINTR)
        return false;
      if (W > 0)
        Done += W;
    }
  }
}

bool InputGate::finish() {
  if (Finished)
    return Opened;
  Finished = true;
  uint64_t One = 1;
  (void)!::write(Stop, &One, sizeof(One));
  Thread.join();
  ::close(Stop);
  // The work directory as it would be without the gate.
  consumeError(restore(Path, Bytes));
  return Opened;
}

void InputGate::HeldMessages::decide(bool IsOpen) {
  std::lock_guard<std::mutex> Guard(Lock);
  Decided = true;
  Open = IsOpen;
  if (!Open)
    return;
  errs() << Held;
  Held.clear();
  Held.shrink_to_fit();
}

void InputGate::HeldMessages::write_impl(const char *Ptr, size_t Size) {
  std::lock_guard<std::mutex> Guard(Lock);
  Pos += Size;
  if (Decided && Open)
    errs().write(Ptr, Size);
  else
    Held.append(Ptr, Size);
}

} // namespace offload

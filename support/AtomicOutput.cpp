//===- support/AtomicOutput.cpp - Outputs that appear whole or not at all -===//

#include "support/AtomicOutput.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <unistd.h>

using namespace llvm;

namespace offload {

static Error fileError(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "'" + Path + "': " + Msg);
}

static std::string errnoMessage(int Errno) {
  return std::error_code(Errno, std::generic_category()).message();
}

/// Runs \p Write on a stream to \p FD and flushes it; a failed write (a full
/// disk) is reported here, since left in the stream it would make its
/// destructor abort with "LLVM ERROR: IO failure".
static Error writeToFD(int FD, StringRef Path,
                       function_ref<Error(OutputFileStream &)> Write) {
  OutputFileStream OS(FD);
  Error E = Write(OS);
  OS.flush();
  std::error_code EC = OS.error();
  OS.clear_error();
  if (E)
    return E;
  if (EC)
    return fileError(Path, "write failed: " + EC.message());
  return Error::success();
}

/// Gives the anonymous file open as \p FD the name \p Name: 0, or an errno.
static int linkAnonymousFile(int FD, const std::string &Name) {
  std::string Self = "/proc/self/fd/" + std::to_string(FD);
  if (::linkat(AT_FDCWD, Self.c_str(), AT_FDCWD, Name.c_str(),
               AT_SYMLINK_FOLLOW) == 0)
    return 0;
  if (errno != ENOENT)
    return errno;
  // No /proc: linking a descriptor directly needs CAP_DAC_READ_SEARCH.
  if (::linkat(FD, "", AT_FDCWD, Name.c_str(), AT_EMPTY_PATH) == 0)
    return 0;
  return errno;
}

/// Puts the complete anonymous file \p FD in place as \p Path: under that
/// name directly when nothing is there, else under a temporary name renamed
/// over what is there (a rename replaces atomically; a link cannot).
static Error publishAnonymousFile(int FD, StringRef Path) {
  int Err = linkAnonymousFile(FD, Path.str());
  if (Err == 0)
    return Error::success();
  if (Err != EEXIST)
    return fileError(Path, "cannot create: " + errnoMessage(Err));
  for (int Try = 0; Try != 128; ++Try) {
    SmallString<128> Temp;
    sys::fs::createUniquePath(Path + ".tmp-%%%%%%%%", Temp,
                              /*MakeAbsolute=*/false);
    Err = linkAnonymousFile(FD, Temp.str().str());
    if (Err == EEXIST)
      continue;
    if (Err)
      return fileError(Path,
                       "cannot create a temporary file: " + errnoMessage(Err));
    // Named for the moment between the link and the rename.
    sys::RemoveFileOnSignal(Temp);
    std::error_code EC = sys::fs::rename(Temp, Path);
    if (EC)
      sys::fs::remove(Temp);
    sys::DontRemoveFileOnSignal(Temp);
    if (EC)
      return fileError(Path, "cannot rename the temporary file into place: " +
                                 EC.message());
    return Error::success();
  }
  return fileError(Path,
                   "cannot create a temporary file: " + errnoMessage(EEXIST));
}

/// The fallback for file systems without anonymous files: a named temporary
/// file, removed on failure and on catchable signals, renamed into place.
static Error
writeThroughNamedFile(StringRef Path,
                      function_ref<Error(OutputFileStream &)> Write) {
  Expected<sys::fs::TempFile> Temp =
      sys::fs::TempFile::create(Path + ".tmp-%%%%%%%%");
  if (!Temp)
    return fileError(Path, "cannot create a temporary file: " +
                               toString(Temp.takeError()));
  if (Error E = writeToFD(Temp->FD, Path, Write))
    return joinErrors(std::move(E), Temp->discard());
  if (Error E = Temp->keep(Path))
    return fileError(Path, "cannot rename the temporary file into place: " +
                               toString(std::move(E)));
  return Error::success();
}

Error writeFileAtomically(StringRef Path,
                          function_ref<Error(OutputFileStream &)> Write) {
  if (Path == "-") {
    outs().flush();
    OutputFileStream Stdout(STDOUT_FILENO);
    if (Error E = Write(Stdout))
      return E;
    Stdout.flush();
    return Error::success();
  }

  // The new file lives in the destination's directory so that putting it in
  // place never crosses file systems. It has no name until it is complete:
  // whatever ends this process, an unnamed file disappears with it.
  SmallString<128> Dir = sys::path::parent_path(Path);
  if (Dir.empty())
    Dir = ".";
  int FD = ::open(Dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (FD < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
    return writeThroughNamedFile(Path, Write);
  if (FD < 0)
    return fileError(Path,
                     "cannot create a temporary file: " + errnoMessage(errno));
  scope_exit Close([&] { ::close(FD); });
  if (Error E = writeToFD(FD, Path, Write))
    return E;
  return publishAnonymousFile(FD, Path);
}

Error writeFileAtomically(StringRef Path, StringRef Data) {
  return writeFileAtomically(Path, [&](raw_ostream &OS) {
    OS << Data;
    return Error::success();
  });
}

Error writeFileDirectly(StringRef Path, StringRef Data) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (!EC) {
    OS << Data;
    OS.close();
    EC = OS.error();
    OS.clear_error();
  }
  if (EC)
    return createStringError(EC, "cannot write '%s': %s", Path.str().c_str(),
                             EC.message().c_str());
  return Error::success();
}

} // namespace offload

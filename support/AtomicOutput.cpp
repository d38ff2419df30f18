//===- support/AtomicOutput.cpp - Outputs that appear whole or not at all -===//

#include "support/AtomicOutput.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <unistd.h>

using namespace llvm;

namespace offload {

static Error fileError(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "'" + Path + "': " + Msg);
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

  // The temporary file must stay in the destination's directory so that the
  // final rename never crosses file systems.
  Expected<sys::fs::TempFile> Temp =
      sys::fs::TempFile::create(Path + ".tmp-%%%%%%%%");
  if (!Temp)
    return fileError(Path, "cannot create a temporary file: " +
                               toString(Temp.takeError()));

  Error Result = [&]() -> Error {
    OutputFileStream OS(Temp->FD);
    Error E = Write(OS);
    OS.flush();
    // A failed write (a full disk) is reported here; left in the stream, it
    // would make its destructor abort with "LLVM ERROR: IO failure".
    std::error_code EC = OS.error();
    OS.clear_error();
    if (E)
      return E;
    if (EC)
      return fileError(Path, "write failed: " + EC.message());
    return Error::success();
  }();

  if (Result)
    return joinErrors(std::move(Result), Temp->discard());
  if (Error E = Temp->keep(Path))
    return fileError(Path, "cannot rename the temporary file into place: " +
                               toString(std::move(E)));
  return Error::success();
}

Error writeFileAtomically(StringRef Path, StringRef Data) {
  return writeFileAtomically(Path, [&](raw_ostream &OS) {
    OS << Data;
    return Error::success();
  });
}

} // namespace offload

//===- support/FileCopy.cpp - Reading and copying file ranges -------------===//

#include "support/FileCopy.h"

#include <cerrno>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace offload {

static Error copyError(StringRef InName, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "'" + InName + "': " + Msg);
}

Error readFileRange(int FD, uint64_t Offset, MutableArrayRef<char> To) {
  for (size_t Done = 0; Done < To.size();) {
    ssize_t N = ::pread(FD, To.data() + Done, To.size() - Done, Offset + Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N == 0)
      return createStringError(inconvertibleErrorCode(),
                               "unexpected end of file");
    if (N < 0) {
      std::error_code EC(errno, std::generic_category());
      return createStringError(EC, "read failed: " + EC.message());
    }
    Done += N;
  }
  return Error::success();
}

Error appendFileRange(OutputFileStream &OS, int InFD, uint64_t Offset,
                      uint64_t Size, StringRef InName) {
  OS.flush();
  if (std::error_code EC = OS.error())
    return copyError(InName, "write failed: " + EC.message());
  int OutFD = OS.fd();
  off_t In = Offset;
#ifdef __linux__
  // The kernel copies (or shares extents) directly between the files.
  while (Size) {
    ssize_t N = ::copy_file_range(InFD, &In, OutFD, nullptr, Size, 0);
    if (N > 0) {
      Size -= N;
      continue;
    }
    if (N < 0 && errno == EINTR)
      continue;
    if (N == 0)
      return copyError(InName, "unexpected end of file");
    break; // not supported between these files: copy by hand
  }
#endif
  std::vector<char> Buffer(std::min<uint64_t>(Size, 1 << 20));
  while (Size) {
    size_t N = std::min<uint64_t>(Size, Buffer.size());
    if (Error E = readFileRange(InFD, In, MutableArrayRef(Buffer.data(), N)))
      return copyError(InName, toString(std::move(E)));
    for (size_t Done = 0; Done < N;) {
      ssize_t W = ::write(OutFD, Buffer.data() + Done, N - Done);
      if (W < 0 && errno == EINTR)
        continue;
      if (W <= 0)
        return copyError(InName, "copying to the output failed: " +
                                     std::error_code(W < 0 ? errno : ENOSPC,
                                                     std::generic_category())
                                         .message());
      Done += W;
    }
    In += N;
    Size -= N;
  }
  return Error::success();
}

} // namespace offload

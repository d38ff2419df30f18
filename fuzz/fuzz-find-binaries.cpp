//===- fuzz/fuzz-find-binaries.cpp - Discovery over arbitrary files -------===//
//
// Hands arbitrary bytes to OffloadBinaryFinder::addBuffer: ELF and COFF
// objects, archives (nested, thin), bitcode and raw binaries.
//
// Thin archives name files. The input's own relative member paths resolve
// under a directory that does not exist, so they fail to load; absolute
// paths, and the relative paths of a thin archive nested in a regular one
// (named by its member name, so resolved from the working directory), open
// whatever file they name, regular files only (see format/CheckedArchive.h).
// A thin archive holds data of its own only for its symbol and name tables;
// finding 10 of docs/fuzzing.md was a member that LLVM took for one.
//
// Top-level bitcode is skipped unless FUZZ_BITCODE is set in the environment:
// LLVM 22's bitcode reader (not ours) aborts on some malformed modules (it
// allocates whatever an attribute index in the file asks for), and those
// aborts would drown every other finding. See docs/fuzzing.md.
//
//===----------------------------------------------------------------------===//

#include "format/FindOffloadBinaries.h"

#include "llvm/Support/MemoryBuffer.h"

#include "llvm/BinaryFormat/Magic.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const bool FuzzBitcode = std::getenv("FUZZ_BITCODE") != nullptr;
  StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  if (!FuzzBitcode && identify_magic(Bytes) == file_magic::bitcode)
    return -1; // not worth adding to the corpus
  // Thin archives resolve member paths relative to the archive: give the
  // buffer a name in a directory that does not exist.
  std::unique_ptr<MemoryBuffer> Buffer = MemoryBuffer::getMemBuffer(
      Bytes, "/nonexistent-fuzz-dir/input", /*RequiresNullTerminator=*/false);
  offload::OffloadBinaryFinder Finder;
  if (Error E = Finder.addBuffer(*Buffer, "fuzz")) {
    consumeError(std::move(E));
    return 0;
  }
  volatile unsigned Sum = 0;
  for (const offload::FoundOffloadBinary &F : Finder.binaries()) {
    Sum += F.Origin.describe().size();
    for (const offload::OffloadImage &I : F.Binary.Images)
      if (!I.Image.empty())
        Sum += I.Image.front() + I.Image.back();
  }
  return 0;
}

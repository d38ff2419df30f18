//===- BundleReading.h - What offload-bundler reads ------------*- C++ -*-===//
//
// The inputs of offload-bundler and the bundles in them: an input file
// mapped and open (payloads are copied by the kernel), the entries of a
// bundled file (views, or parts of compressed bundles read as streams), and
// the -verbose statistics of compression, in LLVM's words.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_TOOLS_OFFLOAD_BUNDLER_BUNDLEREADING_H
#define LLD_OFFLOAD_TOOLS_OFFLOAD_BUNDLER_BUNDLEREADING_H

#include "format/CompressedBundle.h"
#include "format/OffloadBundle.h"
#include "support/AtomicOutput.h"
#include "support/FileCopy.h"
#include "tools/common/ToolSupport.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace offload::bundler {

using llvm::Error;
using llvm::Expected;
using llvm::MemoryBuffer;
using llvm::StringRef;
using offload::tool::fail;

/// An input: mapped (pages are read only where they are looked at) and, for
/// files, open, so that payloads are copied by the kernel, never read here.
struct InputFile {
  std::string Path;
  std::unique_ptr<MemoryBuffer> Buffer;
  int FD = -1;

  ~InputFile() {
    if (FD >= 0)
      llvm::sys::fs::closeFile(FD);
  }

  static Expected<std::unique_ptr<InputFile>> open(StringRef Path) {
    auto In = std::make_unique<InputFile>();
    In->Path = Path.str();
    Expected<std::unique_ptr<MemoryBuffer>> Buffer = tool::readInputFile(Path);
    if (!Buffer)
      return Buffer.takeError();
    In->Buffer = std::move(*Buffer);
    if (Path != "-") {
      Expected<llvm::sys::fs::file_t> FD =
          llvm::sys::fs::openNativeFileForRead(Path);
      if (!FD)
        return fail("'" + Path + "': " + toString(FD.takeError()));
      In->FD = *FD;
    }
    return std::move(In);
  }

  /// Appends \p Data, a view of this input's buffer, to \p OS.
  Error copy(OutputFileStream &OS, StringRef Data) const {
    if (FD < 0) {
      OS << Data;
      return Error::success();
    }
    return appendFileRange(OS, FD, Data.data() - Buffer->getBufferStart(),
                           Data.size(), Path);
  }

  /// Writes \p Data, a view of this input's buffer, to \p OS, read from the
  /// file a piece at a time (never through the mapping, whose pages would
  /// stay in memory).
  Error read(llvm::raw_ostream &OS, StringRef Data) const {
    if (FD < 0) {
      OS << Data;
      return Error::success();
    }
    constexpr size_t Chunk = 1 << 20;
    std::unique_ptr<char[]> Buffer(new char[Chunk]);
    uint64_t Offset = Data.data() - this->Buffer->getBufferStart();
    for (uint64_t Left = Data.size(); Left;) {
      size_t Want = static_cast<size_t>(std::min<uint64_t>(Left, Chunk));
      Expected<size_t> Got = llvm::sys::fs::readNativeFileSlice(
          FD, llvm::MutableArrayRef<char>(Buffer.get(), Want), Offset);
      if (!Got)
        return fail("'" + Path + "': " + toString(Got.takeError()));
      if (*Got == 0)
        return fail("'" + Path + "': file shrank while it was read (at " +
                    llvm::Twine(Offset) + ")");
      OS.write(Buffer.get(), *Got);
      Offset += *Got;
      Left -= *Got;
    }
    return Error::success();
  }

  /// True if \p Data is a view of this input's bytes.
  bool holds(StringRef Data) const {
    StringRef All = Buffer->getBuffer();
    return Data.data() >= All.data() && Data.end() <= All.end();
  }
};

/// A bundle entry as the tool sees it: its ID, and its bytes either in
/// memory (a view of the input or of inflated data) or in a compressed
/// bundle that is read as a stream (Part, Location).
struct Entry {
  std::string ID;
  std::optional<StringRef> Bytes;
  size_t Part = 0;
  BundleEntryLocation Location;
};

/// A compressed bundle holding a binary bundle, read as a stream: only its
/// header is inflated to list it, and its payloads as far as they are
/// written.
struct StreamedPart {
  StringRef Data;
  uint64_t Base = 0;
  uint64_t HeaderSize = 0;
};

/// What a bundled file holds.
struct BundleContents {
  std::vector<Entry> Entries;
  std::vector<StreamedPart> Parts;
  /// Inflated compressed bundles that are not binary bundles (text, objects);
  /// a deque, so that views of earlier ones stay valid.
  std::deque<llvm::SmallVector<char, 0>> Inflated;
};

/// The entries of a bundled file of \p Type. Compressed bundles (several may
/// follow each other) that hold binary bundles are read as streams: only
/// their headers are inflated here, unless \p VerifyNow (-list -verbose)
/// inflates them to the end to check their hashes. Others are inflated
/// whole.
Expected<BundleContents> readBundle(const BundleType &Type, StringRef Path,
                                    const MemoryBuffer &Input, bool Verbose,
                                    bool VerifyNow);

/// Seconds since \p Start.
double secondsSince(std::chrono::steady_clock::time_point Start);

/// -verbose: what was compressed and how, in LLVM's words.
void printCompressionStats(const CompressedBundleHeader &H,
                           uint64_t CompressedSize, int Level, double Seconds);

/// -verbose: the statistics of a compressed bundle inflated to its end by
/// \p Reader (with its hash on), then an error if the hash does not match.
Error reportInflated(CompressedBundleReader &Reader,
                     std::chrono::steady_clock::time_point Start);

} // namespace offload::bundler

#endif // LLD_OFFLOAD_TOOLS_OFFLOAD_BUNDLER_BUNDLEREADING_H

//===- BundleReading.cpp - What offload-bundler reads --------------------===//

#include "tools/offload-bundler/BundleReading.h"

#include "format/ObjectBundle.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace offload::tool;

namespace offload::bundler {

/// 1234567 -> "1,234,567", as LLVM prints sizes.
static std::string withCommas(uint64_t Value) {
  std::string Digits = std::to_string(Value);
  for (int At = static_cast<int>(Digits.size()) - 3; At > 0; At -= 3)
    Digits.insert(At, ",");
  return Digits;
}

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// -verbose: what was compressed and how, in LLVM's words.
void printCompressionStats(const CompressedBundleHeader &H,
                           uint64_t CompressedSize, int Level, double Seconds) {
  double Rate = double(H.UncompressedSize) / CompressedSize;
  errs() << "Compressed bundle format version: " << H.Version << "\n"
         << "Total file size (including headers): " << withCommas(*H.TotalSize)
         << " bytes\n"
         << "Compression method used: "
         << (H.Method == compression::Format::Zstd ? "zstd" : "zlib") << "\n"
         << "Compression level: " << Level << "\n"
         << "Binary size before compression: " << withCommas(H.UncompressedSize)
         << " bytes\n"
         << "Binary size after compression: " << withCommas(CompressedSize)
         << " bytes\n"
         << "Compression rate: " << format("%.2lf", Rate) << "\n"
         << "Compression ratio: " << format("%.2lf%%", 100.0 / Rate) << "\n"
         << "Compression speed: "
         << format("%.2lf MB/s", H.UncompressedSize / (1024.0 * 1024.0) /
                                     std::max(Seconds, 1e-9))
         << "\n"
         << "Truncated MD5 hash: " << format_hex(H.Hash, 16) << "\n";
}

/// -verbose: what was inflated, and whether its hash, \p Hash, matches.
static void printDecompressionStats(const CompressedBundleHeader &H,
                                    uint64_t Hash, double Seconds) {
  uint64_t CompressedSize =
      (H.TotalSize ? *H.TotalSize : H.HeaderSize) - H.HeaderSize;
  double Rate =
      double(H.UncompressedSize) / std::max<uint64_t>(CompressedSize, 1);
  errs() << "Compressed bundle format version: " << H.Version << "\n";
  if (H.TotalSize)
    errs() << "Total file size (from header): " << withCommas(*H.TotalSize)
           << " bytes\n";
  errs() << "Decompression method: "
         << (H.Method == compression::Format::Zlib ? "zlib" : "zstd") << "\n"
         << "Size before decompression: " << withCommas(CompressedSize)
         << " bytes\n"
         << "Size after decompression: " << withCommas(H.UncompressedSize)
         << " bytes\n"
         << "Compression rate: " << format("%.2lf", Rate) << "\n"
         << "Compression ratio: " << format("%.2lf%%", 100.0 / Rate) << "\n"
         << "Decompression speed: "
         << format("%.2lf MB/s", H.UncompressedSize / (1024.0 * 1024.0) /
                                     std::max(Seconds, 1e-9))
         << "\n"
         << "Stored hash: " << format_hex(H.Hash, 16) << "\n"
         << "Recalculated hash: " << format_hex(Hash, 16) << "\n"
         << "Hashes match: " << (Hash == H.Hash ? "Yes" : "No") << "\n";
}

/// -verbose: the statistics of a compressed bundle inflated to its end by
/// \p Reader (with its hash on), then an error if the hash does not match.
Error reportInflated(CompressedBundleReader &Reader,
                     std::chrono::steady_clock::time_point Start) {
  const CompressedBundleHeader &H = Reader.header();
  uint64_t Hash = Reader.hash();
  printDecompressionStats(H, Hash, secondsSince(Start));
  if (Hash != H.Hash)
    return fail(Reader.name() + ": compressed bundle: hash 0x" +
                utohexstr(H.Hash) + " does not match the inflated data");
  return Error::success();
}

/// Adds the entries of \p Data, uncompressed bundled data of \p Type, as
/// views.
static Error addEntries(const BundleType &Type, StringRef Path, StringRef Data,
                        BundleContents &Out) {
  auto Add = [&](ArrayRef<BundleEntry> Entries) {
    for (const BundleEntry &E : Entries)
      Out.Entries.push_back({E.ID.str(), E.Data, 0, {}});
  };
  if (Type.Layout == BundleLayout::Text) {
    Expected<std::vector<BundleEntry>> Entries =
        readTextBundle(Data, Type.Comment, Path);
    if (!Entries)
      return Entries.takeError();
    Add(*Entries);
    return Error::success();
  }
  if (Type.Layout == BundleLayout::Object &&
      identify_magic(Data) != file_magic::unknown && !isBinaryBundle(Data)) {
    Expected<std::vector<BundleEntry>> Entries =
        readObjectBundle(MemoryBufferRef(Data, Path));
    if (!Entries)
      return Entries.takeError();
    Add(*Entries);
    return Error::success();
  }
  // A file cut inside the header of its bundle is no bundle to
  // clang-offload-bundler 22: nothing is listed, and unbundling takes the
  // whole file for the host's. We do the same, and say why.
  if (Error E = checkBinaryBundleHeaderComplete(Data, Path)) {
    WithColor::warning(errs(), ToolName)
        << toString(std::move(E)) << "; the file is taken as not bundled\n";
    return Error::success();
  }
  // Binary bundles, several back to back: each begins with the magic after
  // the end of the previous one's payloads.
  StringRef Rest = Data;
  while (isBinaryBundle(Rest)) {
    Expected<std::vector<BundleEntry>> Entries = readBinaryBundle(Rest, Path);
    if (!Entries)
      return Entries.takeError();
    size_t End = 0;
    for (const BundleEntry &E : *Entries)
      End = std::max<size_t>(End, E.Data.end() - Rest.begin());
    Add(inBundlerOrder(*Entries));
    size_t Next = Rest.find(BundleMagic, std::max<size_t>(End, 1));
    if (Next == StringRef::npos)
      break;
    Rest = Rest.drop_front(Next);
  }
  return Error::success();
}

/// The entries of a bundled file of \p Type. Compressed bundles (several may
/// follow each other) that hold binary bundles are read as streams: only
/// their headers are inflated here, unless \p VerifyNow (-list -verbose)
/// inflates them to the end to check their hashes. Others are inflated
/// whole.
Expected<BundleContents> readBundle(const BundleType &Type, StringRef Path,
                                    const MemoryBuffer &Input, bool Verbose,
                                    bool VerifyNow) {
  BundleContents Out;
  StringRef All = Input.getBuffer();
  if (!isCompressedBundle(All)) {
    if (Error E = addEntries(Type, Path, All, Out))
      return std::move(E);
    return std::move(Out);
  }
  Expected<std::vector<StringRef>> Split = splitCompressedBundles(All, Path);
  if (!Split)
    return Split.takeError();
  for (StringRef Part : *Split) {
    uint64_t Base = Part.data() - All.data();
    auto Start = std::chrono::steady_clock::now();
    if (Type.Layout != BundleLayout::Text) {
      Expected<std::unique_ptr<CompressedBundleReader>> Reader =
          CompressedBundleReader::open(Part, Path, Base);
      if (!Reader)
        return Reader.takeError();
      (*Reader)->setInputIsFileMapping(Input.getBufferKind() ==
                                       MemoryBuffer::MemoryBuffer_MMap);
      if (VerifyNow)
        (*Reader)->enableHash();
      Expected<std::optional<BinaryBundleHeader>> Header =
          readInflatedBundleHeader(**Reader);
      if (!Header)
        return Header.takeError();
      if (*Header) {
        if (VerifyNow) {
          if (Error E = (*Reader)->finish())
            return std::move(E);
          if (Error E = reportInflated(**Reader, Start))
            return std::move(E);
        }
        size_t PartIndex = Out.Parts.size();
        Out.Parts.push_back({Part, Base, (*Header)->HeaderSize});
        for (size_t I : inBundlerOrder((*Header)->Entries)) {
          const BundleEntryLocation &L = (*Header)->Entries[I];
          Out.Entries.push_back({L.ID, std::nullopt, PartIndex, L});
        }
        continue;
      }
    }
    // Text, or an object: inflated whole (growing with the data). In verbose
    // mode the statistics come first, then a hash mismatch is an error.
    CompressedBundleHeader Header;
    Expected<SmallVector<char, 0>> Inflated =
        decompressBundle(Part, Path, /*VerifyHash=*/false, &Header);
    if (!Inflated)
      return Inflated.takeError();
    StringRef Bytes(Inflated->data(), Inflated->size());
    if (Verbose) {
      uint64_t Hash = getBundleHash(Bytes);
      printDecompressionStats(Header, Hash, secondsSince(Start));
      if (Hash != Header.Hash)
        return fail(Path + ": compressed bundle: hash 0x" +
                    utohexstr(Header.Hash) +
                    " does not match the inflated data");
    }
    Out.Inflated.push_back(std::move(*Inflated));
    StringRef Kept(Out.Inflated.back().data(), Out.Inflated.back().size());
    if (Error E = addEntries(Type, Path, Kept, Out))
      return std::move(E);
  }
  return std::move(Out);
}

} // namespace offload::bundler

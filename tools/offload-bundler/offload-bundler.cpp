//===- offload-bundler.cpp - Bundle and unbundle offload files ------------===//
//
// Flag-compatible with LLVM 22's clang-offload-bundler:
//   offload-bundler -type=bc -targets=host-...,hip-...--gfx90a
//                   -input=h.bc -input=d.bc -output=b.bc [-compress]
//   offload-bundler -type=bc -unbundle -input=b.bc -targets=... -output=...
//   offload-bundler -type=bc -list -input=b.bc
// including the OFFLOAD_BUNDLER_* and COMPRESSED_BUNDLE_FORMAT_VERSION
// environment variables.
//
//===----------------------------------------------------------------------===//

#include "format/BundleEntryID.h"
#include "format/CompressedBundle.h"
#include "format/DeviceArchive.h"
#include "format/ObjectBundle.h"
#include "format/OffloadBundle.h"
#include "support/AtomicOutput.h"
#include "support/FileCopy.h"
#include "tools/common/ToolSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <deque>
#include <functional>
#include <set>

using namespace llvm;
using namespace offload;
using namespace offload::tool;

static cl::OptionCategory Category("clang-offload-bundler options");

static cl::list<std::string>
    InputFileNames("input",
                   cl::desc("Input file. Can be specified multiple "
                            "times for multiple input files."),
                   cl::cat(Category));
static cl::list<std::string>
    InputFileNamesDeprecated("inputs", cl::CommaSeparated,
                             cl::desc("[<input file>,...] (deprecated)"),
                             cl::cat(Category));
static cl::list<std::string>
    OutputFileNames("output",
                    cl::desc("Output file. Can be specified "
                             "multiple times for multiple output "
                             "files."),
                    cl::cat(Category));
static cl::list<std::string>
    OutputFileNamesDeprecated("outputs", cl::CommaSeparated,
                              cl::desc("[<output file>,...] (deprecated)"),
                              cl::cat(Category));
static cl::list<std::string>
    TargetNames("targets", cl::CommaSeparated,
                cl::desc("[<offload kind>-<target triple>,...]"),
                cl::cat(Category));
static cl::opt<std::string>
    FilesType("type",
              cl::desc("Type of the files to be bundled/unbundled: i, ii, cui, "
                       "hipi, d, ll, bc, s, o, a, gch, ast"),
              cl::cat(Category));
static cl::opt<bool> Unbundle("unbundle",
                              cl::desc("Unbundle bundled file into several "
                                       "output files."),
                              cl::cat(Category));
static cl::opt<bool> ListBundleIDs("list",
                                   cl::desc("List bundle IDs in the bundled "
                                            "file."),
                                   cl::cat(Category));
static cl::opt<bool> AllowMissingBundles(
    "allow-missing-bundles",
    cl::desc("Create empty files if bundles are missing when unbundling."),
    cl::cat(Category));
static cl::opt<unsigned> BundleAlignment("bundle-align",
                                         cl::desc("Alignment of bundle for "
                                                  "binary files"),
                                         cl::init(1), cl::cat(Category));
static cl::opt<bool> CheckInputArchive(
    "check-input-archive",
    cl::desc("Check if input heterogeneous archive is valid in terms of "
             "TargetID rules."),
    cl::cat(Category));
static cl::opt<bool> HipOpenmpCompatible(
    "hip-openmp-compatible",
    cl::desc("Treat hip and hipv4 offload kinds as compatible with openmp "
             "kind, and vice versa."),
    cl::cat(Category));
static cl::opt<bool> Compress("compress",
                              cl::desc("Compress output file when bundling."),
                              cl::cat(Category));
static cl::opt<int> CompressionLevel("compression-level",
                                     cl::desc("Specify the compression level "
                                              "(integer)"),
                                     cl::value_desc("n"), cl::cat(Category));
// clang-offload-bundler prints the llvm-objcopy command it would run for
// -type=o instead of running it; we run no external command, so there is
// nothing to print and the work is done as without it.
static cl::opt<bool>
    PrintExternalCommands("###",
                          cl::desc("Print the external commands run (there are "
                                   "none: objects are bundled in-process)"),
                          cl::cat(Category));

static cl::opt<bool> Verbose("verbose", cl::desc("Print debug information."),
                             cl::cat(Category));

namespace {
/// Settings that options and the environment decide together.
struct Settings {
  bool Compress = false;
  bool Verbose = false;
  BundleCompression Compression;
};
} // namespace

/// Options first, then, unless OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1, the
/// environment, as clang-offload-bundler reads them.
static Settings getSettings() {
  Settings S;
  BundlerEnvironment Env = readBundlerEnvironment();
  for (const std::string &Warning : Env.Warnings)
    errs() << Warning << "\n";
  S.Compress = Compress || Env.Compress;
  S.Verbose = Verbose || Env.Verbose;
  if (Env.Level)
    S.Compression.Level = *Env.Level;
  if (Env.Version)
    S.Compression.Version = *Env.Version;
  if (CompressionLevel.getNumOccurrences())
    S.Compression.Level = CompressionLevel;
  return S;
}

/// 1234567 -> "1,234,567", as LLVM prints sizes.
static std::string withCommas(uint64_t Value) {
  std::string Digits = std::to_string(Value);
  for (int At = static_cast<int>(Digits.size()) - 3; At > 0; At -= 3)
    Digits.insert(At, ",");
  return Digits;
}

static double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// -verbose: what was compressed and how, in LLVM's words.
static void printCompressionStats(const CompressedBundleHeader &H,
                                  uint64_t CompressedSize, int Level,
                                  double Seconds) {
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
static Error reportInflated(CompressedBundleReader &Reader,
                            std::chrono::steady_clock::time_point Start) {
  const CompressedBundleHeader &H = Reader.header();
  uint64_t Hash = Reader.hash();
  printDecompressionStats(H, Hash, secondsSince(Start));
  if (Hash != H.Hash)
    return fail(Reader.name() + ": compressed bundle: hash 0x" +
                utohexstr(H.Hash) + " does not match the inflated data");
  return Error::success();
}

namespace {
/// An input: mapped (pages are read only where they are looked at) and, for
/// files, open, so that payloads are copied by the kernel, never read here.
struct InputFile {
  std::string Path;
  std::unique_ptr<MemoryBuffer> Buffer;
  int FD = -1;

  ~InputFile() {
    if (FD >= 0)
      sys::fs::closeFile(FD);
  }

  static Expected<std::unique_ptr<InputFile>> open(StringRef Path) {
    auto In = std::make_unique<InputFile>();
    In->Path = Path.str();
    Expected<std::unique_ptr<MemoryBuffer>> Buffer = readInputFile(Path);
    if (!Buffer)
      return Buffer.takeError();
    In->Buffer = std::move(*Buffer);
    if (Path != "-") {
      Expected<sys::fs::file_t> FD = sys::fs::openNativeFileForRead(Path);
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
  Error read(raw_ostream &OS, StringRef Data) const {
    if (FD < 0) {
      OS << Data;
      return Error::success();
    }
    constexpr size_t Chunk = 1 << 20;
    std::unique_ptr<char[]> Buffer(new char[Chunk]);
    uint64_t Offset = Data.data() - this->Buffer->getBufferStart();
    for (uint64_t Left = Data.size(); Left;) {
      size_t Want = static_cast<size_t>(std::min<uint64_t>(Left, Chunk));
      Expected<size_t> Got = sys::fs::readNativeFileSlice(
          FD, MutableArrayRef<char>(Buffer.get(), Want), Offset);
      if (!Got)
        return fail("'" + Path + "': " + toString(Got.takeError()));
      if (*Got == 0)
        return fail("'" + Path + "': file shrank while it was read (at " +
                    Twine(Offset) + ")");
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
} // namespace

namespace {
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
  std::deque<SmallVector<char, 0>> Inflated;
};
} // namespace

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
static Expected<BundleContents> readBundle(const BundleType &Type,
                                           StringRef Path,
                                           const MemoryBuffer &Input,
                                           bool Verbose, bool VerifyNow) {
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

static Error list(const BundleType &Type, const Settings &S) {
  Expected<std::unique_ptr<MemoryBuffer>> Input =
      readInputFile(InputFileNames[0]);
  if (!Input)
    return Input.takeError();
  Expected<BundleContents> Contents =
      readBundle(Type, InputFileNames[0], **Input, S.Verbose,
                 /*VerifyNow=*/S.Verbose);
  if (!Contents)
    return Contents.takeError();
  for (const Entry &E : Contents->Entries)
    outs() << E.ID << '\n';
  return Error::success();
}

/// As clang-offload-bundler, a target given twice (as written) is refused.
static Error duplicateTarget(StringRef Target) {
  return fail("Duplicate targets are not allowed: '" + Target +
              "' is given twice in -targets");
}

/// Parses and checks the -targets of a bundling: known kinds and triples, no
/// conflicting target IDs, exactly one host unless all are HIP.
static Expected<std::vector<std::string>> normalizedBundleTargets() {
  std::vector<BundleEntryID> IDs;
  unsigned Hosts = 0;
  bool AllHIP = true;
  StringSet<> Seen;
  for (StringRef Target : TargetNames) {
    if (!Seen.insert(Target).second)
      return duplicateTarget(Target);
    Expected<BundleEntryID> ID = BundleEntryID::parse(Target);
    if (!ID)
      return ID.takeError();
    if (!ID->hasKnownKind())
      return fail("invalid offload kind '" + ID->Kind + "' in '" + Target +
                  "'");
    if (ID->TargetTriple.getArch() == Triple::UnknownArch)
      return fail("invalid target triple in '" + Target + "'");
    Hosts += ID->isHost();
    AllHIP &= ID->Kind == "hip" || ID->Kind == "hipv4";
    IDs.push_back(std::move(*ID));
  }
  // Two target IDs of one processor conflict when one leaves a feature
  // unspecified that the other sets ("gfx90a" and "gfx90a:xnack+").
  for (size_t I = 0; I != IDs.size(); ++I)
    for (size_t J = 0; J != I; ++J) {
      if (IDs[I].TargetIDText.empty() || IDs[J].TargetIDText.empty())
        continue;
      Expected<TargetID> A = TargetID::parse(IDs[J].TargetIDText);
      Expected<TargetID> B = TargetID::parse(IDs[I].TargetIDText);
      if (!A)
        return A.takeError();
      if (!B)
        return B.takeError();
      if (A->Processor != B->Processor)
        continue;
      if (!A->setsSameFeatures(*B))
        return fail("Cannot bundle inputs with conflicting targets: '" +
                    TargetNames[J] + "' and '" + TargetNames[I] + "'");
    }
  if (Hosts != 1 && !AllHIP)
    return fail("expecting exactly one host target but got " + Twine(Hosts));
  std::vector<std::string> Normalized;
  for (const BundleEntryID &ID : IDs)
    Normalized.push_back(ID.str());
  return Normalized;
}

/// Writes the output as a compressed bundle of the \p Size bytes that
/// \p Write writes, compressed as they come.
static Error writeCompressed(const Settings &S, uint64_t Size,
                             function_ref<Error(raw_ostream &Bundle)> Write) {
  auto Start = std::chrono::steady_clock::now();
  return writeFileAtomically(
      OutputFileNames[0], [&](OutputFileStream &OS) -> Error {
        Expected<std::unique_ptr<CompressedBundleWriter>> W =
            CompressedBundleWriter::create(OS, OS.supportsSeeking(), Size,
                                           S.Compression, OutputFileNames[0]);
        if (!W)
          return W.takeError();
        if (Error E = Write(**W))
          return E;
        Expected<CompressedBundleHeader> H = (*W)->finish();
        if (!H)
          return H.takeError();
        if (S.Verbose)
          printCompressionStats(*H, *H->TotalSize - H->HeaderSize,
                                S.Compression.Level, secondsSince(Start));
        return Error::success();
      });
}

static Error bundle(const BundleType &Type, const Settings &S) {
  if (Type.Layout == BundleLayout::Archive)
    return fail("Archive files are only supported for unbundling");
  if (OutputFileNames.size() != 1)
    return fail("only one output file supported in bundling mode");
  if (InputFileNames.size() != TargetNames.size())
    return fail("number of input files and targets should match in bundling "
                "mode");
  Expected<std::vector<std::string>> IDs = normalizedBundleTargets();
  if (!IDs)
    return IDs.takeError();

  std::vector<std::unique_ptr<InputFile>> Inputs;
  std::vector<BundleEntryToWrite> Entries;
  std::optional<size_t> Host;
  for (size_t I = 0; I != InputFileNames.size(); ++I) {
    Expected<std::unique_ptr<InputFile>> In =
        InputFile::open(InputFileNames[I]);
    if (!In)
      return In.takeError();
    Entries.push_back({(*IDs)[I], (*In)->Buffer->getBuffer()});
    if (StringRef((*IDs)[I]).starts_with("host-"))
      Host = I;
    Inputs.push_back(std::move(*In));
  }

  // Objects carry their device code in sections; a host input that is no
  // object gets a binary bundle, as with clang-offload-bundler.
  bool HostIsObject =
      Host && identify_magic(Entries[*Host].Data) != file_magic::unknown;
  if (Type.Layout == BundleLayout::Object && HostIsObject) {
    Expected<SmallVector<char, 0>> Object =
        writeObjectBundle(*Inputs[*Host]->Buffer, Entries[*Host].ID, Entries);
    if (!Object)
      return Object.takeError();
    // clang-offload-bundler 22 ignores -compress (and
    // OFFLOAD_BUNDLER_COMPRESS) for objects: the object is written as it is.
    return writeFileAtomically(OutputFileNames[0],
                               StringRef(Object->data(), Object->size()));
  }

  bool Text = Type.Layout == BundleLayout::Text;
  // clang-offload-bundler 22 dies of SIGFPE on this (a division by the
  // alignment); text bundles and objects have no alignment to divide by.
  if (!Text && BundleAlignment == 0)
    return fail("-bundle-align=0: the alignment of a binary bundle must be at "
                "least 1");
  if (S.Compress) {
    // Streamed too: the payloads are read from the input files into the
    // compressor, which writes the output file as it goes.
    uint64_t Size = Text ? getTextBundleSize(Entries, Type.Comment)
                         : getBinaryBundleSize(Entries, BundleAlignment);
    return writeCompressed(S, Size, [&](raw_ostream &OS) {
      auto Read = [&](size_t I) {
        return Inputs[I]->read(OS, Entries[I].Data);
      };
      if (Text)
        return writeTextBundle(OS, Entries, Type.Comment, Read);
      return writeBinaryBundle(OS, Entries, BundleAlignment, Read);
    });
  }
  // Streamed: the payloads go from the input files to the output file.
  return writeFileAtomically(OutputFileNames[0], [&](OutputFileStream &OS) {
    auto Copy = [&](size_t I) { return Inputs[I]->copy(OS, Entries[I].Data); };
    if (Text)
      return writeTextBundle(OS, Entries, Type.Comment, Copy);
    return writeBinaryBundle(OS, Entries, BundleAlignment, Copy);
  });
}

static Error unbundle(const BundleType &Type, const Settings &S) {
  if (InputFileNames.size() != 1)
    return fail("only one input file supported in unbundling mode");
  if (OutputFileNames.size() != TargetNames.size())
    return fail("number of output files and targets should match in "
                "unbundling mode");
  StringSet<> Seen;
  for (StringRef Target : TargetNames)
    if (!Seen.insert(Target).second)
      return duplicateTarget(Target);
  if (Type.Layout == BundleLayout::Archive) {
    ArchiveUnbundleRequest R;
    R.Input = InputFileNames[0];
    R.Targets.assign(TargetNames.begin(), TargetNames.end());
    R.Outputs.assign(OutputFileNames.begin(), OutputFileNames.end());
    R.AllowMissingBundles = AllowMissingBundles;
    R.CheckInputArchive = CheckInputArchive;
    R.HipOpenMPCompatible = HipOpenmpCompatible;
    return unbundleArchive(R);
  }

  Expected<std::unique_ptr<InputFile>> Input =
      InputFile::open(InputFileNames[0]);
  if (!Input)
    return Input.takeError();
  Expected<BundleContents> Bundle =
      readBundle(Type, InputFileNames[0], *(*Input)->Buffer, S.Verbose,
                 /*VerifyNow=*/false);
  if (!Bundle)
    return Bundle.takeError();

  // Every output is decided before any is written. As in LLVM, each entry
  // (in the order LLVM visits them) goes to the first requested target it is
  // compatible with that has none yet.
  StringMap<size_t> Worklist;
  for (size_t I = 0; I != TargetNames.size(); ++I) {
    if (Error E = BundleEntryID::parse(TargetNames[I]).takeError())
      return E;
    Worklist[TargetNames[I]] = I;
  }
  // Each output's bytes: in memory, or the entry streamed from a part.
  std::vector<std::optional<StringRef>> Contents(TargetNames.size());
  std::vector<const Entry *> Streamed(TargetNames.size());
  std::vector<SmallVector<char, 0>> HostObjects;
  HostObjects.reserve(TargetNames.size());
  bool FoundAny = false;
  for (const Entry &E : Bundle->Entries) {
    if (Worklist.empty())
      break;
    Expected<BundleEntryID> Have = BundleEntryID::parse(E.ID);
    if (!Have)
      return fail("'" + InputFileNames[0] +
                  "': invalid bundle id read from "
                  "the bundle: " +
                  toString(Have.takeError()));
    auto Target = llvm::find_if(Worklist, [&](const auto &KV) {
      return isCodeObjectCompatible(*Have,
                                    cantFail(BundleEntryID::parse(KV.getKey())),
                                    HipOpenmpCompatible);
    });
    if (Target == Worklist.end())
      continue;
    FoundAny = true;
    size_t I = Target->getValue();
    if (!E.Bytes)
      Streamed[I] = &E;
    else
      Contents[I] = *E.Bytes;
    // The host entry of an object bundle is the object itself.
    if (Type.Layout == BundleLayout::Object && Have->isHost() && E.Bytes &&
        *E.Bytes == StringRef("\0", 1)) {
      Expected<SmallVector<char, 0>> Host = getHostObject(*(*Input)->Buffer);
      if (!Host)
        return Host.takeError();
      HostObjects.push_back(std::move(*Host));
      Contents[I] =
          StringRef(HostObjects.back().data(), HostObjects.back().size());
    }
    Worklist.erase(Target);
  }
  if (!Worklist.empty() && !AllowMissingBundles) {
    // "Can't find bundles for A", "... A and B", "... A, B, and C".
    // Named normalized, as LLVM names them ("host-x86_64-unknown-linux-gnu-").
    std::set<std::string> Missing;
    for (const auto &KV : Worklist)
      Missing.insert(cantFail(BundleEntryID::parse(KV.getKey())).str());
    std::string Msg = "Can't find bundles for";
    size_t N = 0, Last = Missing.size() - 1;
    for (const std::string &M : Missing) {
      if (N != 0 && Last > 1)
        Msg += ",";
      Msg += " ";
      if (N == Last && N != 0)
        Msg += "and ";
      Msg += M;
      ++N;
    }
    return fail(Msg);
  }
  // Nothing bundled at all: the input is taken for the host's own file.
  if (!FoundAny)
    for (size_t I = 0; I != TargetNames.size(); ++I)
      if (cantFail(BundleEntryID::parse(TargetNames[I])).isHost())
        Contents[I] = (*Input)->Buffer->getBuffer();

  auto WriteContents = [&](size_t I, OutputFileStream &OS) -> Error {
    if (!Contents[I])
      return Error::success(); // streamed, or missing (allowed): empty
    if ((*Input)->holds(*Contents[I]))
      return (*Input)->copy(OS, *Contents[I]);
    OS << *Contents[I];
    return Error::success();
  };

  // Compressed parts to stream: those holding a wanted entry, and under
  // -verbose every one (to check its hash, in the same pass).
  std::vector<std::vector<size_t>> ByPart(Bundle->Parts.size());
  for (size_t I = 0; I != TargetNames.size(); ++I)
    if (Streamed[I])
      ByPart[Streamed[I]->Part].push_back(I);
  bool AnyStreamed = llvm::any_of(
      ByPart, [&](const auto &Outs) { return S.Verbose || !Outs.empty(); });
  if (!AnyStreamed) {
    for (size_t I = 0; I != TargetNames.size(); ++I)
      if (Error E = writeFileAtomically(
              OutputFileNames[I],
              [&](OutputFileStream &OS) { return WriteContents(I, OS); }))
        return E;
    return Error::success();
  }

  // Streaming: every output is open at once, and each compressed part is
  // inflated once, as far as its last wanted entry (to its end under
  // -verbose), its entries written as they come. The outputs appear only if
  // everything succeeded.
  std::vector<OutputFileStream *> Streams(TargetNames.size());
  bool InputMapped =
      (*Input)->Buffer->getBufferKind() == MemoryBuffer::MemoryBuffer_MMap;
  auto StreamParts = [&]() -> Error {
    for (size_t I = 0; I != TargetNames.size(); ++I)
      if (Error E = WriteContents(I, *Streams[I]))
        return E;
    for (size_t P = 0; P != Bundle->Parts.size(); ++P) {
      if (ByPart[P].empty() && !S.Verbose)
        continue;
      const StreamedPart &Part = Bundle->Parts[P];
      auto Start = std::chrono::steady_clock::now();
      Expected<std::unique_ptr<CompressedBundleReader>> Reader =
          CompressedBundleReader::open(Part.Data, InputFileNames[0], Part.Base);
      if (!Reader)
        return Reader.takeError();
      (*Reader)->setInputIsFileMapping(InputMapped);
      if (S.Verbose)
        (*Reader)->enableHash();
      if (Error E = (*Reader)->skip(Part.HeaderSize))
        return E;
      std::vector<BundleEntryLocation> Locations;
      for (size_t I : ByPart[P])
        Locations.push_back(Streamed[I]->Location);
      if (Error E = streamBundlePayloads(
              **Reader, Locations, [&](size_t K, StringRef Piece) -> Error {
                *Streams[ByPart[P][K]] << Piece;
                return Error::success();
              }))
        return E;
      if (S.Verbose) {
        if (Error E = (*Reader)->finish())
          return E;
        if (Error E = reportInflated(**Reader, Start))
          return E;
      }
    }
    return Error::success();
  };
  std::function<Error(size_t)> OpenFrom = [&](size_t I) -> Error {
    if (I == TargetNames.size())
      return StreamParts();
    return writeFileAtomically(OutputFileNames[I],
                               [&](OutputFileStream &OS) -> Error {
                                 Streams[I] = &OS;
                                 return OpenFrom(I + 1);
                               });
  };
  return OpenFrom(0);
}

static Error run() {
  if (FilesType.empty())
    return fail("for the --type option: must be specified at least once!");
  // The old comma-separated spellings, as clang-offload-bundler 22 takes
  // them: never with the new ones, with a warning otherwise.
  if (InputFileNames.getNumOccurrences() &&
      InputFileNamesDeprecated.getNumOccurrences())
    return fail(
        "-inputs and -input cannot be used together, use only -input instead");
  if (!InputFileNamesDeprecated.empty()) {
    WithColor::warning(errs(), ToolName)
        << "-inputs is deprecated, use -input instead\n";
    for (const std::string &F : InputFileNamesDeprecated)
      InputFileNames.push_back(F);
  }
  if (OutputFileNames.getNumOccurrences() &&
      OutputFileNamesDeprecated.getNumOccurrences())
    return fail("-outputs and -output cannot be used together, use only "
                "-output instead");
  if (!OutputFileNamesDeprecated.empty()) {
    WithColor::warning(errs(), ToolName)
        << "-outputs is deprecated, use -output instead\n";
    for (const std::string &F : OutputFileNamesDeprecated)
      OutputFileNames.push_back(F);
  }
  if (ListBundleIDs) {
    if (Unbundle)
      return fail("-unbundle and -list cannot be used together");
    if (InputFileNames.size() != 1)
      return fail("only one input file supported for -list");
    if (!OutputFileNames.empty())
      return fail(OutputFileNamesDeprecated.empty()
                      ? "-output option is invalid for -list"
                      : "-outputs option is invalid for -list");
    if (!TargetNames.empty())
      return fail("-targets option is invalid for -list");
  } else {
    // What is missing, in clang-offload-bundler 22's words, before anything
    // else is looked at.
    if (TargetNames.empty())
      return fail("for the --targets option: must be specified at least "
                  "once!");
    if (OutputFileNames.empty())
      return fail("no output file specified!");
  }
  Expected<BundleType> Type = getBundleType(FilesType);
  if (!Type)
    return Type.takeError();
  Settings S = getSettings();
  if (ListBundleIDs)
    return list(*Type, S);
  if (Unbundle)
    return unbundle(*Type, S);
  return bundle(*Type, S);
}

int main(int Argc, char **Argv) {
  ToolInit Init(
      Argc, Argv, Category,
      "A tool to bundle several input files of the specified type <type> \n"
      "referring to the same source file but different targets into a single \n"
      "one. The resulting file can also be unbundled into different files by \n"
      "this tool if -unbundle is provided.\n");
  return exitStatus(run());
}

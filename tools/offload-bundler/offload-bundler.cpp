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
#include "tools/offload-bundler/BundleReading.h"

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
using namespace offload::bundler;

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

//===- offload-prune.cpp - Keep only the device code a site needs ---------===//
//
//   offload-prune --offload-arch=<target-id>[,...] [--offload-targets=<triple>]
//                 [--keep-ptx] [--list] [-o <out>] <input>
//
// Keeps only the device code for the requested targets in a relocatable
// object, a static archive, a bundle or compressed bundle, an OffloadBinary
// file, or (in place) the HIP fat binaries of a linked executable or shared
// library; which images a request keeps is the rule of
// format/TargetSelection.h. The output is written atomically, in place of
// the input unless -o names another file.
//
//===----------------------------------------------------------------------===//

#include "Pruner.h"

#include "format/CheckedArchive.h"
#include "support/AtomicOutput.h"
#include "tools/common/ToolSupport.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"

using namespace llvm;
using namespace llvm::object;
using namespace offload;
using namespace offload::tool;
using namespace offload::prune;

namespace {

enum ID {
  OPT_INVALID = 0,
#define OPTION(...) LLVM_MAKE_OPT_ID(__VA_ARGS__),
#include "Options.inc"
#undef OPTION
};

#define OPTTABLE_STR_TABLE_CODE
#include "Options.inc"
#undef OPTTABLE_STR_TABLE_CODE

#define OPTTABLE_PREFIXES_TABLE_CODE
#include "Options.inc"
#undef OPTTABLE_PREFIXES_TABLE_CODE

using opt::DefaultVis;

constexpr opt::OptTable::Info InfoTable[] = {
#define OPTION(...) LLVM_CONSTRUCT_OPT_INFO(__VA_ARGS__),
#include "Options.inc"
#undef OPTION
};

class PruneOptTable : public opt::GenericOptTable {
public:
  PruneOptTable()
      : GenericOptTable(OptionStrTable, OptionPrefixesTable, InfoTable) {}
};

/// The command line, read.
struct Options {
  TargetRequest Request;
  std::string Input;
  std::string Output;
  bool List = false;
};

/// What pruning an input gave.
struct Result {
  /// The new contents; std::nullopt when the input holds no device code.
  std::optional<SmallVector<char, 0>> Bytes;
};

} // namespace

/// The values of \p Opt, each split at commas.
static std::vector<std::string> commaValues(const opt::InputArgList &Args,
                                            unsigned Opt) {
  std::vector<std::string> Values;
  for (StringRef Value : Args.getAllArgValues(Opt)) {
    SmallVector<StringRef, 4> Parts;
    Value.split(Parts, ',');
    for (StringRef Part : Parts)
      Values.push_back(Part.trim().str());
  }
  return Values;
}

static Expected<std::optional<Options>> parseOptions(int Argc, char **Argv) {
  PruneOptTable Table;
  unsigned MissingIndex, MissingCount;
  opt::InputArgList Args =
      Table.ParseArgs(ArrayRef(Argv + 1, Argc - 1), MissingIndex, MissingCount);
  if (MissingCount)
    return fail(Twine("option '") + Args.getArgString(MissingIndex) +
                "' needs a value");
  for (const opt::Arg *A : Args.filtered(OPT_UNKNOWN))
    return fail("unknown option '" + A->getAsString(Args) + "'");
  if (Args.hasArg(OPT_help)) {
    Table.printHelp(outs(),
                    (ToolName + " --offload-arch=<target-id>[,...] "
                                "[options] <input>")
                        .str()
                        .c_str(),
                    "Keep only the device code for the given targets");
    return std::nullopt;
  }
  if (Args.hasArg(OPT_version)) {
    printToolVersion(outs(), ToolName);
    return std::nullopt;
  }

  Options O;
  Expected<TargetRequest> Request = TargetRequest::create(
      commaValues(Args, OPT_offload_arch),
      commaValues(Args, OPT_offload_targets), Args.hasArg(OPT_keep_ptx));
  if (!Request)
    return Request.takeError();
  O.Request = std::move(*Request);
  std::vector<std::string> Inputs = Args.getAllArgValues(OPT_INPUT);
  if (Inputs.size() != 1)
    return fail(Inputs.empty()
                    ? "no input file"
                    : "one input file at a time, got " + Twine(Inputs.size()));
  O.Input = Inputs.front();
  O.Output = Args.getLastArgValue(OPT_output, O.Input).str();
  O.List = Args.hasArg(OPT_list_only);
  return std::move(O);
}

/// Prunes every member of the archive \p Buffer in order; members without
/// device code are kept as they are, and every member keeps its name, date,
/// owner and mode. The symbol table is written again from the members,
/// whose symbols pruning does not change, dated 0 as `llvm-ar` dates it, so
/// that the same input gives the same bytes.
static Expected<Result> pruneArchive(MemoryBufferRef Buffer, StringRef Name,
                                     Pruner &P) {
  Expected<std::unique_ptr<Archive>> Ar = createCheckedArchive(Buffer);
  if (!Ar)
    return fail("'" + Name + "': " + toString(Ar.takeError()));
  if ((*Ar)->isThin())
    return fail("'" + Name +
                "': a thin archive: prune the object files it names instead");
  std::vector<NewArchiveMember> Members;
  // The new contents, and the old buffers, which the members' names point
  // into.
  std::vector<std::unique_ptr<MemoryBuffer>> Keep;
  size_t Before = P.numDeviceImages();
  Error Err = Error::success();
  for (const Archive::Child &C : (*Ar)->children(Err)) {
    Expected<StringRef> MemberName = C.getName();
    Expected<MemoryBufferRef> Data = C.getMemoryBufferRef();
    if (!MemberName || !Data) {
      Error E = joinErrors(MemberName.takeError(), Data.takeError());
      return fail("'" + Name + "': member at offset " +
                  Twine(C.getChildOffset()) + ": " + toString(std::move(E)));
    }
    Expected<NewArchiveMember> Member =
        NewArchiveMember::getOldMember(C, /*Deterministic=*/false);
    if (!Member)
      return fail("'" + Name + "': member '" + *MemberName +
                  "': " + toString(Member.takeError()));
    std::string Where = (Name + "(" + *MemberName + ")").str();
    if (identify_magic(Data->getBuffer()) == file_magic::archive)
      return fail("'" + Where + "': an archive in an archive is not pruned");
    Expected<std::optional<SmallVector<char, 0>>> Pruned =
        P.pruneFile(*Data, Where);
    if (!Pruned)
      return Pruned.takeError();
    if (*Pruned) {
      Keep.push_back(std::move(Member->Buf));
      Keep.push_back(MemoryBuffer::getMemBufferCopy(
          StringRef((*Pruned)->data(), (*Pruned)->size()), *MemberName));
      Member->Buf =
          MemoryBuffer::getMemBuffer(Keep.back()->getMemBufferRef(),
                                     /*RequiresNullTerminator=*/false);
    }
    Members.push_back(std::move(*Member));
  }
  if (Err)
    return fail("'" + Name + "': " + toString(std::move(Err)));
  if (P.numDeviceImages() == Before)
    return Result{};

  Expected<std::unique_ptr<MemoryBuffer>> Out = writeArchiveToBuffer(
      Members,
      (*Ar)->hasSymbolTable() ? SymtabWritingMode::NormalSymtab
                              : SymtabWritingMode::NoSymtab,
      (*Ar)->kind(), /*Deterministic=*/true, /*Thin=*/false);
  if (!Out)
    return fail("'" + Name + "': " + toString(Out.takeError()));
  StringRef Bytes = (*Out)->getBuffer();
  return Result{SmallVector<char, 0>(Bytes.begin(), Bytes.end())};
}

static Expected<Result> pruneInput(MemoryBufferRef Buffer, StringRef Name,
                                   Pruner &P) {
  if (identify_magic(Buffer.getBuffer()) == file_magic::archive)
    return pruneArchive(Buffer, Name, P);
  Expected<std::optional<SmallVector<char, 0>>> Bytes =
      P.pruneFile(Buffer, Name);
  if (!Bytes)
    return Bytes.takeError();
  return Result{std::move(*Bytes)};
}

/// "gfx1030, gfx90a": the distinct device images \p P saw.
static std::string imagesSeen(const Pruner &P) {
  SetVector<StringRef> Names;
  for (const ListedContainer &C : P.listing())
    for (const ListedImage &Image : C.Images)
      if (!Image.Host)
        Names.insert(Image.Name);
  return join(Names, ", ");
}

static Error run(const Options &O) {
  Expected<std::unique_ptr<MemoryBuffer>> Input = readInputFile(O.Input);
  if (!Input)
    return Input.takeError();
  Pruner P(O.Request);
  Expected<Result> R = pruneInput((*Input)->getMemBufferRef(), O.Input, P);
  if (!R)
    return R.takeError();
  for (const std::string &Warning : P.warnings())
    WithColor::warning(errs(), ToolName) << Warning << "\n";

  if (O.List)
    printListing(outs(), P.listing());
  if (P.numDeviceImages() == 0) {
    WithColor::warning(errs(), ToolName)
        << "'" << O.Input << "' holds no device code; "
        << (O.List ? "it would be copied unchanged" : "copied unchanged")
        << "\n";
    if (O.List || O.Output == O.Input)
      return Error::success();
    return writeFileAtomically(O.Output, (*Input)->getBuffer());
  }
  if (P.numKeptImages() == 0)
    return fail("'" + O.Input +
                "' has no device code for the targets requested; it has: " +
                imagesSeen(P));
  for (auto [I, Used] : enumerate(P.archsUsed()))
    if (!Used)
      WithColor::warning(errs(), ToolName)
          << "'" << O.Input << "' has no device code for '"
          << O.Request.Archs[I].str() << "'; it has: " << imagesSeen(P) << "\n";
  if (O.List)
    return Error::success();
  const SmallVector<char, 0> &Bytes = *R->Bytes;
  // The output keeps the input's permissions, as objcopy's does: a pruned
  // executable or shared library stays executable.
  sys::fs::file_status Status;
  bool HasMode = !sys::fs::status(O.Input, Status);
  return writeFileAtomically(O.Output, [&](OutputFileStream &OS) -> Error {
    OS.write(Bytes.data(), Bytes.size());
    if (HasMode && O.Output != "-")
      if (std::error_code EC =
              sys::fs::setPermissions(OS.fd(), Status.permissions()))
        return fail("'" + O.Output + "': cannot set its permissions: " +
                    EC.message());
    return Error::success();
  });
}

int main(int Argc, char **Argv) {
  InitLLVM Init(Argc, Argv);
  ToolName = sys::path::filename(Argv[0]);
  reportMappedFileFaults(ToolName.data());
  Expected<std::optional<Options>> O = parseOptions(Argc, Argv);
  if (!O)
    return exitStatus(O.takeError());
  if (!*O)
    return EXIT_SUCCESS;
  return exitStatus(run(**O));
}

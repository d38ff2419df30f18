//===- lld-plugin/LinkOptions.cpp - The linker's command line -------------===//

#include "lld-plugin/LinkOptions.h"
#include "format/TargetSelection.h"
#include "lld-plugin/OffloadOptTable.h"
#include "support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Option/Arg.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/Option.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

// Declared in lld/Common/Version.h, which includes a Version.inc that
// Debian's liblld-22-dev does not ship; defined in lldCommon.
namespace lld {
std::string getLLDVersion();
} // namespace lld

namespace offload {

static Error usage(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// LLD spells long options with one dash or two; this gives the name without
/// them ("-shared" and "--shared" are both "shared").
static StringRef optionName(StringRef Arg) {
  if (Arg.consume_front("--"))
    return Arg;
  Arg.consume_front("-");
  return Arg;
}

/// "unknown option '--offload-job'; did you mean '--offload-jobs'?": the
/// option OptTable::findNearest finds two edits away at most (a typo), else
/// the option whose name the one written is cut short of at a '-', with the
/// fewest words left off (--offload-cache= for --offload-cache-dir=: edits
/// cannot say it, as --offload-arch= is nearer to it).
static Error unknownOption(StringRef Arg) {
  // Named as --help lists them: two dashes, no value.
  StringRef Name = optionName(Arg).split('=').first;
  std::string Nearest;
  StringRef Best;
  if (offloadOptTable().findNearest(Arg, Nearest, /*FlagsToInclude=*/0,
                                    /*FlagsToExclude=*/opt::HelpHidden,
                                    /*MinimumLength=*/4,
                                    /*MaximumDistance=*/2) <= 2)
    Best = optionName(Nearest).split('=').first;
  if (Best.empty())
    for (const ListedOption &Known : listedOptions())
      if (Known.Name.starts_with((Name + "-").str()) &&
          (Best.empty() || Known.Name.size() < Best.size()))
        Best = Known.Name;
  if (Best.empty())
    return usage("unknown option '" + Arg + "'");
  return usage("unknown option '" + Arg + "'; did you mean '--" + Best + "'?");
}

/// Sets what \p A, one of our options, says in \p O. \p Arg is the argument
/// as written (for an unknown option).
static Error applyOption(const opt::Arg &A, StringRef Arg, OffloadOptions &O) {
  // "--offload-jobs", however it was spelled.
  std::string Name = ("--" + A.getOption().getName().rtrim('=')).str();
  StringRef Value = A.getNumValues() ? A.getValue() : "";
  auto BadValue = [&](const Twine &Expected) {
    return usage(Name + ": expected " + Expected + ", got '" + Value + "'");
  };
  switch (A.getOption().getID()) {
  case OPT_no_offload:
    O.Disabled = true;
    break;
  case OPT_offload_verbose:
    O.Verbose = true;
    break;
  case OPT_offload_dry_run:
    O.DryRun = true;
    break;
  case OPT_offload_save_temps:
    O.SaveTemps = true;
    break;
  case OPT_offload_jobs:
    if (Value == "jobserver") {
      O.UseJobserver = true;
      O.Jobs = 0;
    } else if (Value.getAsInteger(10, O.Jobs) || O.Jobs == 0) {
      return BadValue("a positive number or 'jobserver'");
    }
    break;
  case OPT_offload_relocatable:
    if (Value == "fat")
      O.Relocatable = RelocatableMode::Fat;
    else if (Value == "link")
      O.Relocatable = RelocatableMode::Link;
    else
      return BadValue("'fat' or 'link'");
    break;
  case OPT_offload_runtime_path:
    O.RuntimePath = Value.str();
    O.RuntimePathGiven = true;
    break;
  case OPT_offload_device_linker_arg: {
    // [<triple>=]<arg>: an argument starting with '-' has no triple.
    auto [Triple, Rest] = Value.split('=');
    if (!Value.starts_with("-") && Value.contains('='))
      O.DeviceLinkerArgs.emplace_back(Triple.str(), Rest.str());
    else
      O.DeviceLinkerArgs.emplace_back("", Value.str());
    break;
  }
  case OPT_offload_extract:
    O.ExtractArchs.push_back(Value.str());
    break;
  case OPT_offload_arch:
  case OPT_offload_targets: {
    SmallVector<StringRef, 4> Values;
    Value.split(Values, ',');
    for (StringRef V : Values)
      (A.getOption().getID() == OPT_offload_arch ? O.Archs : O.Targets)
          .push_back(V.str());
    break;
  }
  case OPT_offload_device_lib: {
    auto [Triple, File] = Value.split('=');
    if (Value.contains('='))
      O.DeviceLibs.emplace_back(Triple.str(), File.str());
    else
      O.DeviceLibs.emplace_back("", Value.str());
    break;
  }
  case OPT_offload_compress:
    O.Compress = true;
    break;
  case OPT_offload_compress_eq:
    O.Compress = true;
    if (Value.getAsInteger(10, O.CompressionLevel))
      return BadValue("a compression level");
    break;
  case OPT_offload_compress_version:
    if (Value != "2" && Value != "3")
      return BadValue("2 or 3");
    O.CompressionVersion = Value == "2" ? 2 : 3;
    break;
  case OPT_offload_cuda_path:
    O.CudaPath = Value.str();
    break;
  case OPT_offload_distributor:
    O.Distributor = Value.str();
    break;
  case OPT_offload_distributor_arg:
    O.DistributorArgs.push_back(Value.str());
    break;
  case OPT_offload_distributor_timeout:
    if (Value.getAsInteger(10, O.DistributorTimeout) ||
        O.DistributorTimeout == 0)
      return BadValue("a positive number of seconds");
    break;
  case OPT_offload_large_fatbin_threshold:
    if (Value.getAsInteger(10, O.LargeFatbinThreshold))
      return BadValue("a size in bytes");
    break;
  case OPT_offload_cache_dir:
    O.CacheDir = Value.str();
    break;
  case OPT_offload_remote_cache:
    O.RemoteCache = Value.str();
    break;
  case OPT_offload_cache_policy: {
    Expected<CachePruningPolicy> Policy = parseCachePruningPolicy(Value);
    if (!Policy)
      return usage(Name + ": " + toString(Policy.takeError()));
    O.CachePolicy = Value.str();
    break;
  }
  case OPT_offload_resource_usage:
    O.PrintResourceUsage = true;
    break;
  case OPT_offload_resource_usage_eq:
    if (Value.empty())
      return usage(Name + "=: expected a file name for the JSON report");
    O.ResourceUsageFile = Value.str();
    break;
  case OPT_offload_unknown:
    return unknownOption(Arg);
  default:
    // A bug, found by LinkOptionsTest's EveryListedOptionIsHandled.
    return usage(Name + ": an option of OffloadOptions.td that "
                        "LinkOptions.cpp does not handle");
  }
  return Error::success();
}

Expected<LinkCommandLine> parseLinkCommandLine(ArrayRef<const char *> Args,
                                               StringRef DefaultRuntimePath) {
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  SmallVector<const char *, 64> Expanded(Args.begin(), Args.end());
  // LLD reads response files with the GNU rules (quotes and backslashes).
  cl::ExpansionContext ECtx(Alloc, cl::TokenizeGNUCommandLine);
  if (Error E = ECtx.expandResponseFiles(Expanded))
    return std::move(E);

  LinkCommandLine CL;
  CL.Offload.RuntimePath = DefaultRuntimePath.str();
  // An argument our table matches (OffloadOptions.td: --no-offload and
  // whatever starts with --offload-, one dash or two) is ours and taken out,
  // before LLD's table could read -offload-verbose as "-o ffload-verbose".
  // The rest is LLD's, kept as written and in order, and read once with
  // LLD's table.
  const opt::OptTable &Table = offloadOptTable();
  opt::InputArgList Strings(Expanded.begin(), Expanded.end());
  std::vector<std::string> LLDArgs;
  for (unsigned I = 0; I != Expanded.size();) {
    StringRef Arg = Expanded[I];
    unsigned Start = I;
    std::unique_ptr<opt::Arg> A = Table.ParseOneArg(Strings, I);
    if (!A) {
      // An option with a value as the next argument, last.
      StringRef Name = optionName(Arg);
      return usage("--" + Name + " needs a value: --" + Name + "=<value>");
    }
    unsigned ID = A->getOption().getID();
    if (ID != OPT_INPUT && ID != OPT_UNKNOWN) {
      if (Error E = applyOption(*A, Arg, CL.Offload))
        return std::move(E);
      continue;
    }
    // LLD's, with the values LLD's table gives it: "-o -offload-x" names
    // an output.
    for (I = LLDCommandLine::nextArgument(Strings, Start); Start != I; ++Start)
      LLDArgs.push_back(Expanded[Start]);
  }
  // The targets the link is for, from the environment where link flags
  // cannot be added; a malformed one is an error now.
  OffloadOptions &O = CL.Offload;
  if (O.Archs.empty())
    if (const char *Env = getenv(OffloadArchVar))
      for (StringRef V : split(StringRef(Env), ','))
        O.Archs.push_back(V.str());
  if (!O.Archs.empty())
    if (Expected<TargetRequest> R = TargetRequest::create(O.Archs, {}); !R)
      return usage("--offload-arch: " + toString(R.takeError()));
  if (!O.Targets.empty())
    if (Expected<TargetRequest> R = TargetRequest::create({}, O.Targets); !R)
      return usage("--offload-targets: " + toString(R.takeError()));
  CL.LLD = LLDCommandLine(std::move(LLDArgs));
  CL.Output = CL.LLD.output();
  CL.Relocatable = CL.LLD.relocatable();
  CL.Shared = CL.LLD.shared();
  CL.Help = CL.LLD.printsHelp();
  CL.InfoOnly = CL.Help || CL.LLD.printsVersionOnly();
  // As ld.lld: the version, then the link if there is one.
  CL.PrintsVersion = CL.LLD.printsVersion();
  return std::move(CL);
}

static void printOffloadOptions(raw_ostream &OS) {
  OS << "OFFLOAD OPTIONS (from clang: -Wl,<option>):\n";
  for (const ListedOption &O : listedOptions())
    OS << "  " << left_justify(O.Spelling, 44) << " " << O.Help << "\n";
}

/// LLD's own version line, as ld.lld -v prints it.
static std::string lldVersionLine() {
  return lld::getLLDVersion() + " (compatible with GNU linkers)";
}

std::string versionLine() {
  // LLD's words first: build systems read the linker's kind and version
  // from the first "LLD <version>" (CMake, Meson) and libtool looks for
  // "GNU" in it.
  return lldVersionLine() + ", ld.lld-offload (lld-offload " +
         lldOffloadVersion().str() + ")\n";
}

void printInfo(raw_ostream &OS, StringRef LLDOut, bool Help) {
  if (Help) {
    OS << "OVERVIEW: ld.lld-offload: ld.lld that also links the device code "
          "its inputs\n"
          "  carry (OpenMP offload, HIP, CUDA) and registers it with the "
          "offload runtime\n\n"
          "USAGE: ld.lld-offload [options] file...\n\n";
    printOffloadOptions(OS);
    // LLD's help follows, its own overview and usage lines left out.
    size_t Options = LLDOut.find("\nOPTIONS:\n");
    if (Options != StringRef::npos) {
      OS << "\nLLD OPTIONS (" << lld::getLLDVersion() << "):\n";
      LLDOut = LLDOut.drop_front(Options + strlen("\nOPTIONS:\n"));
    }
  }
  // What LLD prints besides, with our version line for its own.
  std::string LLDLine = lldVersionLine() + "\n";
  size_t Version = LLDOut.find(LLDLine);
  if (Version == StringRef::npos) {
    OS << LLDOut;
    return;
  }
  OS << LLDOut.take_front(Version) << versionLine()
     << LLDOut.drop_front(Version + LLDLine.size());
}

} // namespace offload

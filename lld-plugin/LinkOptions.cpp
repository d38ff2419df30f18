//===- lld-plugin/LinkOptions.cpp - The linker's command line -------------===//

#include "lld-plugin/LinkOptions.h"
#include "lld-plugin/OffloadOptTable.h"
#include "support/Version.h"

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

/// "unknown option '--offload-job'; did you mean '--offload-jobs'?"
static Error unknownOption(StringRef Arg) {
  StringRef Name = optionName(Arg).split('=').first;
  std::string Best;
  unsigned BestDistance = 3; // two typos at most
  for (const ListedOption &Known : listedOptions()) {
    unsigned D = Name.edit_distance(Known.Name, true, BestDistance);
    if (D < BestDistance) {
      BestDistance = D;
      Best = Known.Name.str();
    }
  }
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
  case OPT_offload_large_fatbin_threshold:
    if (Value.getAsInteger(10, O.LargeFatbinThreshold))
      return BadValue("a size in bytes");
    break;
  case OPT_offload_cache_dir:
    O.CacheDir = Value.str();
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

/// "-ofile": the output joined to -o, unless the argument is one of LLD's
/// long options that begin with 'o' and may be written with one dash
/// (-omagic, -oformat=binary, -opt-remarks-filename, -orphan-handling=...).
static bool isJoinedOutput(StringRef Arg) {
  if (!Arg.starts_with("-o") || Arg.size() == 2)
    return false;
  StringRef Name = Arg.drop_front(1).split('=').first;
  return Name != "omagic" && Name != "oformat" &&
         !Name.starts_with("opt-remarks") && Name != "orphan-handling";
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
  // The rest is LLD's, kept as written and in order; of it we only note the
  // output and the kind of link.
  const opt::OptTable &Table = offloadOptTable();
  opt::InputArgList Strings(Expanded.begin(), Expanded.end());
  for (unsigned I = 0; I != Expanded.size();) {
    StringRef Arg = Expanded[I];
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
    CL.LLDArgs.push_back(Arg.str());
    if (!Arg.starts_with("-") || Arg == "-")
      continue;
    StringRef Name = optionName(Arg);
    if (Arg == "-o" && I < Expanded.size()) {
      CL.Output = Expanded[I++];
      CL.LLDArgs.push_back(CL.Output);
    } else if (isJoinedOutput(Arg)) {
      CL.Output = Arg.drop_front(2).str();
    } else if (Name.starts_with("output=")) {
      CL.Output = Name.drop_front(strlen("output=")).str();
    } else if (Name == "output" && I < Expanded.size()) {
      CL.Output = Expanded[I++];
      CL.LLDArgs.push_back(CL.Output);
    } else if (Arg == "-r" || Name == "relocatable" || Arg == "-i") {
      CL.Relocatable = true;
    } else if (Name == "shared" || Name == "Bshareable") {
      CL.Shared = true;
    } else if (Name == "version" || Name == "help") {
      CL.InfoOnly = true;
      CL.Help |= Name == "help";
    } else if (Arg == "-v" || Arg == "-V" || Name == "v") {
      // As ld.lld: the version, then the link if there is one.
      CL.PrintsVersion = true;
    }
  }
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

void dropVersionOptions(std::vector<std::string> &LLDArgs) {
  llvm::erase_if(LLDArgs, [](StringRef Arg) {
    return Arg == "-v" || Arg == "-V" || Arg == "--v";
  });
}

bool namesLibrary(ArrayRef<std::string> LLDArgs, StringRef Name) {
  // lib<Name>.so, lib<Name>.a, lib<Name>.so.1, ...
  std::string Prefix = ("lib" + Name + ".").str();
  auto IsFile = [&](StringRef Path) {
    return sys::path::filename(Path).starts_with(Prefix);
  };
  for (size_t I = 0; I != LLDArgs.size(); ++I) {
    StringRef Arg = LLDArgs[I];
    if (!Arg.starts_with("-")) {
      if (IsFile(Arg))
        return true;
      continue;
    }
    std::optional<StringRef> Lib;
    if ((Arg == "-l" || Arg == "--library") && I + 1 < LLDArgs.size())
      Lib = LLDArgs[++I];
    else if (Arg.starts_with("--library="))
      Lib = Arg.drop_front(strlen("--library="));
    else if (Arg.starts_with("-l"))
      Lib = Arg.drop_front(2);
    if (Lib && (*Lib == Name || (Lib->consume_front(":") && IsFile(*Lib))))
      return true;
  }
  return false;
}

bool linksOffloadRuntime(ArrayRef<std::string> LLDArgs) {
  return namesLibrary(LLDArgs, "omptarget");
}

std::vector<std::string> probeArguments(ArrayRef<std::string> LLDArgs) {
  // Options whose value is a separate argument, among those dropped.
  auto TakesSeparateValue = [](StringRef Name) {
    return StringSwitch<bool>(Name)
        .Cases({"Map", "dependency-file", "reproduce", "why-extract",
                "print-archive-stats", "print-symbol-order", "time-trace-file",
                "trace-symbol", "y"},
               true)
        .Default(false);
  };
  auto Dropped = [](StringRef Name) {
    StringRef Key = Name.split('=').first;
    return StringSwitch<bool>(Key)
        .Cases({"M",
                "v",
                "V",
                "print-map",
                "Map",
                "cref",
                "why-extract",
                "dependency-file",
                "reproduce",
                "time-trace",
                "time-trace-file",
                "time-trace-granularity",
                "print-archive-stats",
                "print-symbol-order",
                "print-gc-sections",
                "print-icf-sections",
                "t",
                "trace",
                "trace-symbol",
                "y",
                "verbose",
                "stats",
                "print-memory-usage"},
               true)
        .Default(false);
  };
  std::vector<std::string> Out;
  // An option missing its value at the end steps I past the end: '<'.
  for (size_t I = 0; I < LLDArgs.size(); ++I) {
    StringRef Arg = LLDArgs[I];
    if (Arg == "-o" || optionName(Arg) == "output") {
      ++I;
      continue;
    }
    if (isJoinedOutput(Arg))
      continue;
    if (optionName(Arg).starts_with("output="))
      continue;
    if (Arg.starts_with("-") && Dropped(optionName(Arg))) {
      if (!optionName(Arg).contains('=') && TakesSeparateValue(optionName(Arg)))
        ++I;
      continue;
    }
    Out.push_back(Arg.str());
  }
  // Symbols the registration object or the offload runtime will provide are
  // not there yet; undefined symbols do not change what LLD loads. Hidden
  // ones (old-driver HIP's __hip_fatbin_<cuid>) are errors even so, unless
  // errors do not stop the link.
  Out.push_back("--unresolved-symbols=ignore-all");
  Out.push_back("--noinhibit-exec");
  Out.push_back("-o");
  Out.push_back("/dev/null");
  return Out;
}

} // namespace offload

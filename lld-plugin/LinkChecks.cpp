//===- lld-plugin/LinkChecks.cpp - Options checked against the plan -------===//

#include "lld-plugin/LinkChecks.h"

#include "lld-plugin/LinkInputs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>

using namespace llvm;

namespace offload {

std::vector<std::string> runtimeArguments(const LinkCommandLine &CL) {
  if (CL.Relocatable || linksOffloadRuntime(CL.LLD))
    return {};
  if (CL.Offload.RuntimePathGiven) {
    SmallString<128> Runtime(CL.Offload.RuntimePath);
    sys::path::append(Runtime, "libomptarget.so");
    return {"--push-state", "-Bdynamic", Runtime.str().str(), "--pop-state"};
  }
  return {"--push-state", "-Bdynamic", "-L" + CL.Offload.RuntimePath,
          "-lomptarget", "--pop-state"};
}

/// Fails if the host link cannot find the offload runtime that
/// runtimeArguments() names: LLD would say only "unable to find library".
static Error checkRuntime(const LinkCommandLine &CL) {
  std::vector<std::string> Args = runtimeArguments(CL);
  if (Args.empty())
    return Error::success();
  const OffloadOptions &Opts = CL.Offload;
  SmallString<128> Named(Opts.RuntimePath);
  sys::path::append(Named, "libomptarget.so");
  if (Opts.RuntimePathGiven ? sys::fs::exists(Named) : [&] {
        SearchPaths Paths = CL.LLD.searchPaths();
        Paths.Dirs.push_back(Opts.RuntimePath);
        return searchLibrary("omptarget", Paths.Dirs, Paths.Sysroot, false)
            .has_value();
      }())
    return Error::success();
  return createStringError(
      inconvertibleErrorCode(),
      "unable to find library -lomptarget, which the host link needs for "
      "OpenMP device code: " +
          Twine(Opts.RuntimePathGiven
                    ? "there is no " + Named.str().str() +
                          " (--offload-runtime-path=)"
                    : std::string("it is in no library directory")) +
          "; " + OffloadRuntimeAdvice);
}

/// OpenMP device code with GNU's OpenMP runtime (clang -fopenmp=libgomp):
/// libomptarget would run beside libgomp, two OpenMP runtimes in one
/// process. clang's pipeline refuses -fopenmp-targets with libgomp too.
static Error checkOpenMPRuntime(const LinkCommandLine &CL,
                                ArrayRef<DeviceLinkJob> Jobs) {
  bool OpenMP = llvm::any_of(Jobs, [](const DeviceLinkJob &Job) {
    return Job.Kind == OffloadKind::OpenMP;
  });
  if (!OpenMP || !CL.LLD.namesLibrary("gomp"))
    return Error::success();
  return createStringError(
      inconvertibleErrorCode(),
      "OpenMP device code needs LLVM's OpenMP runtime (libomp), but this "
      "link names GNU's (libgomp, from clang -fopenmp=libgomp): two OpenMP "
      "runtimes in one program; link with -fopenmp (libomp), as clang "
      "refuses -fopenmp-targets with libgomp");
}

/// Options that name a triple (--offload-device-lib=<triple>=<file>,
/// --offload-device-linker-arg=<triple>=<arg>) and no device link of this
/// link is for it: a warning naming the triples there are, into
/// \p Warnings. A device library that does not exist is an error.
static Error checkTripleOptions(const OffloadOptions &Opts,
                                ArrayRef<DeviceLinkJob> Jobs,
                                std::vector<std::string> &Warnings) {
  for (const auto &[TripleName, Lib] : Opts.DeviceLibs)
    if (!sys::fs::exists(Lib))
      return createStringError(inconvertibleErrorCode(),
                               "--offload-device-lib: no such file '" + Lib +
                                   "'");
  std::vector<std::string> Used;
  for (const DeviceLinkJob &Job : Jobs)
    if (!is_contained(Used, Job.TargetTriple.str()))
      Used.push_back(Job.TargetTriple.str());
  auto Check = [&](StringRef Option, StringRef TripleName, StringRef Value) {
    if (TripleName.empty() || any_of(Jobs, [&](const DeviceLinkJob &Job) {
          return Triple(Triple::normalize(TripleName)) == Job.TargetTriple;
        }))
      return;
    Warnings.push_back(
        (Option + "=" + TripleName + "=" + Value +
         ": no device link of this link is for " + TripleName + " (" +
         (Used.empty() ? std::string("there is none")
                       : "there is one for " + join(Used, ", ")) +
         ")")
            .str());
  };
  for (const auto &[TripleName, Lib] : Opts.DeviceLibs)
    Check("--offload-device-lib", TripleName, Lib);
  for (const auto &[TripleName, Arg] : Opts.DeviceLinkerArgs)
    Check("--offload-device-linker-arg", TripleName, Arg);
  return Error::success();
}

/// The symbol of LLD's error \p Line if it says one is undefined
/// ("ld.lld: error: undefined symbol: <name>", or "undefined hidden symbol").
static std::optional<StringRef> undefinedSymbol(StringRef Line) {
  if (!Line.contains("error: "))
    return std::nullopt;
  for (StringRef What : {"undefined symbol: ", "undefined hidden symbol: ",
                         "undefined protected symbol: "})
    if (size_t At = Line.find(What); At != StringRef::npos)
      return Line.substr(At + What.size()).trim();
  return std::nullopt;
}

/// True if \p Symbol is one the registration object of \p Kind calls and
/// its runtime defines (wrapper-ir/: __cudaRegisterFatBinary,
/// __hipRegisterFunction, __cudaUnregisterFatBinary, ...). The launch
/// interface that kernel stubs call (cudaLaunchKernel, ...) is left out:
/// LLD's errors for it name the user's objects, which are there. So is
/// __cudaRegisterLinkedBinary<ID>, which nvcc's units call and the link
/// defines, not the runtime.
static bool isRegistrationFunction(StringRef Symbol, OffloadKind Kind) {
  StringRef Prefix = Kind == OffloadKind::Cuda ? "__cuda" : "__hip";
  return Symbol.consume_front(Prefix) &&
         ((Symbol.starts_with("Register") &&
           !Symbol.starts_with("RegisterLinkedBinary")) ||
          Symbol.starts_with("UnregisterFatBinary"));
}

void UndefinedSymbolErrors::write_impl(const char *Ptr, size_t Size) {
  Pos += Size;
  Line.append(Ptr, Size);
  for (size_t End; (End = Line.find('\n')) != std::string::npos;) {
    StringRef Text(Line.data(), End + 1);
    bool Starts = Text.contains("error: undefined ");
    bool Continues = InError && (Text.starts_with(">>> ") || Text == "\n");
    if (Starts || Continues) {
      Held += Text;
      InError = Starts || Text != "\n";
    } else {
      InError = false;
      To << Text;
    }
    Line.erase(0, End + 1);
  }
}

Error takeMissingRuntimeErrors(std::string &Messages, OffloadKind Kind,
                               const OffloadOptions &Opts) {
  if (Kind != OffloadKind::Cuda && Kind != OffloadKind::HIP)
    return Error::success();
  // LLD's diagnostics: a line, then its ">>> " lines; those of several lines
  // are set apart by an empty line, taken out with them.
  SmallVector<StringRef, 64> Lines;
  StringRef(Messages).split(Lines, '\n');
  std::vector<StringRef> Kept;
  std::vector<std::string> Undefined;
  for (size_t I = 0; I != Lines.size();) {
    size_t End = I + 1;
    while (End != Lines.size() && Lines[End].starts_with(">>> "))
      ++End;
    std::optional<StringRef> Symbol = undefinedSymbol(Lines[I]);
    if (!Symbol || !isRegistrationFunction(*Symbol, Kind)) {
      Kept.insert(Kept.end(), Lines.begin() + I, Lines.begin() + End);
      I = End;
      continue;
    }
    if (!is_contained(Undefined, *Symbol))
      Undefined.push_back(Symbol->str());
    if (End != Lines.size() && Lines[End].empty())
      ++End;
    I = End;
  }
  if (Undefined.empty())
    return Error::success();
  Messages = join(Kept, "\n");
  // The first of them names the runtime's interface; all of them, a line
  // too long to read.
  llvm::sort(Undefined);
  std::string Names = Undefined.front();
  if (Undefined.size() > 1)
    Names += " and " + std::to_string(Undefined.size() - 1) + " more";
  if (Kind == OffloadKind::HIP)
    return createStringError(
        inconvertibleErrorCode(),
        "the registration of the HIP device code needs the HIP runtime "
        "library (libamdhip64), which this link does not link (undefined: " +
            Names +
            "); add -lamdhip64 and ROCm's library directory "
            "(-L/opt/rocm/lib by default), or link with clang --hip-link");
  SmallString<128> LibDir(Opts.CudaPath);
  sys::path::append(LibDir, "lib64");
  return createStringError(
      inconvertibleErrorCode(),
      "the registration of the CUDA device code needs the CUDA runtime "
      "library (libcudart), which this link does not link (undefined: " +
          Names +
          "); add -lcudart (or -lcudart_static) and the CUDA toolkit's "
          "library directory, -L" +
          LibDir.str());
}

Expected<std::vector<std::string>>
checkLinkOptions(const LinkCommandLine &CL, ArrayRef<DeviceLinkJob> Jobs) {
  std::vector<std::string> Warnings;
  if (Error E = checkTripleOptions(CL.Offload, Jobs, Warnings))
    return std::move(E);
  if (Error E = checkOpenMPRuntime(CL, Jobs))
    return std::move(E);
  if (llvm::any_of(Jobs, [](const DeviceLinkJob &Job) {
        return Job.Kind == OffloadKind::OpenMP;
      }))
    if (Error E = checkRuntime(CL))
      return std::move(E);
  return std::move(Warnings);
}

} // namespace offload

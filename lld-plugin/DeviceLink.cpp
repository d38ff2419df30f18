//===- lld-plugin/DeviceLink.cpp - Linking device images ------------------===//

#include "lld-plugin/DeviceLink.h"

#include "lld-plugin/DeviceLinkScheduler.h"

#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/NVPTXLink.h"
#include "lld-plugin/RunLLD.h"

#include "format/BundleEntryID.h"
#include "format/FindOffloadBinaries.h"
#include "format/NvccModule.h"
#include "support/AtomicOutput.h"
#include "support/CrashReport.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Object/SymbolicFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Jobserver.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <unistd.h>

using namespace llvm;

namespace offload {

Expected<std::string> findCudaTool(StringRef CudaPath, StringRef Tool) {
  SmallString<128> Path(CudaPath);
  sys::path::append(Path, "bin", Tool);
  if (!sys::fs::can_execute(Path))
    return createStringError(inconvertibleErrorCode(),
                             "CUDA device code needs the CUDA toolkit's '" +
                                 Tool +
                                 "', which is "
                                 "not at " +
                                 Path +
                                 "; install the toolkit or give its location "
                                 "with --offload-cuda-path=<dir>");
  return Path.str().str();
}

/// LLVM's OpenMP device runtime for a GPU job without device libraries
/// given: where an LLVM build installs it, or an error saying how to give
/// one.
static Expected<std::string>
openMPDeviceRuntime(const DeviceLinkJob &Job, const OffloadOptions &Options) {
  SmallString<128> Runtime(Options.RuntimePath);
  sys::path::append(Runtime, Job.TargetTriple.str(), "libompdevice.a");
  if (!sys::fs::exists(Runtime))
    return createStringError(
        inconvertibleErrorCode(),
        "OpenMP device code for " + Job.TargetTriple.str() + " " + Job.Arch +
            " needs LLVM's OpenMP device runtime, which is not installed (" +
            Runtime + " does not exist); give it with --offload-device-lib=[" +
            Job.TargetTriple.str() + "=]<file>");
  return Runtime.str().str();
}

/// True if nvlink may be given \p File for the object \p Object, which the
/// link read from it: it is still that size, and its name reads as a file,
/// not an option.
static bool usableAsNvlinkInput(StringRef File, StringRef Object) {
  uint64_t Size = 0;
  return !File.empty() && !File.starts_with("-") &&
         !sys::fs::file_size(File, Size) && Size == Object.size();
}

/// NVPTX: the cubins are linked by the CUDA toolkit's nvlink, for the job's
/// sm_NN; a fat binary is made of the results when they are registered.
/// Bitcode goes through LTO and ptxas first (NVPTXLink.h).
static Expected<PreparedDeviceLink>
prepareNVPTXLink(const DeviceLinkJob &Job, const HostLinkInfo &Host,
                 const OffloadOptions &Options, const WorkDir &Dir) {
  PreparedDeviceLink Link;
  Link.Job = &Job;
  Link.Output = Dir.path(Job.fileName() + ".cubin");
  Expected<std::string> NVLink = findCudaTool(Options.CudaPath, "nvlink");
  if (!NVLink)
    return NVLink.takeError();
  NVPTXLinkRequest Request;
  Request.CudaPath = Options.CudaPath;
  Request.Arch = Job.Arch;
  Request.Output = Link.Output;
  // nvcc's relocatable device code: nvlink is given each unit's host object,
  // as nvcc's link gives it (once, however many of its images the job
  // takes).
  SmallPtrSet<const char *, 8> NvccObjects;
  for (auto [N, Image] : llvm::enumerate(Job.Images)) {
    bool Nvcc = !Image->NvccObject.empty();
    if (Nvcc && !NvccObjects.insert(Image->NvccObject.data()).second)
      continue;
    // An `ld -r` output of several units: each one's fat binary.
    for (auto [K, Fatbin] : llvm::enumerate(Image->NvccFatbins)) {
      std::string Path = Dir.path(Job.fileName() + "." + std::to_string(N) +
                                  "." + std::to_string(K) + ".fatbin");
      Link.Unwritten.emplace_back(Path, Fatbin);
      Request.Inputs.push_back(Path);
      Link.NvccFatbinModules[nvlinkModuleIDOfPath(Path)] =
          Image->NvccModuleIDs[K];
    }
    if (!Image->NvccFatbins.empty())
      continue;
    // An nvcc object that is a file of its own: nvlink reads it where it is
    // (a copy per arch was most of what 50 units cost on top of nvlink).
    const std::string &NvccFile = Image->NvccObjectFile;
    if (Nvcc && usableAsNvlinkInput(NvccFile, Image->NvccObject)) {
      Request.Inputs.push_back(NvccFile);
      continue;
    }
    bool Bitcode = Image->Image.TheImageKind == ImageKind::Bitcode;
    std::string Path =
        Dir.path(Job.fileName() + "." + std::to_string(N) +
                 (Nvcc ? ".o" : Bitcode ? ".bc" : ".cubin"));
    Link.Unwritten.emplace_back(Path, Nvcc ? Image->NvccObject
                                           : Image->Image.Image);
    Request.Inputs.push_back(Path);
  }
  // With the program's other objects, what stands for them.
  if (!NvccObjects.empty() && !Host.NvlinkHostObject.empty()) {
    std::string Path = Dir.path(Job.fileName() + ".host.o");
    Link.Unwritten.emplace_back(Path, Host.NvlinkHostObject);
    Request.Inputs.push_back(Path);
  }
  // With nvcc's code, nvcc's link options: its device runtime, and the list
  // of the units linked (the registration defines a function for each).
  using Arg = DeviceLinkArg;
  std::vector<DeviceLinkArg> NvccArgs;
  if (!NvccObjects.empty()) {
    Link.NvccModuleList = Dir.path(Job.fileName() + ".reg.c");
    SmallString<128> Lib(Options.CudaPath);
    sys::path::append(Lib, "lib64");
    NvccArgs = {Arg::option("-m64"),
                Arg::option("--register-link-binaries=" + Link.NvccModuleList),
                Arg::searchDir(Lib), Arg::option("-cpu-arch=X86_64"),
                Arg::library("cudadevrt")};
  }
  auto ForJob = [&](StringRef TripleName) {
    return TripleName.empty() ||
           Triple(Triple::normalize(TripleName)) == Job.TargetTriple;
  };
  for (const auto &[TripleName, Lib] : Options.DeviceLibs)
    if (ForJob(TripleName))
      Request.Libraries.push_back(Lib);
  std::vector<std::string> UserArgs;
  for (const auto &[TripleName, A] : Options.DeviceLinkerArgs)
    if (ForJob(TripleName))
      UserArgs.push_back(A);
  Request.NVLinkArgs = spell(NvccArgs);
  llvm::append_range(Request.NVLinkArgs, UserArgs);
  if (Job.Kind == OffloadKind::OpenMP && Request.Libraries.empty()) {
    Expected<std::string> Runtime = openMPDeviceRuntime(Job, Options);
    if (!Runtime)
      return Runtime.takeError();
    Request.Libraries.push_back(*Runtime);
  }

  // Cubins only: nvlink itself. Bitcode, or device libraries (which are
  // bitcode: LLVM's device runtime, libdevice): LTO, ptxas and nvlink, by us.
  std::vector<DeviceLinkArg> &Planned = Link.Planned;
  if (!Job.NeedsLTO && Request.Libraries.empty()) {
    Link.Program = *NVLink;
    Planned.push_back(Arg::option("-arch=" + Job.Arch));
    Planned.push_back(Arg::output(Link.Output));
    for (const std::string &Input : Request.Inputs)
      Planned.push_back(Arg::input(Input));
    llvm::append_range(Planned, NvccArgs);
    for (const std::string &A : UserArgs)
      Planned.push_back(Arg::option(A));
    Link.Args = spell(Planned);
    return std::move(Link);
  }
  // What decides the cubin, for the cache key: the request (nvcc's
  // options as they are, so that the device runtime is read for the key).
  Planned.push_back(Arg::option("--arch=" + Request.Arch));
  for (const std::string &Input : Request.Inputs)
    Planned.push_back(Arg::input(Input));
  for (const std::string &Lib : Request.Libraries)
    Planned.push_back(Arg::input(Lib));
  llvm::append_range(Planned, NvccArgs);
  for (const std::string &A : UserArgs)
    Planned.push_back(Arg::option("--nvlink-arg=" + A));
  Link.NVPTX = std::move(Request);
  return std::move(Link);
}

/// SPIR-V: the images (and the device libraries for the triple) linked and
/// compiled by us, in this process (SPIRVLink.h).
static PreparedDeviceLink prepareSPIRVLink(const DeviceLinkJob &Job,
                                           const OffloadOptions &Options,
                                           const WorkDir &Dir) {
  PreparedDeviceLink Link;
  Link.Job = &Job;
  Link.Output = Dir.path(Job.fileName() + ".spv");
  SPIRVLinkRequest Request;
  Request.Triple = Job.TargetTriple.str();
  Request.Output = Link.Output;
  // HIP's bitcode, or OpenMP's SPIR-V modules (DevicePlan.h checked which).
  Request.Bitcode = Job.Kind == OffloadKind::HIP;
  for (auto [N, Image] : llvm::enumerate(Job.Images)) {
    std::string Path = Dir.path(Job.fileName() + "." + std::to_string(N) +
                                (Request.Bitcode ? ".bc" : ".spv"));
    Link.Unwritten.emplace_back(Path, Image->Image.Image);
    Request.Inputs.push_back(Path);
  }
  for (const auto &[TripleName, Lib] : Options.DeviceLibs)
    if (TripleName.empty() ||
        Triple(Triple::normalize(TripleName)) == Job.TargetTriple)
      Request.Inputs.push_back(Lib);
  // What decides the module, for the cache key (the backend's version is
  // LLVM's, in the key already).
  using Arg = DeviceLinkArg;
  Link.Planned.push_back(
      Arg::option(Request.Bitcode ? "--spirv-backend" : "--spirv-tools"));
  Link.Planned.push_back(Arg::option("--triple=" + Request.Triple));
  for (const std::string &Input : Request.Inputs)
    Link.Planned.push_back(Arg::input(Input));
  Link.SPIRV = std::move(Request);
  return Link;
}

/// How many --trace lines the files of a CPU device link's \p Planned
/// arguments (before its libraries) print: one per object or shared object;
/// 0 when some other file (an archive, a linker script) makes that unknown.
static size_t leadingTraceLines(const PreparedDeviceLink &Link,
                                ArrayRef<DeviceLinkArg> SearchArgs) {
  SearchPaths Paths = searchPathsOf(SearchArgs);
  size_t Lines = 0;
  for (const DeviceLinkArg &A : Link.Planned) {
    // An image, not written yet.
    auto Image = llvm::find_if(Link.Unwritten, [&](const auto &U) {
      return A.TheRole == DeviceLinkArg::Role::Input && U.first == A.Value;
    });
    if (Image != Link.Unwritten.end()) {
      if (identify_magic(Image->second) != file_magic::elf_relocatable)
        return 0;
      ++Lines;
      continue;
    }
    std::optional<std::string> Path;
    if (A.TheRole == DeviceLinkArg::Role::Library)
      Path = searchLibrary(A.Value, Paths.Dirs, Paths.Sysroot,
                           /*Static=*/false);
    else if (A.TheRole == DeviceLinkArg::Role::Input)
      Path = A.Value;
    else
      continue;
    file_magic Magic;
    if (!Path || identify_magic(*Path, Magic) ||
        (Magic != file_magic::elf_relocatable &&
         Magic != file_magic::elf_shared_object))
      return 0;
    ++Lines;
  }
  return Lines;
}

Expected<PreparedDeviceLink> prepareDeviceLink(const DeviceLinkJob &Job,
                                               const HostLinkInfo &Host,
                                               const OffloadOptions &Options,
                                               const WorkDir &Dir,
                                               bool EveryLibrary) {
  if (Job.TargetTriple.isNVPTX())
    return prepareNVPTXLink(Job, Host, Options, Dir);
  if (Job.TargetTriple.isSPIRV())
    return prepareSPIRVLink(Job, Options, Dir);
  PreparedDeviceLink Link;
  Link.Job = &Job;
  Link.Output = Dir.path(Job.fileName() + ".img");
  using Arg = DeviceLinkArg;
  std::vector<DeviceLinkArg> &Planned = Link.Planned;
  auto AddOptions = [&](std::initializer_list<StringRef> Opts) {
    for (StringRef O : Opts)
      Planned.push_back(Arg::option(O));
  };
  bool AMDGPU = Job.TargetTriple.isAMDGCN();
  if (AMDGPU) {
    // A code object: LTO for the processor and features of the target ID,
    // everything resolved, as clang --target=amdgcn-amd-amdhsa links.
    Expected<TargetID> ID = TargetID::parse(Job.Arch);
    if (!ID)
      return ID.takeError();
    AddOptions({"--no-undefined", "-shared"});
    Planned.push_back(Arg::output(Link.Output));
    Planned.push_back(Arg::option("-plugin-opt=mcpu=" + ID->Processor));
    if (!ID->Features.empty()) {
      std::string Attrs;
      for (const auto &[Name, On] : ID->Features)
        Attrs +=
            (Attrs.empty() ? "" : ",") + std::string(On ? "+" : "-") + Name;
      Planned.push_back(Arg::option("-plugin-opt=-mattr=" + Attrs));
    }
    // clang's HIP toolchain splits the code generation of LTO into 8
    // partitions (its -flto-partitions=8 default; none for OpenMP): so do
    // we, for the same code object, byte for byte.
    // --offload-device-linker-arg=--lto-partitions=N comes later and wins.
    if (Job.Kind == OffloadKind::HIP)
      AddOptions({"--lto-partitions=8"});
  } else {
    AddOptions({"-shared", "-Bsymbolic"});
    Planned.push_back(Arg::output(Link.Output));
  }
  bool HostCPU =
      !AMDGPU && Job.TargetTriple.getArch() == Host.HostTriple.getArch();
  if (HostCPU) {
    // Everything resolved, as upstream's CPU device link (clang -shared
    // -Wl,--no-undefined with the C libraries below): an undefined symbol is
    // an error now, not when the runtime loads the image.
    AddOptions({"--no-undefined"});
    llvm::append_range(Planned, Host.SearchArgs);
    for (const std::string &File : Host.StartFiles)
      Planned.push_back(Arg::input(File));
  }
  if (!AMDGPU && Job.NeedsLTO && Job.Arch != "generic")
    Planned.push_back(Arg::option("-plugin-opt=mcpu=" + Job.Arch));

  for (auto [N, Image] : llvm::enumerate(Job.Images)) {
    bool Bitcode = Image->Image.TheImageKind == ImageKind::Bitcode;
    std::string Name =
        Job.fileName() + "." + std::to_string(N) + (Bitcode ? ".bc" : ".o");
    std::string Path = Dir.path(Name);
    Link.Unwritten.emplace_back(Path, Image->Image.Image);
    Planned.push_back(Arg::input(Path));
  }
  auto ForJob = [&](StringRef TripleName) {
    return TripleName.empty() ||
           Triple(Triple::normalize(TripleName)) == Job.TargetTriple;
  };
  size_t Libs = 0;
  for (const auto &[TripleName, Lib] : Options.DeviceLibs)
    if (ForJob(TripleName)) {
      Planned.push_back(Arg::input(Lib));
      ++Libs;
    }
  // OpenMP on a GPU needs LLVM's OpenMP device runtime.
  if (AMDGPU && Job.Kind == OffloadKind::OpenMP && Libs == 0) {
    Expected<std::string> Runtime = openMPDeviceRuntime(Job, Options);
    if (!Runtime)
      return Runtime.takeError();
    Planned.push_back(Arg::input(*Runtime));
  }
  // The user's, taken as written (a file among them is taken as an option:
  // its name, not its contents, is in the cache key).
  for (const auto &[TripleName, A] : Options.DeviceLinkerArgs)
    if (ForJob(TripleName))
      Planned.push_back(Arg::option(A));
  if (HostCPU) {
    // The OpenMP runtimes the upstream CPU device link names; the host link
    // has them loaded, these only record the dependency.
    Planned.push_back(Arg::searchDir(Options.RuntimePath));
    Planned.push_back(Arg::library("omp"));
    Planned.push_back(Arg::library("omptarget"));
    // As clang-linker-wrapper's CPU device link: the host link's libraries
    // (libstdc++ for C++, libc, libgcc, ...) and its dynamic linker (for
    // __tls_get_addr and friends), so that the image resolves everything.
    if (!Host.DynamicLinker.empty() && sys::fs::exists(Host.DynamicLinker))
      Planned.push_back(Arg::input(Host.DynamicLinker));
    std::vector<DeviceLinkArg> Full = Planned;
    llvm::append_range(Full, Host.Libraries);
    for (const std::string &File : Host.EndFiles)
      Full.push_back(Arg::input(File));
    // Without the static archives first, unless LTO may call into them.
    std::vector<DeviceLinkArg> SearchArgs = Host.SearchArgs;
    SearchArgs.push_back(Arg::searchDir(Options.RuntimePath));
    DeviceLinkLibraries Libs;
    if (!EveryLibrary && !Job.NeedsLTO)
      Libs = omitStaticArchives(Host.Libraries, SearchArgs, Host.Named);
    if (!Libs.omitsAny()) {
      Planned = std::move(Full);
      Link.Args = spell(Planned);
      return std::move(Link);
    }
    Libs.LeadingLines = leadingTraceLines(Link, SearchArgs);
    llvm::append_range(Planned, Libs.Kept);
    for (const std::string &File : Host.EndFiles)
      Planned.push_back(Arg::input(File));
    Planned.push_back(Arg::option("--trace"));
    Link.Libraries = std::move(Libs);
    Link.FullArgs = spell(Full);
  }
  Link.Args = spell(Planned);
  return std::move(Link);
}

DeviceLinkRunner PreparedDeviceLink::runner() const {
  if (NVPTX)
    return DeviceLinkRunner::NVPTX;
  if (SPIRV)
    return DeviceLinkRunner::SPIRV;
  return Program.empty() ? DeviceLinkRunner::LLD : DeviceLinkRunner::Program;
}

std::string PreparedDeviceLink::runnerName() const {
  switch (runner()) {
  case DeviceLinkRunner::LLD:
    return "LLD";
  case DeviceLinkRunner::Program:
    return sys::path::filename(Program).str();
  case DeviceLinkRunner::NVPTX:
    return "the NVPTX link (LTO, ptxas, nvlink)";
  case DeviceLinkRunner::SPIRV:
    return SPIRV->Bitcode
               ? "the SPIR-V link (IR linker, LLVM's SPIR-V backend)"
               : "the SPIR-V link (SPIRV-Tools' linker)";
  }
  llvm_unreachable("every runner is named");
}

std::vector<DeviceLinkCommand> PreparedDeviceLink::commands() const {
  switch (runner()) {
  case DeviceLinkRunner::LLD:
    return {{"ld.lld", Args}};
  case DeviceLinkRunner::Program:
    return {{Program, Args}};
  case DeviceLinkRunner::NVPTX: {
    // Ours: its steps, one line each.
    std::vector<DeviceLinkCommand> Steps;
    for (const NVPTXLinkRequest::Step &Step : NVPTX->steps())
      Steps.push_back({Step.Program, Step.Args});
    return Steps;
  }
  case DeviceLinkRunner::SPIRV:
    return {{"SPIR-V link", SPIRV->args()}};
  }
  llvm_unreachable("every runner has commands");
}

Error PreparedDeviceLink::writeInputs() {
  for (const auto &[Path, Data] : Unwritten)
    if (Error E = writeFileDirectly(Path, Data))
      return E;
  Unwritten.clear();
  return Error::success();
}

Error PreparedDeviceLink::checkBitcodeInputs() const {
  for (const DeviceImage *Image : Job->Images) {
    StringRef Data = Image->Image.Image;
    if (identify_magic(Data) != file_magic::bitcode)
      continue;
    auto Fail = [&](Error E) {
      return createStringError(
          inconvertibleErrorCode(),
          Image->Where +
              ": cannot read the device image: " + toString(std::move(E)));
    };
    MemoryBufferRef Buffer(Data, Image->Where);
    if (Error E = checkAttributeGroupIndices(Buffer))
      return Fail(std::move(E));
    LLVMContext Context;
    Expected<std::unique_ptr<object::SymbolicFile>> Module =
        object::SymbolicFile::createSymbolicFile(Buffer, file_magic::bitcode,
                                                 &Context);
    if (!Module)
      return Fail(Module.takeError());
  }
  return Error::success();
}

Expected<std::unique_ptr<MemoryBuffer>> PreparedDeviceLink::readOutput() const {
  if (CachedEntry)
    return MemoryBuffer::getMemBuffer(CachedImage, Output,
                                      /*RequiresNullTerminator=*/false);
  if (Cached)
    return createStringError(inconvertibleErrorCode(),
                             "the image of %s was not taken from the "
                             "device-link cache: its registration object was",
                             Job->name().c_str());
  ErrorOr<std::unique_ptr<MemoryBuffer>> Image = MemoryBuffer::getFile(
      Output, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Image.getError())
    return createStringError(EC, "cannot read the device link output '%s': %s",
                             Output.c_str(), EC.message().c_str());
  return std::move(*Image);
}

Error PreparedDeviceLink::writeOutput() const {
  if (CachedEntry)
    return writeFileDirectly(Output, CachedImage);
  // An image that was never read cannot be written: the same error.
  if (Cached)
    return readOutput().takeError();
  return Error::success();
}

/// The error for a failed device link: the job, its inputs, the linker's
/// words.
static Error deviceLinkError(const PreparedDeviceLink &Link,
                             StringRef Messages) {
  std::string Inputs;
  for (const DeviceImage *Image : Link.Job->Images)
    Inputs += "\n  " + Image->Where + ": " + describeImage(Image->Image);
  std::string Who = Link.runnerName();
  // The offload runtime, which a CPU device link names, may be missing.
  std::string Hint;
  if (Messages.contains("unable to find library -lomptarget") ||
      Messages.contains("unable to find library -lomp"))
    Hint = std::string("\nthis device link needs LLVM's offload runtime "
                       "(libomp.so, libomptarget.so): ") +
           OffloadRuntimeAdvice;
  // OpenMP's SPIR-V device runtime is linked at compile time upstream
  // (libomptarget-spirv.bc, which no package here ships), or here.
  if (Link.SPIRV && Messages.contains("Unresolved external reference to "
                                      "\"__kmpc_"))
    Hint += "\nOpenMP SPIR-V code needs an OpenMP device runtime for " +
            Link.Job->TargetTriple.str() +
            " (a SPIR-V module): give it with --offload-device-lib=" +
            Link.Job->TargetTriple.str() + "=<file>";
  // The SPIR-V backend's words for a call to a function no input defines.
  if (Link.SPIRV && Link.SPIRV->Bitcode &&
      Messages.contains("Unknown function in:"))
    Hint += "\n(a function the device code calls is defined by no image and "
            "no device library: give the library that defines it with "
            "--offload-device-lib=" +
            Link.Job->TargetTriple.str() + "=<file.bc>)";
  // LLD names the work files, which are gone by the time this is read,
  // unless they are kept.
  StringRef WorkDir = sys::path::parent_path(Link.Output);
  if (!WorkDir.empty() && Messages.contains(WorkDir) &&
      !WorkDir.ends_with(".offload-temps"))
    Hint += "\n(the work files named above are removed with the link; "
            "--offload-save-temps keeps them in <output>.offload-temps/)";
  return createStringError(inconvertibleErrorCode(),
                           "device link for " + Link.Job->name() +
                               " failed; its images:" + Inputs + "\n" + Who +
                               " said:\n" + Messages.rtrim() + Hint);
}

/// What a link run in another process said: its log, and how it ended when
/// that was not a plain exit (a signal, a failure to wait for it).
static std::string processMessages(StringRef LogFile, StringRef Why) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Log = MemoryBuffer::getFile(LogFile);
  std::string Said = Log ? (*Log)->getBuffer().rtrim().str() : std::string();
  if (!Why.empty())
    Said += (Said.empty() ? "" : "\n") + Why.str();
  return Said;
}

/// Runs a link that is not LLD's, its messages going to \p LogFile.
static Error runProgram(const PreparedDeviceLink &Link, StringRef LogFile) {
  SmallVector<StringRef, 32> Argv = {Link.Program};
  for (const std::string &Arg : Link.Args)
    Argv.push_back(Arg);
  std::optional<StringRef> Redirects[] = {std::nullopt, LogFile, LogFile};
  std::string ErrMsg;
  int RC = sys::ExecuteAndWait(Link.Program, Argv, std::nullopt, Redirects, 0,
                               0, &ErrMsg);
  if (RC == 0)
    return Error::success();
  return deviceLinkError(Link, processMessages(LogFile, ErrMsg));
}

/// Runs LLD for \p Link in this process, on one thread and under crash
/// recovery, so that whatever goes wrong in it (an error, a fatal error, a
/// crash) comes back here; Out and Err get LLD's messages. Returns LLD's
/// exit code.
static int runLLDForDeviceLink(LLDSession &Session,
                               const PreparedDeviceLink &Link,
                               ArrayRef<std::string> Args, std::string &Out,
                               std::string &Err) {
  std::string Inputs;
  for (const DeviceImage *Image : Link.Job->Images)
    Inputs += (Inputs.empty() ? "" : ", ") + Image->Where;
  setCrashPhase("in the device link for " + Link.Job->name() +
                " (images: " + Inputs + ")");
  std::vector<std::string> OneThread(Args.begin(), Args.end());
  OneThread.push_back("--threads=1");
  int RC = Session.runCapturing(OneThread, Out, Err);
  setCrashPhase("");
  return RC;
}

/// Runs \p Link with its every library, in this process.
static Error runWithEveryLibrary(LLDSession &Session,
                                 PreparedDeviceLink &Link) {
  Link.Libraries = DeviceLinkLibraries();
  std::string Out, Err;
  if (runLLDForDeviceLink(Session, Link, Link.FullArgs, Out, Err) != 0 ||
      !Session.canRunAgain())
    return deviceLinkError(Link, Out + Err);
  return Error::success();
}

bool omittedArchivesNeeded(ArrayRef<PreparedDeviceLink> Links) {
  return llvm::any_of(Links, [](const PreparedDeviceLink &Link) {
    return !Link.Cached && Link.omitsArchives() &&
           omittedArchivesNeeded(Link.Trace, Link.Libraries);
  });
}

static Error runInProcess(LLDSession &Session,
                          MutableArrayRef<PreparedDeviceLink> Links,
                          const WorkDir &Dir) {
  for (PreparedDeviceLink &Link : Links) {
    if (Link.Cached || Link.Distributed)
      continue;
    switch (Link.runner()) {
    case DeviceLinkRunner::Program:
      if (Error E = runProgram(Link, Dir.path(Link.Job->fileName() + ".log")))
        return E;
      continue;
    case DeviceLinkRunner::NVPTX:
      if (Error E = linkNVPTX(*Link.NVPTX))
        return deviceLinkError(Link, toString(std::move(E)));
      continue;
    case DeviceLinkRunner::SPIRV:
      if (Error E = linkSPIRV(*Link.SPIRV))
        return deviceLinkError(Link, toString(std::move(E)));
      continue;
    case DeviceLinkRunner::LLD:
      break;
    }
    std::string Out, Err;
    int RC = runLLDForDeviceLink(Session, Link, Link.Args, Out, Err);
    // Without the host's static archives, a link that fails may need one.
    if (Link.omitsArchives() && Session.canRunAgain()) {
      if (RC == 0) {
        Link.Trace = std::move(Out);
        continue;
      }
      if (Error E = runWithEveryLibrary(Session, Link))
        return E;
      continue;
    }
    if (RC != 0 || !Session.canRunAgain())
      return deviceLinkError(Link, Out + Err);
  }
  return Error::success();
}

/// Writes \p Request for a worker, into \p Dir as "<job>.nvptx-request".
static Expected<std::string> writeRequest(const NVPTXLinkRequest &Request,
                                          const WorkDir &Dir,
                                          StringRef JobFile) {
  std::string Path = Dir.path((JobFile + ".nvptx-request").str());
  if (Error E = writeNVPTXLinkRequest(Request, Path))
    return createStringError(inconvertibleErrorCode(),
                             "cannot write the request of an NVPTX link "
                             "worker: " +
                                 toString(std::move(E)));
  return Path;
}

Error runDeviceLinks(LLDSession &Session,
                     MutableArrayRef<PreparedDeviceLink> Links,
                     const OffloadOptions &Options, StringRef Self,
                     const WorkDir &Dir) {
  JobserverClient *Jobserver =
      Options.UseJobserver ? Session.jobserver() : nullptr;
  unsigned MaxJobs = Options.UseJobserver ? UINT_MAX : Options.Jobs;
  // One link, one slot, or no jobserver to ask: no need for workers.
  std::vector<PreparedDeviceLink *> ToRun;
  for (PreparedDeviceLink &Link : Links)
    if (!Link.Cached && !Link.Distributed)
      ToRun.push_back(&Link);
  if (ToRun.size() <= 1 || MaxJobs == 1 || (Options.UseJobserver && !Jobserver))
    return runInProcess(Session, Links, Dir);
  // SPIR-V links run here, not in workers (SPIRVLink.h), before the others
  // start: each is one of the jobs.
  std::vector<PreparedDeviceLink *> InWorkers;
  for (PreparedDeviceLink *Link : ToRun) {
    if (Link->runner() != DeviceLinkRunner::SPIRV) {
      InWorkers.push_back(Link);
      continue;
    }
    if (Error E = runInProcess(Session, MutableArrayRef(Link, 1), Dir))
      return E;
  }
  ToRun = std::move(InWorkers);
  if (ToRun.empty())
    return Error::success();

  // Our workers' environment: ours, plus who their parent is.
  std::string ParentPrefix = std::string(WorkerParentVar) + "=";
  std::vector<std::string> WorkerEnvStorage;
  for (char **Var = environ; *Var; ++Var)
    if (!StringRef(*Var).starts_with(ParentPrefix))
      WorkerEnvStorage.push_back(*Var);
  WorkerEnvStorage.push_back(ParentPrefix + std::to_string(getpid()));
  std::vector<StringRef> WorkerEnv(WorkerEnvStorage.begin(),
                                   WorkerEnvStorage.end());

  // Each link's log, and its trace when it keeps one apart.
  std::vector<std::string> ErrFiles(ToRun.size()), TraceFiles(ToRun.size());
  Error Failure = Error::success();
  size_t Reaped = 0;
  // Links run without the host's static archives that failed: run again,
  // with them, once the workers are done.
  std::vector<PreparedDeviceLink *> Again;
  auto Start = [&](size_t I) -> std::optional<sys::ProcessInfo> {
    PreparedDeviceLink &Link = *ToRun[I];
    ErrFiles[I] = Dir.path(Link.Job->fileName() + ".log");
    // LLD and NVPTX links run in a worker: this executable in worker mode;
    // other links run their own program.
    bool InWorker = Link.runner() != DeviceLinkRunner::Program;
    StringRef Program = InWorker ? Self : StringRef(Link.Program);
    SmallVector<StringRef, 64> Argv = {Program};
    std::string RequestFile;
    if (Link.runner() == DeviceLinkRunner::NVPTX) {
      // The worker reads the request from a file: data, not a command line
      // to parse again.
      Expected<std::string> Written =
          writeRequest(*Link.NVPTX, Dir, Link.Job->fileName());
      if (!Written) {
        Failure = joinErrors(std::move(Failure), Written.takeError());
        return std::nullopt;
      }
      RequestFile = std::move(*Written);
      Argv.append({NVPTXWorkerFlag, RequestFile});
    } else if (InWorker) {
      Argv.push_back(WorkerFlag);
    }
    for (const std::string &Arg : Link.Args)
      Argv.push_back(Arg);
    // A link that traces what it loads keeps the trace apart.
    TraceFiles[I] = !Link.omitsArchives()
                        ? ErrFiles[I]
                        : Dir.path(Link.Job->fileName() + ".trace");
    std::optional<StringRef> Redirects[] = {
        std::nullopt, StringRef(TraceFiles[I]), StringRef(ErrFiles[I])};
    std::string ErrMsg;
    bool ExecFailed = false;
    std::optional<ArrayRef<StringRef>> Env;
    if (InWorker)
      Env = WorkerEnv;
    sys::ProcessInfo PI = sys::ExecuteNoWait(Program, Argv, Env, Redirects, 0,
                                             &ErrMsg, &ExecFailed);
    if (!ExecFailed)
      return PI;
    Failure = joinErrors(std::move(Failure),
                         createStringError(inconvertibleErrorCode(),
                                           "cannot start a device-link "
                                           "worker: " +
                                               ErrMsg));
    return std::nullopt;
  };
  // Start nothing new after a failure.
  auto Finished = [&](size_t I, int ExitCode, StringRef Why) {
    PreparedDeviceLink &Link = *ToRun[I];
    ++Reaped;
    if (Link.omitsArchives() && Why.empty()) {
      ErrorOr<std::unique_ptr<MemoryBuffer>> Trace =
          MemoryBuffer::getFile(TraceFiles[I]);
      if (ExitCode == 0 && Trace)
        Link.Trace = (*Trace)->getBuffer().str();
      else
        Again.push_back(&Link);
      ExitCode = 0;
    }
    if (ExitCode != 0 && !Failure)
      Failure = deviceLinkError(Link, processMessages(ErrFiles[I], Why));
    return !Failure;
  };
  scheduleWorkers(ToRun.size(), MaxJobs, Jobserver, Start, Finished);
  if (Failure)
    return Failure;
  if (Reaped != ToRun.size())
    return createStringError(inconvertibleErrorCode(),
                             "no job slot for a device link from make's "
                             "jobserver");
  for (PreparedDeviceLink *Link : Again)
    if (Error E = runWithEveryLibrary(Session, *Link))
      return E;
  return Error::success();
}

} // namespace offload

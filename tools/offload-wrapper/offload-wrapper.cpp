//===- offload-wrapper.cpp - Registration code for device images ----------===//
//
// Wraps device images into a host module that registers them at startup.
// Two command lines are accepted:
//   LLVM 22's llvm-offload-wrapper:
//     offload-wrapper --kind=openmp|cuda|hip --triple=T -o out in
//   the older clang-offload-wrapper (legacy OpenMP image info):
//     offload-wrapper -target T -o out --offload-arch=A1 in1 --offload-arch=A2
//     in2
// The output is textual IR, bitcode or an object, chosen by --emit or else
// by the output's extension (.ll, .bc, .o; bitcode otherwise).
//
//===----------------------------------------------------------------------===//

#include "format/OffloadBinary.h"
#include "support/AtomicOutput.h"
#include "tools/common/ToolSupport.h"
#include "wrapper-ir/Emit.h"
#include "wrapper-ir/Registration.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace offload;
using namespace offload::tool;

static cl::OptionCategory Category("offload-wrapper options");

static cl::opt<std::string> OutputFile("o", cl::desc("Write output to <file>."),
                                       cl::value_desc("file"),
                                       cl::cat(Category));

static cl::list<std::string>
    InputFiles(cl::Positional, cl::desc("<input files>"), cl::cat(Category));

static cl::opt<RegistrationKind> Kind(
    "kind", cl::desc("Wrap for offload kind:"),
    cl::values(clEnumValN(RegistrationKind::OpenMP, "openmp",
                          "Wrap OpenMP binaries"),
               clEnumValN(RegistrationKind::Cuda, "cuda", "Wrap CUDA binaries"),
               clEnumValN(RegistrationKind::HIP, "hip", "Wrap HIP binaries")),
    cl::init(RegistrationKind::OpenMP), cl::cat(Category));

static cl::opt<std::string> TripleName("triple",
                                       cl::desc("Target triple for the "
                                                "wrapper module"),
                                       cl::cat(Category));

static cl::opt<std::string>
    TargetName("target",
               cl::desc("Target triple for the output module (as "
                        "clang-offload-wrapper spells --triple)"),
               cl::value_desc("triple"), cl::cat(Category));

static cl::list<std::string>
    OffloadArchs("offload-arch",
                 cl::desc("Target ID of the input that follows (legacy "
                          "image info)"),
                 cl::value_desc("target-id"), cl::cat(Category));

static cl::opt<std::string>
    ABI("abi",
        cl::desc("OpenMP layout: llvm22 (default) or legacy (image info); "
                 "legacy is the default when --offload-arch is given"),
        cl::value_desc("llvm22|legacy"), cl::cat(Category));

static cl::opt<std::string>
    Emit("emit",
         cl::desc("Output form: ll (textual IR), bc (bitcode) or obj (a "
                  "relocatable object); by default from the output's "
                  "extension"),
         cl::value_desc("ll|bc|obj"), cl::cat(Category));

static cl::opt<std::string> EntriesSection(
    "entries-section",
    cl::desc("Section of the offload entries (omp_offloading_entries for "
             "objects from older compilers)"),
    cl::init("llvm_offload_entries"), cl::cat(Category));

static cl::opt<bool> Relocatable(
    "relocatable",
    cl::desc("Embed OpenMP images in .llvm.offloading.relocatable, for a "
             "relocatable link"),
    cl::cat(Category));

static cl::opt<bool> CudaSurfacesAndTextures(
    "cuda-surfaces-and-textures",
    cl::desc("Register CUDA surfaces and textures too (HIP always does)"),
    cl::cat(Category));

static cl::opt<bool> NoPIC("no-pic",
                           cl::desc("Emit an object without position-"
                                    "independent code"),
                           cl::cat(Category));

static Expected<EmitKind> getEmitKind() {
  if (!Emit.empty()) {
    std::optional<EmitKind> K = StringSwitch<std::optional<EmitKind>>(Emit)
                                    .Cases({"ll", "llvm"}, EmitKind::IR)
                                    .Case("bc", EmitKind::Bitcode)
                                    .Cases({"obj", "o"}, EmitKind::Object)
                                    .Default(std::nullopt);
    if (!K)
      return fail("unknown --emit '" + Emit + "' (expected ll, bc or obj)");
    return *K;
  }
  StringRef Ext = sys::path::extension(OutputFile);
  if (Ext == ".ll")
    return EmitKind::IR;
  if (Ext == ".o" || Ext == ".obj")
    return EmitKind::Object;
  return EmitKind::Bitcode;
}

static Expected<Triple> getHostTriple() {
  if (!TripleName.empty() && !TargetName.empty() && TripleName != TargetName)
    return fail("--triple=" + TripleName + " and -target " + TargetName +
                " disagree");
  std::string Name = TripleName.empty() ? TargetName : TripleName;
  if (Name.empty())
    return fail("no host triple: give --triple=<triple> (or -target)");
  Triple TT(Triple::normalize(Name));
  if (TT.getArch() == Triple::UnknownArch)
    return fail("unknown host triple '" + Name + "'");
  return TT;
}

/// The OpenMP layout: --abi, else legacy with --offload-arch or when no input
/// is an OffloadBinary (clang-offload-wrapper took raw images), LLVM 22's
/// when every input is one. A mix is an error: one layout registers all.
static Expected<OpenMPLayout>
getLayout(ArrayRef<std::unique_ptr<MemoryBuffer>> Inputs) {
  if (ABI.empty()) {
    if (Kind != RegistrationKind::OpenMP)
      return OpenMPLayout::LLVM22; // not used
    if (!OffloadArchs.empty())
      return OpenMPLayout::Legacy;
    const MemoryBuffer *Packed = nullptr, *Raw = nullptr;
    for (const std::unique_ptr<MemoryBuffer> &In : Inputs)
      (hasOffloadBinaryMagic(In->getBuffer()) ? Packed : Raw) = In.get();
    if (Packed && Raw)
      return fail("'" + Packed->getBufferIdentifier() +
                  "' is an offload binary and '" + Raw->getBufferIdentifier() +
                  "' is not; give --abi=llvm22 or --abi=legacy");
    return Raw ? OpenMPLayout::Legacy : OpenMPLayout::LLVM22;
  }
  if (ABI == "llvm22")
    return OpenMPLayout::LLVM22;
  if (ABI == "legacy")
    return OpenMPLayout::Legacy;
  return fail("unknown --abi '" + ABI + "' (expected llvm22 or legacy)");
}

/// The --offload-arch that precedes input \p Index on the command line.
static std::string archForInput(unsigned Index) {
  unsigned InputPos = InputFiles.getPosition(Index);
  std::string Arch;
  for (unsigned I = 0; I != OffloadArchs.size(); ++I)
    if (OffloadArchs.getPosition(I) < InputPos)
      Arch = OffloadArchs[I];
  return Arch;
}

/// Each OffloadBinary of an LLVM 22 OpenMP input becomes one registered
/// image pointing at the image bytes inside it.
static Error addOffloadBinaries(StringRef Path, StringRef Data,
                                ByteStore &Store,
                                std::vector<ImageToRegister> &Images) {
  if (!hasOffloadBinaryMagic(Data))
    return fail("'" + Path +
                "': not an offload binary (expected magic 10 FF 10 AD); "
                "raw device images need --abi=legacy");
  Expected<std::vector<OffloadBinary>> Binaries =
      readOffloadBinaries(Data, Store, Path);
  if (!Binaries)
    return Binaries.takeError();
  for (const OffloadBinary &Binary : *Binaries) {
    if (Binary.Version != 1 || Binary.Images.size() != 1)
      return fail("'" + Path + "': offset 0x" + utohexstr(Binary.Offset) +
                  ": version " + Twine(Binary.Version) +
                  " binary; the LLVM 22 runtime registers version 1 binaries "
                  "of one image");
    const OffloadImage &Image = Binary.Images.front();
    ImageToRegister R;
    R.Data = Binary.Data;
    R.ImageBegin = Image.ImageOffset;
    R.ImageEnd = Image.ImageOffset + Image.Image.size();
    R.Arch = Image.getArch().str();
    Images.push_back(std::move(R));
  }
  return Error::success();
}

static Error run() {
  if (OutputFile.empty())
    return fail("no output file: give -o <file>");
  if (InputFiles.empty())
    return fail("no input file");
  Expected<Triple> Host = getHostTriple();
  if (!Host)
    return Host.takeError();
  Expected<EmitKind> EmitAs = getEmitKind();
  if (!EmitAs)
    return EmitAs.takeError();
  std::vector<std::unique_ptr<MemoryBuffer>> Buffers;
  for (const std::string &Path : InputFiles) {
    Expected<std::unique_ptr<MemoryBuffer>> Buffer = readInputFile(Path);
    if (!Buffer)
      return Buffer.takeError();
    Buffers.push_back(std::move(*Buffer));
  }
  RegistrationOptions Options;
  Options.Kind = Kind;
  Expected<OpenMPLayout> Layout = getLayout(Buffers);
  if (!Layout)
    return Layout.takeError();
  Options.Layout = *Layout;
  Options.EntriesSection = EntriesSection;
  Options.Relocatable = Relocatable;
  Options.CudaSurfacesAndTextures = CudaSurfacesAndTextures;

  ByteStore Store;
  std::vector<ImageToRegister> Images;
  for (unsigned I = 0; I != InputFiles.size(); ++I) {
    StringRef Path = InputFiles[I];
    StringRef Data = Buffers[I]->getBuffer();
    if (Kind == RegistrationKind::OpenMP &&
        Options.Layout == OpenMPLayout::LLVM22) {
      if (Error E = addOffloadBinaries(Path, Data, Store, Images))
        return E;
      continue;
    }
    ImageToRegister R;
    R.Data = Data;
    R.ImageEnd = Data.size();
    R.Arch = archForInput(I);
    Images.push_back(std::move(R));
  }

  LLVMContext Context;
  Expected<std::unique_ptr<Module>> M =
      buildRegistrationModule(Context, *Host, Images, Options);
  if (!M)
    return M.takeError();
  EmitOptions HowToEmit;
  HowToEmit.Kind = *EmitAs;
  HowToEmit.PIC = !NoPIC;
  Expected<SmallString<0>> Out = emitModule(**M, HowToEmit);
  if (!Out)
    return Out.takeError();
  return writeFileAtomically(OutputFile, *Out);
}

int main(int Argc, char **Argv) {
  ToolInit Init(
      Argc, Argv, Category,
      "Generate runtime registration code for device binary images\n");
  return exitStatus(run());
}

//===- lld-plugin/NVPTXLink.cpp - NVPTX device links ----------------------===//

#include "lld-plugin/NVPTXLink.h"
#include "format/ArchiveMembers.h"
#include "format/CheckedArchive.h"
#include "support/AtomicOutput.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/LTO/LTO.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Caching.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

using namespace llvm;

namespace offload {

static Error linkError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// \p Buffer as an LTO input, or an error naming it.
static Expected<std::unique_ptr<lto::InputFile>>
readBitcode(MemoryBufferRef Buffer) {
  Expected<std::unique_ptr<lto::InputFile>> File =
      lto::InputFile::create(Buffer);
  if (!File)
    return linkError(Buffer.getBufferIdentifier() + ": " +
                     toString(File.takeError()));
  return File;
}

namespace {
/// Bitcode going into one LTO link, and which symbols it defines and needs:
/// archive members are added while they define something needed.
class LTOInputs {
public:
  explicit LTOInputs(lto::LTO &L) : L(L) {}

  Error add(MemoryBufferRef Buffer) {
    Expected<std::unique_ptr<lto::InputFile>> File = readBitcode(Buffer);
    if (!File)
      return File.takeError();
    std::vector<lto::SymbolResolution> Resolutions;
    for (const lto::InputFile::Symbol &Sym : (*File)->symbols()) {
      lto::SymbolResolution R;
      if (Sym.isUndefined()) {
        if (!Defined.contains(Sym.getName()))
          Undefined.insert(Sym.getName());
      } else {
        // The first definition wins, as in an archive-order link.
        R.Prevailing = Defined.insert(Sym.getName()).second;
        Undefined.erase(Sym.getName());
      }
      // What other cubins (nvlink) and the runtime may refer to stays:
      // kernels, device globals, everything not hidden, and what a cubin
      // names. As clang-nvlink-wrapper resolves them: a distributed link
      // runs it (DeviceLinkDistributor.h) and must write the same PTX.
      bool Exported = Sym.getVisibility() != GlobalValue::HiddenVisibility &&
                      !Sym.canBeOmittedFromSymbolTable();
      R.VisibleToRegularObj =
          InCubins.contains(Sym.getName()) || (R.Prevailing && Exported);
      R.ExportDynamic = Exported;
      // NVPTX has no symbol preemption.
      R.FinalDefinitionInLinkageUnit = true;
      Resolutions.push_back(R);
    }
    ++Added;
    return L.add(std::move(*File), Resolutions);
  }

  /// Notes what a cubin defines and needs: library members are linked for
  /// it too (an OpenMP kernel's calls into the device runtime).
  Error noteCubin(MemoryBufferRef Buffer) {
    Expected<std::unique_ptr<object::ObjectFile>> Obj =
        object::ObjectFile::createObjectFile(Buffer);
    if (!Obj)
      return linkError(Buffer.getBufferIdentifier() + ": " +
                       toString(Obj.takeError()));
    for (const object::SymbolRef &Sym : (*Obj)->symbols()) {
      Expected<uint32_t> Flags = Sym.getFlags();
      Expected<StringRef> Name = Sym.getName();
      if (!Flags || !Name) {
        consumeError(Flags.takeError());
        consumeError(Name.takeError());
        continue;
      }
      if (!(*Flags & object::SymbolRef::SF_Global) || Name->empty())
        continue;
      InCubins.insert(*Name);
      if (*Flags & object::SymbolRef::SF_Undefined) {
        if (!Defined.contains(*Name))
          Undefined.insert(*Name);
      } else {
        // Defined outside LTO: bitcode defining it too does not prevail.
        Defined.insert(*Name);
        Undefined.erase(*Name);
      }
    }
    return Error::success();
  }

  /// How many bitcode files were added.
  size_t size() const { return Added; }

  /// True if \p Buffer defines a symbol still undefined.
  Expected<bool> isNeeded(MemoryBufferRef Buffer) {
    Expected<std::unique_ptr<lto::InputFile>> File = readBitcode(Buffer);
    if (!File)
      return File.takeError();
    for (const lto::InputFile::Symbol &Sym : (*File)->symbols())
      if (!Sym.isUndefined() && Undefined.contains(Sym.getName()))
        return true;
    return false;
  }

private:
  lto::LTO &L;
  StringSet<> Defined, Undefined;
  /// Every global a cubin defines or needs.
  StringSet<> InCubins;
  size_t Added = 0;
};
} // namespace

/// The bitcode members of \p Lib, in member order.
static Expected<std::vector<MemoryBufferRef>>
bitcodeMembers(object::Archive &Lib, StringRef LibName) {
  std::vector<MemoryBufferRef> Members;
  if (Error E = forEachArchiveMember(
          Lib, LibName, [&](const ArchiveMember &Member) -> Error {
            Expected<MemoryBufferRef> Buffer = Member.data();
            if (!Buffer)
              return Buffer.takeError();
            if (identify_magic(Buffer->getBuffer()) == file_magic::bitcode)
              Members.push_back(*Buffer);
            return Error::success();
          }))
    return std::move(E);
  return std::move(Members);
}

/// A bitcode file that may go into LTO: an input or a device library, linked
/// whole, or an archive member, linked when it defines what the link needs.
struct LTOCandidate {
  MemoryBufferRef Buffer;
  bool Lazy = false;
  bool Added = false;
};

/// Adds \p Candidates to \p Inputs as clang-nvlink-wrapper adds its inputs
/// (a distributed link runs it: DeviceLinkDistributor.h): pass after pass
/// over all of them in command-line order, each file when first seen, each
/// member once it defines something needed, until a pass adds nothing. The
/// order they are added in is the order of the modules in the PTX.
static Error addInWrapperOrder(LTOInputs &Inputs,
                               MutableArrayRef<LTOCandidate> Candidates) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (LTOCandidate &C : Candidates) {
      if (C.Added)
        continue;
      if (C.Lazy) {
        Expected<bool> Needed = Inputs.isNeeded(C.Buffer);
        if (!Needed)
          return Needed.takeError();
        if (!*Needed)
          continue;
      }
      if (Error E = Inputs.add(C.Buffer))
        return E;
      C.Added = Changed = true;
    }
  }
  return Error::success();
}

/// LTO of \p Bitcode and what the libraries give it and \p Cubins to one
/// PTX file for the request's arch; none when there is nothing to compile.
static Expected<std::optional<std::string>>
compileToPTX(ArrayRef<MemoryBufferRef> Bitcode,
             ArrayRef<MemoryBufferRef> Cubins, const NVPTXLinkRequest &R,
             std::vector<std::unique_ptr<MemoryBuffer>> &Keep) {
  InitializeAllTargetInfos();
  InitializeAllTargets();
  InitializeAllTargetMCs();
  InitializeAllAsmPrinters();

  lto::Config Conf;
  Conf.CPU = R.Arch;
  Conf.CGFileType = CodeGenFileType::AssemblyFile;
  Conf.DefaultTriple = "nvptx64-nvidia-cuda";
  lto::LTO L(std::move(Conf));
  LTOInputs Inputs(L);
  for (MemoryBufferRef Cubin : Cubins)
    if (Error E = Inputs.noteCubin(Cubin))
      return std::move(E);
  std::vector<LTOCandidate> Candidates;
  for (MemoryBufferRef Buffer : Bitcode)
    Candidates.push_back({Buffer});
  for (const std::string &Lib : R.Libraries) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(Lib, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (std::error_code EC = Buffer.getError())
      return linkError(Lib + ": cannot read: " + EC.message());
    MemoryBufferRef Ref = **Buffer;
    Keep.push_back(std::move(*Buffer));
    if (identify_magic(Ref.getBuffer()) != file_magic::archive) {
      Candidates.push_back({Ref});
      continue;
    }
    Expected<std::unique_ptr<object::Archive>> Archive =
        createCheckedArchive(Ref);
    if (!Archive)
      return linkError(Lib + ": " + toString(Archive.takeError()));
    Expected<std::vector<MemoryBufferRef>> Members =
        bitcodeMembers(**Archive, Lib);
    if (!Members)
      return Members.takeError();
    for (MemoryBufferRef Member : *Members)
      Candidates.push_back({Member, /*Lazy=*/true});
  }
  if (Error E = addInWrapperOrder(Inputs, Candidates))
    return std::move(E);

  if (Inputs.size() == 0)
    return std::nullopt;

  SmallString<0> PTX;
  auto AddStream = [&](size_t, const Twine &) {
    return std::make_unique<CachedFileStream>(
        std::make_unique<raw_svector_ostream>(PTX));
  };
  if (Error E = L.run(AddStream))
    return linkError("LTO for " + R.Arch +
                     " failed: " + toString(std::move(E)));
  std::string Path = R.ptxFile();
  if (Error E = writeFileDirectly(Path, PTX))
    return linkError(toString(std::move(E)));
  return std::optional<std::string>(Path);
}

/// Runs a CUDA toolkit \p Tool; its messages go to a log next to \p Output
/// and into the error when it fails.
static Error runTool(const NVPTXLinkRequest &R, StringRef Tool,
                     ArrayRef<std::string> Args, StringRef Output) {
  SmallString<128> Path(R.CudaPath);
  sys::path::append(Path, "bin", Tool);
  if (!sys::fs::can_execute(Path))
    return linkError("CUDA device code needs the CUDA toolkit's '" + Tool +
                     "', which is not at " + Path +
                     "; install the toolkit or give its location with "
                     "--offload-cuda-path=<dir>");
  SmallVector<StringRef, 16> Argv = {Path};
  for (const std::string &Arg : Args)
    Argv.push_back(Arg);
  std::string Log = (Output + ".log").str();
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Log),
                                          StringRef(Log)};
  std::string ErrMsg;
  int RC =
      sys::ExecuteAndWait(Path, Argv, std::nullopt, Redirects, 0, 0, &ErrMsg);
  if (RC == 0)
    return Error::success();
  ErrorOr<std::unique_ptr<MemoryBuffer>> Said = MemoryBuffer::getFile(Log);
  std::string Text = Said ? (*Said)->getBuffer().rtrim().str() : "";
  if (!ErrMsg.empty())
    Text += (Text.empty() ? "" : "\n") + ErrMsg;
  return linkError(Tool + " failed:\n" + Text);
}

Error linkNVPTX(const NVPTXLinkRequest &R) {
  std::vector<std::unique_ptr<MemoryBuffer>> Buffers;
  std::vector<MemoryBufferRef> Bitcode, CubinBuffers;
  std::vector<std::string> Cubins;
  for (const std::string &Input : R.Inputs) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(Input, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (std::error_code EC = Buffer.getError())
      return linkError(Input + ": cannot read: " + EC.message());
    bool IsBitcode =
        identify_magic((*Buffer)->getBuffer()) == file_magic::bitcode;
    (IsBitcode ? Bitcode : CubinBuffers).push_back(**Buffer);
    if (!IsBitcode)
      Cubins.push_back(Input);
    Buffers.push_back(std::move(*Buffer));
  }

  // The bitcode, and the library code the link needs, becomes one
  // relocatable cubin, as `ptxas -c` makes them for relocatable device code:
  // LTO to PTX and ptxas here, or as far as a distributor's machines took
  // it (Given).
  using Stage = NVPTXLinkRequest::Stage;
  Expected<std::optional<std::string>> PTX =
      R.Given != Stage::None ? Expected<std::optional<std::string>>(R.ptxFile())
                             : compileToPTX(Bitcode, CubinBuffers, R, Buffers);
  if (!PTX)
    return PTX.takeError();
  if (*PTX) {
    std::string Cubin = R.ltoCubinFile();
    if (R.Given != Stage::Cubin)
      if (Error E = runTool(R, "ptxas", R.ptxasArgs(), Cubin))
        return E;
    Cubins.insert(Cubins.begin(), Cubin);
  }
  return runTool(R, "nvlink", R.nvlinkArgs(Cubins), R.Output);
}

} // namespace offload

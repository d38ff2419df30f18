//===- offload-packager.cpp - Pack, extract and list offload binaries -----===//
//
// Command-line compatible with LLVM 22's llvm-offload-binary (formerly
// clang-offload-packager):
//   offload-packager -o out.bin --image=file=a.o,triple=T,arch=A,kind=openmp
//   offload-packager in.o --image=triple=T[,file=out.o] [--archive]
// plus --list (one line per image) and --format=v1|v2|v3.
//
//===----------------------------------------------------------------------===//

#include "format/FindOffloadBinaries.h"
#include "format/OffloadBinaryWriter.h"
#include "format/SafeFileName.h"
#include "support/AtomicOutput.h"
#include "tools/common/ToolSupport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace offload;
using namespace offload::tool;

static cl::OptionCategory Category("offload-packager options");

static cl::opt<std::string> OutputFile("o", cl::desc("Write output to <file>."),
                                       cl::value_desc("file"),
                                       cl::cat(Category));

static cl::list<std::string> InputFiles(cl::Positional,
                                        cl::desc("Extract from <file>."),
                                        cl::value_desc("file"),
                                        cl::cat(Category));

static cl::list<std::string>
    Images("image",
           cl::desc("List of key and value arguments. Required keywords are "
                    "'file' and 'triple'."),
           cl::value_desc("<key>=<value>,..."), cl::cat(Category));

static cl::opt<bool>
    CreateArchive("archive",
                  cl::desc("Write extracted files to a static archive"),
                  cl::cat(Category));

static cl::opt<bool>
    List("list",
         cl::desc("Print one line per image found in the inputs: origin, "
                  "format version, image kind, offload kind, triple, arch, "
                  "size and the other keys"),
         cl::cat(Category));

static cl::opt<std::string>
    Format("format",
           cl::desc("Format version to write: v1 (default, one binary per "
                    "image, what LLVM 22 reads), v2 or v3 (all images in one "
                    "binary)"),
           cl::value_desc("v1|v2|v3"), cl::init("v1"), cl::cat(Category));

static cl::opt<bool>
    Compress("compress",
             cl::desc("Compress the binary with zstd (needs --format=v3)"),
             cl::cat(Category));

/// The key/value pairs of one --image argument. Repeated keys join their
/// values with commas. The DenseMap, and so its iteration order, is what LLVM
/// 22's tool uses: the order of the strings it writes follows from it, and
/// byte-identical output needs the same order.
static DenseMap<StringRef, StringRef> parseImageArgument(StringRef Arg,
                                                         StringSaver &Saver) {
  DenseMap<StringRef, StringRef> Args;
  for (StringRef Pair : split(Arg, ",")) {
    auto [Key, Value] = Pair.split("=");
    auto [It, Inserted] = Args.try_emplace(Key, Value);
    if (!Inserted)
      It->second = Saver.save(It->second + "," + Value);
  }
  return Args;
}

/// Warns about what llvm-offload-binary takes silently in a --image
/// argument, and so do we (a build may rely on it): a key that no tool
/// reads, which is kept as a string (`tripel=` leaves the image without a
/// triple), and an offload kind it does not know, which becomes none.
static void warnAboutImageArgument(StringRef Arg,
                                   const DenseMap<StringRef, StringRef> &Args) {
  static constexpr StringLiteral Known[] = {"file", "triple", "arch", "kind",
                                            "feature"};
  // The pairs in the order given, for messages that follow the command line.
  for (StringRef Pair : split(Arg, ",")) {
    StringRef Key = Pair.split("=").first;
    if (!Pair.contains('=') || is_contained(Known, Key))
      continue;
    WithColor::warning(errs(), ToolName)
        << "--image=" << Arg << ": unknown key '" << Key
        << "' (known: file, triple, arch, kind, feature); kept as a string\n";
  }
  auto Kind = Args.find("kind");
  if (Kind != Args.end() &&
      getOffloadKindFromName(Kind->second) == OffloadKind::None)
    WithColor::warning(errs(), ToolName)
        << "--image=" << Arg << ": unknown offload kind '" << Kind->second
        << "' (known: openmp, cuda, hip, sycl); the image's kind is none\n";
}

/// The image kind as LLVM's tool infers it: bitcode by its magic (clang names
/// LTO bitcode `.o`), anything else by its extension.
static ImageKind inferImageKind(StringRef Path, StringRef Contents) {
  if (identify_magic(Contents) == file_magic::bitcode)
    return ImageKind::Bitcode;
  if (!sys::path::has_extension(Path))
    return ImageKind::None;
  return getImageKindFromExtension(sys::path::extension(Path).drop_front());
}

static Expected<WriteOptions> getWriteOptions() {
  WriteOptions Options;
  if (Format == "v1" || Format == "1")
    Options.Version = 1;
  else if (Format == "v2" || Format == "2")
    Options.Version = 2;
  else if (Format == "v3" || Format == "3")
    Options.Version = 3;
  else
    return fail("unknown --format '" + Format + "' (expected v1, v2 or v3)");
  if (Compress && Options.Version < 3)
    return fail("--compress needs --format=v3");
  Options.Compress = Compress;
  return Options;
}

static Error pack() {
  Expected<WriteOptions> Options = getWriteOptions();
  if (!Options)
    return Options.takeError();

  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  std::vector<std::unique_ptr<MemoryBuffer>> Inputs;
  std::vector<ImageToWrite> ToWrite;
  for (StringRef Arg : Images) {
    DenseMap<StringRef, StringRef> Args = parseImageArgument(Arg, Saver);
    warnAboutImageArgument(Arg, Args);
    auto File = Args.find("file");
    if (File == Args.end())
      return fail("'file' is a required image argument: --image=" + Arg);
    // Several files may share one set of keys: file=a.o,file=b.o.
    for (StringRef Path : split(File->second, ",")) {
      Expected<std::unique_ptr<MemoryBuffer>> Buffer = readInputFile(Path);
      if (!Buffer)
        return Buffer.takeError();
      ImageToWrite Image;
      Image.Image = (*Buffer)->getBuffer();
      Image.TheImageKind = inferImageKind(Path, Image.Image);
      for (const auto &[Key, Value] : Args) {
        if (Key == "kind")
          Image.TheOffloadKind = getOffloadKindFromName(Value);
        else if (Key != "file")
          Image.Strings.emplace_back(Key.str(), Value.str());
      }
      Inputs.push_back(std::move(*Buffer));
      ToWrite.push_back(std::move(Image));
    }
  }
  return writeFileAtomically(OutputFile, [&](raw_ostream &OS) {
    return writeOffloadBinaries(OS, ToWrite, *Options);
  });
}

/// True if \p Image has every key of a --image filter; `file` names the output
/// and `kind` is compared with the offload kind.
static bool matches(const OffloadImage &Image,
                    const DenseMap<StringRef, StringRef> &Filter) {
  return all_of(Filter, [&](const auto &KV) {
    if (KV.first == "file")
      return true;
    if (KV.first == "kind")
      return Image.TheOffloadKind == getOffloadKindFromName(KV.second);
    return Image.getString(KV.first) == KV.second;
  });
}

/// An image, its binary and the name LLVM's tool gives the buffer it came
/// from: the archive member's name inside an archive, else the input's name.
struct FoundImage {
  const OffloadImage *Image;
  const OffloadBinary *Binary;
  size_t Index;
  StringRef BufferName;
};

/// Writes the bytes of \p Found to \p Path, inflating them as they are
/// written where they were left compressed.
static Error writeImage(StringRef Path, const FoundImage &Found) {
  return writeFileAtomically(Path, [&](raw_ostream &OS) {
    return streamOffloadImages(*Found.Binary, Found.Index,
                               [&](size_t, StringRef Piece) {
                                 OS << Piece;
                                 return Error::success();
                               });
  });
}

/// Writes \p Found under the name LLVM 22's tool generates:
/// <input stem>-<triple>-<arch>.<index>.<extension>. The triple and arch
/// come from the image, that is from whoever built it: where they would
/// make a name that leaves the working directory ("/", ".."), holds NUL or
/// control characters, or is too long for a file name, they are cleaned
/// (safeFileNamePart()) and a warning says so.
static Error extractWithGeneratedName(const FoundImage &Found, StringRef Input,
                                      uint64_t &Index) {
  const OffloadImage &Image = *Found.Image;
  StringRef Stem = sys::path::stem(Input);
  std::string Suffix =
      ("." + Twine(Index++) + "." + getImageKindName(Image.TheImageKind)).str();
  auto Compose = [&](StringRef Triple, StringRef Arch) {
    return (Stem + "-" + Triple + "-" + Arch + Suffix).str();
  };
  bool TripleChanged = false, ArchChanged = false;
  std::string Triple = safeFileNamePart(Image.getTriple(), &TripleChanged);
  std::string Arch = safeFileNamePart(Image.getArch(), &ArchChanged);
  std::string Name = Compose(Triple, Arch);
  if (Name.size() > MaxFileNameSize) {
    // Too long for one file name: the triple and arch share what the stem
    // and the suffix leave, a short one leaving its room to the other.
    size_t Fixed = Stem.size() + 2 + Suffix.size();
    size_t Room = Fixed < MaxFileNameSize ? MaxFileNameSize - Fixed : 0;
    size_t TripleRoom = Room / 2, ArchRoom = Room - Room / 2;
    if (Triple.size() < TripleRoom)
      ArchRoom = Room - Triple.size();
    else if (Arch.size() < ArchRoom)
      TripleRoom = Room - Arch.size();
    bool Cut = false;
    Triple = safeFileNamePart(Image.getTriple(), &Cut, TripleRoom);
    TripleChanged |= Cut;
    Arch = safeFileNamePart(Image.getArch(), &Cut, ArchRoom);
    ArchChanged |= Cut;
    Name = Compose(Triple, Arch);
  }
  if (TripleChanged || ArchChanged) {
    raw_ostream &OS = WithColor::warning(errs(), ToolName);
    OS << "'" << Input << "': the image's triple '";
    OS.write_escaped(Image.getTriple());
    OS << "' and arch '";
    OS.write_escaped(Image.getArch());
    OS << "' do not make a safe file name ('";
    OS.write_escaped(Compose(Image.getTriple(), Image.getArch()));
    OS << "'); writing '" << Name << "' instead\n";
  }
  return writeImage(Name, Found);
}

static Error extract(StringRef Input) {
  // Compressed binaries are inflated as far as their strings: the images
  // are inflated again, as a stream, when written.
  OffloadBinaryFinder Finder(InflateMode::Metadata);
  if (Error E = Finder.addFile(Input))
    return E;
  SmallVector<FoundImage> All;
  for (const FoundOffloadBinary &Found : Finder.binaries()) {
    // Nested archive members read "outer.a)(inner.o"; the innermost one
    // names the buffer.
    StringRef BufferName = Input;
    if (!Found.Origin.Member.empty()) {
      auto [Outer, Inner] = StringRef(Found.Origin.Member).rsplit(")(");
      BufferName = Inner.empty() ? Outer : Inner;
    }
    for (auto [I, Image] : enumerate(Found.Binary.Images))
      All.push_back({&Image, &Found.Binary, I, BufferName});
  }

  // Without filters, extract everything under generated names.
  if (Images.empty()) {
    uint64_t Index = 0;
    for (const FoundImage &Found : All)
      if (Error E = extractWithGeneratedName(Found, Input, Index))
        return E;
    return Error::success();
  }

  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  for (StringRef Arg : Images) {
    DenseMap<StringRef, StringRef> Filter = parseImageArgument(Arg, Saver);
    warnAboutImageArgument(Arg, Filter);
    SmallVector<FoundImage> Matched;
    for (const FoundImage &Found : All)
      if (matches(*Found.Image, Filter))
        Matched.push_back(Found);
    // llvm-offload-binary writes nothing and exits 0: say so.
    if (Matched.empty()) {
      WithColor::warning(errs(), ToolName)
          << "--image=" << Arg << ": no image of " << Input
          << " matches; nothing written for it\n";
      continue;
    }

    auto File = Filter.find("file");
    if (CreateArchive) {
      if (File == Filter.end())
        return fail("--archive needs a 'file' argument: --image=" + Arg);
      // The archive is built in memory: compressed images are inflated
      // into it.
      ByteStore Inflated;
      std::vector<NewArchiveMember> Members;
      for (const FoundImage &Found : Matched) {
        Expected<StringRef> Bytes =
            loadOffloadImage(*Found.Binary, Found.Index, Inflated);
        if (!Bytes)
          return Bytes.takeError();
        Members.emplace_back(MemoryBufferRef(*Bytes, Found.BufferName));
      }
      if (Error E = writeArchive(File->second, Members,
                                 SymtabWritingMode::NormalSymtab,
                                 object::Archive::getDefaultKind(),
                                 /*Deterministic=*/true, /*Thin=*/false))
        return fail("'" + File->second + "': " + toString(std::move(E)));
    } else if (File != Filter.end()) {
      if (Matched.size() > 1)
        WithColor::warning(errs(), ToolName)
            << "Multiple inputs match to a single file, '" << File->second
            << "'\n";
      if (Error E = writeImage(File->second, Matched.back()))
        return E;
    } else {
      uint64_t Index = 0;
      for (const FoundImage &Found : Matched)
        if (Error E = extractWithGeneratedName(Found, Input, Index))
          return E;
    }
  }
  return Error::success();
}

/// The image kind for --list: LLVM's extension names, "spirv" (which LLVM 22
/// has no name for), "-" for none and the number for anything else.
static std::string describeImageKind(ImageKind Kind) {
  if (Kind == ImageKind::None)
    return "-";
  if (Kind == ImageKind::SPIRV)
    return "spirv";
  StringRef Name = getImageKindName(Kind);
  return Name.empty() ? "kind" + std::to_string(static_cast<unsigned>(Kind))
                      : Name.str();
}

/// Prints "<origin>: <version> <image kind> <offload kind> <triple> <arch>
/// <size> [key=value...]" for every image of every input.
static Error list() {
  // Compressed binaries are inflated no further than their strings.
  OffloadBinaryFinder Finder(InflateMode::Metadata);
  for (StringRef Input : InputFiles)
    if (Error E = Finder.addFile(Input))
      return E;
  auto OrDash = [](StringRef S) { return S.empty() ? StringRef("-") : S; };
  for (const FoundOffloadBinary &Found : Finder.binaries()) {
    const OffloadBinary &Binary = Found.Binary;
    for (const OffloadImage &Image : Binary.Images) {
      outs() << Found.Origin.describe() << ": v" << Binary.Version
             << (Binary.Compressed ? "-compressed" : "") << " "
             << describeImageKind(Image.TheImageKind) << " "
             << getOffloadKindName(Image.TheOffloadKind) << " "
             << OrDash(Image.getTriple()) << " " << OrDash(Image.getArch())
             << " " << Image.getImageSize();
      for (const auto &[Key, Value] : Image.Strings) {
        if (Key == "triple" || Key == "arch")
          continue;
        outs() << " " << Key << "=";
        printEscapedString(Value, outs());
      }
      outs() << "\n";
    }
  }
  return Error::success();
}

static Error run() {
  if (List) {
    if (InputFiles.empty())
      return fail("--list needs at least one input file");
    if (!OutputFile.empty())
      return fail("--list and -o are mutually exclusive");
    return list();
  }
  if (!InputFiles.empty() && !OutputFile.empty())
    return fail("Packaging to an output file and extracting from "
                "an input file are mutually exclusive.");
  if (!OutputFile.empty())
    return pack();
  if (InputFiles.size() > 1)
    return fail("extracting takes one input file; use --list to "
                "look into several");
  return extract(InputFiles.front());
}

int main(int Argc, char **Argv) {
  ToolInit Init(
      Argc, Argv, Category,
      "A utility for bundling several object files into a single binary.\n"
      "The output binary can then be embedded into the host section table\n"
      "to create a fatbinary containing offloading code.\n");

  if (OutputFile.empty() && InputFiles.empty() && !List) {
    cl::PrintHelpMessage();
    return EXIT_SUCCESS;
  }
  return exitStatus(run());
}

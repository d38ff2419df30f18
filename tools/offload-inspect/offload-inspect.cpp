//===- offload-inspect.cpp - Which devices does this binary carry? --------===//
//
//   offload-inspect [--json] [--extract=<dir>] <file>...
//   offload-inspect --resources [--json] [--no-demangle] <file>...
//
// Lists every device image in objects, archives, linked programs, bundles,
// compressed bundles, OffloadBinaries and CUDA fat binaries, recursively, as
// an indented tree or as JSON, and can write each image to a file. With
// --resources it lists the kernels of every GPU code object among them
// instead, with the registers, memory and occupancy each one uses.
//
//===----------------------------------------------------------------------===//

#include "Inspector.h"
#include "Resources.h"

#include "format/KernelResourceTable.h"
#include "format/SafeFileName.h"

#include "support/AtomicOutput.h"
#include "tools/common/ToolSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace offload;
using namespace offload::tool;

static cl::OptionCategory Category("offload-inspect options");

static cl::list<std::string> InputFiles(cl::Positional, cl::OneOrMore,
                                        cl::desc("<file>..."),
                                        cl::cat(Category));

static cl::opt<bool> JSON("json",
                          cl::desc("Print JSON instead of the indented tree"),
                          cl::cat(Category));

static cl::opt<std::string>
    ExtractDir("extract",
               cl::desc("Write every device image into <dir> as "
                        "<index>-<kind>-<triple>-<arch>.<ext>"),
               cl::value_desc("dir"), cl::cat(Category));

static cl::opt<bool> VerifyHashes(
    "verify-hashes",
    cl::desc("Inflate compressed bundles to their end and check their MD5 "
             "hashes (otherwise only what is shown is inflated)"),
    cl::cat(Category));

static cl::opt<bool> Resources(
    "resources",
    cl::desc("List the kernels of every GPU code object with their "
             "resources (registers, spills, LDS, scratch, occupancy) instead "
             "of the images"),
    cl::cat(Category));

static cl::opt<bool>
    NoDemangle("no-demangle",
               cl::desc("With --resources: show kernel names as stored"),
               cl::cat(Category));

using Type = InspectNode::Type;

static std::string hex(uint64_t V) { return "0x" + utohexstr(V, true); }

static StringRef orDash(StringRef S) { return S.empty() ? "-" : S; }

static StringRef getTypeName(Type T) {
  switch (T) {
  case Type::File:
    return "file";
  case Type::Section:
    return "section";
  case Type::OffloadBinary:
    return "offload-binary";
  case Type::Bundle:
    return "bundle";
  case Type::TextBundle:
    return "text-bundle";
  case Type::CompressedBundle:
    return "compressed-bundle";
  case Type::ObjectBundle:
    return "object-bundle";
  case Type::CudaFatbin:
    return "cuda-fatbin";
  case Type::Image:
    return "image";
  case Type::HostEntry:
    return "host-entry";
  }
  return "unknown";
}

/// Calls \p Fn on every image under \p Node, in index order (pre-order).
static void forEachImage(const InspectNode &Node,
                         function_ref<void(const InspectNode &)> Fn) {
  if (Node.TheType == Type::Image)
    Fn(Node);
  for (const InspectNode &Child : Node.Children)
    forEachImage(Child, Fn);
}

static size_t countImages(const InspectNode &Node) {
  size_t N = 0;
  forEachImage(Node, [&](const InspectNode &) { ++N; });
  return N;
}

//===----------------------------------------------------------------------===//
// SPIR-V
//===----------------------------------------------------------------------===//

/// "0x0006000E (LLVM/SPIR-V Translator, version 14)", or with "tool <id>"
/// for a tool the table does not name.
static std::string describeGenerator(const SPIRVModuleInfo &M) {
  std::string Hex = utohexstr(M.Generator, /*LowerCase=*/false);
  Hex.insert(0, 8 - Hex.size(), '0');
  StringRef Name = getSPIRVGeneratorName(M.getGeneratorTool());
  return "0x" + Hex + " (" +
         (Name.empty() ? "tool " + std::to_string(M.getGeneratorTool())
                       : Name.str()) +
         ", version " + std::to_string(M.getGeneratorVersion()) + ")";
}

/// The lines under a SPIR-V image's "at" line, each begun (the tree ends
/// the last).
static void printSPIRV(raw_ostream &OS, const SPIRVModuleInfo &M,
                       unsigned Indent) {
  OS << "\n";
  OS.indent(Indent) << "SPIR-V " << unsigned(M.Major) << "."
                    << unsigned(M.Minor) << (M.BigEndian ? " (big-endian)" : "")
                    << ", generator " << describeGenerator(M) << ", bound "
                    << M.Bound;
  OS << "\n";
  OS.indent(Indent) << "memory model: ";
  if (M.AddressingModel)
    OS << describeSPIRVValue(*M.AddressingModel, getSPIRVAddressingModelName)
       << " " << describeSPIRVValue(*M.MemoryModel, getSPIRVMemoryModelName);
  else
    OS << "-";
  OS << "\n";
  OS.indent(Indent) << "capabilities:";
  for (uint32_t C : M.Capabilities)
    OS << " " << describeSPIRVValue(C, getSPIRVCapabilityName);
  if (M.Capabilities.empty())
    OS << " -";
  OS << "\n";
  OS.indent(Indent) << "extensions:";
  for (const std::string &E : M.Extensions)
    OS << " " << E;
  if (M.Extensions.empty())
    OS << " -";
  if (M.EntryPoints.empty()) {
    OS << "\n";
    OS.indent(Indent) << "entry points: -";
  }
  for (const SPIRVEntryPoint &E : M.EntryPoints) {
    OS << "\n";
    OS.indent(Indent) << "entry point: "
                      << describeSPIRVValue(E.ExecutionModel,
                                            getSPIRVExecutionModelName)
                      << " " << E.Name;
  }
}

/// The "spirv" object of a SPIR-V image.
static void writeSPIRVJSON(json::OStream &J, const SPIRVModuleInfo &M) {
  J.attributeObject("spirv", [&] {
    J.attribute("version",
                std::to_string(M.Major) + "." + std::to_string(M.Minor));
    J.attribute("big_endian", M.BigEndian);
    J.attribute("generator", M.Generator);
    J.attribute("generator_tool", M.getGeneratorTool());
    StringRef Name = getSPIRVGeneratorName(M.getGeneratorTool());
    J.attribute("generator_name",
                Name.empty() ? json::Value(nullptr) : json::Value(Name));
    J.attribute("generator_version", M.getGeneratorVersion());
    J.attribute("bound", M.Bound);
    J.attribute("schema", M.Schema);
    auto OrNull = [](std::optional<uint32_t> V,
                     StringRef (*GetName)(uint32_t)) -> json::Value {
      if (!V)
        return nullptr;
      return describeSPIRVValue(*V, GetName);
    };
    J.attribute("addressing_model",
                OrNull(M.AddressingModel, getSPIRVAddressingModelName));
    J.attribute("memory_model", OrNull(M.MemoryModel, getSPIRVMemoryModelName));
    J.attributeArray("capabilities", [&] {
      for (uint32_t C : M.Capabilities)
        J.value(describeSPIRVValue(C, getSPIRVCapabilityName));
    });
    J.attributeArray("extensions", [&] {
      for (const std::string &E : M.Extensions)
        J.value(E);
    });
    J.attributeArray("entry_points", [&] {
      for (const SPIRVEntryPoint &E : M.EntryPoints)
        J.object([&] {
          J.attribute(
              "execution_model",
              describeSPIRVValue(E.ExecutionModel, getSPIRVExecutionModelName));
          J.attribute("name", E.Name);
        });
    });
  });
}

//===----------------------------------------------------------------------===//
// The tree
//===----------------------------------------------------------------------===//

static void printTree(raw_ostream &OS, const InspectNode &Node, bool IsRoot,
                      unsigned Indent) {
  OS.indent(Indent);
  auto At = [&] { OS << " @" << hex(Node.Offset); };
  switch (Node.TheType) {
  case Type::File:
    if (IsRoot)
      OS << Node.Name << ": " << orDash(Node.Format) << ", " << Node.Size
         << " bytes, " << countImages(Node) << " device image"
         << (countImages(Node) == 1 ? "" : "s");
    else
      OS << "member " << Node.Name << " @" << hex(*Node.FileOffset) << ", "
         << orDash(Node.Format) << ", " << Node.Size << " bytes";
    break;
  case Type::Section:
    // Bitcode keeps its binaries in globals, which the finder names "@...".
    OS << (StringRef(Node.Name).starts_with("@") ? "global " : "section ")
       << Node.Name;
    if (Node.FileOffset)
      OS << " @" << hex(*Node.FileOffset);
    OS << ", " << Node.Size << " bytes";
    if (Node.InflatedSize)
      OS << " (compressed; inflates to " << *Node.InflatedSize << ")";
    break;
  case Type::ObjectBundle:
    OS << "object bundle: " << Node.Children.size() << " " << Node.Name
       << "<ID> sections";
    break;
  case Type::OffloadBinary:
    OS << "offload binary " << Node.Format;
    At();
    OS << ", " << Node.Size << " bytes, " << Node.Children.size()
       << (Node.Children.size() == 1 ? " entry" : " entries");
    break;
  case Type::Bundle:
  case Type::TextBundle:
  case Type::CudaFatbin:
    OS << Node.Format;
    At();
    OS << ", " << Node.Size << " bytes, " << Node.Children.size()
       << (Node.Children.size() == 1 ? " entry" : " entries");
    break;
  case Type::CompressedBundle:
    OS << "compressed bundle " << Node.Format;
    At();
    OS << ", " << Node.Size << " bytes, inflates to " << *Node.InflatedSize;
    break;
  case Type::HostEntry:
    OS << "host entry " << Node.Name << ", " << Node.Size << " bytes";
    break;
  case Type::Image:
    OS << "image " << Node.Index << ": " << orDash(Node.OffloadKind) << " "
       << orDash(Node.Triple) << " " << orDash(Node.Arch) << " "
       << orDash(Node.ImageKind) << ", " << Node.Size << " bytes";
    if (Node.CompressedSize)
      OS << " (compressed " << *Node.CompressedSize << ")";
    OS << "\n";
    OS.indent(Indent + 2) << "at " << Node.Location;
    if (Node.FileOffset)
      OS << " (file offset " << hex(*Node.FileOffset) << ")";
    if (Node.SPIRV)
      printSPIRV(OS, *Node.SPIRV, Indent + 2);
    break;
  }
  OS << "\n";
  for (const InspectNode &Child : Node.Children)
    printTree(OS, Child, /*IsRoot=*/false, Indent + 2);
  // After what could be read: reading stopped there.
  if (!Node.Error.empty())
    OS.indent(Indent + 2) << "error: " << Node.Error << "\n";
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// The image's description keys, shared by the tree and the flat list.
static void writeImageAttributes(json::OStream &J, const InspectNode &Node) {
  J.attribute("index", Node.Index);
  J.attribute("offload_kind", Node.OffloadKind);
  J.attribute("triple", Node.Triple);
  J.attribute("arch", Node.Arch);
  J.attribute("image_kind", Node.ImageKind);
  J.attribute("size", Node.Size);
  if (Node.CompressedSize)
    J.attribute("compressed_size", *Node.CompressedSize);
  J.attribute("location", Node.Location);
}

static void writeNode(json::OStream &J, const InspectNode &Node) {
  J.object([&] {
    J.attribute("type", getTypeName(Node.TheType));
    if (Node.TheType == Type::Image) {
      writeImageAttributes(J, Node);
    } else {
      J.attribute("name", Node.Name);
      if (!Node.Format.empty())
        J.attribute("format", Node.Format);
      J.attribute("offset", Node.Offset);
      J.attribute("size", Node.Size);
      if (Node.InflatedSize)
        J.attribute("inflated_size", *Node.InflatedSize);
    }
    if (Node.FileOffset)
      J.attribute("file_offset", *Node.FileOffset);
    if (Node.SPIRV)
      writeSPIRVJSON(J, *Node.SPIRV);
    if (!Node.Error.empty())
      J.attribute("error", Node.Error);
    if (!Node.Children.empty())
      J.attributeArray("children", [&] {
        for (const InspectNode &Child : Node.Children)
          writeNode(J, Child);
      });
  });
}

static void printJSON(raw_ostream &OS, ArrayRef<InspectNode> Roots,
                      ArrayRef<std::string> Errors) {
  json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attributeArray("images", [&] {
      for (const InspectNode &Root : Roots)
        forEachImage(Root, [&](const InspectNode &Image) {
          J.object([&] {
            J.attribute("file", Root.Name);
            writeImageAttributes(J, Image);
            if (Image.FileOffset)
              J.attribute("file_offset", *Image.FileOffset);
            if (Image.SPIRV)
              writeSPIRVJSON(J, *Image.SPIRV);
          });
        });
    });
    J.attributeArray("files", [&] {
      for (const InspectNode &Root : Roots)
        writeNode(J, Root);
    });
    J.attributeArray("errors", [&] {
      for (const std::string &E : Errors)
        J.value(E);
    });
  });
  OS << "\n";
}

//===----------------------------------------------------------------------===//
// --resources
//===----------------------------------------------------------------------===//

static void printResources(raw_ostream &OS, ArrayRef<InputKernels> Inputs) {
  for (auto [I, Input] : enumerate(Inputs)) {
    if (I != 0)
      OS << "\n";
    if (Input.Kernels.empty())
      OS << Input.Input << ": no GPU kernels\n";
    else
      printKernelResourceTable(OS, Input.Kernels, !NoDemangle);
  }
}

static void printResourcesJSON(raw_ostream &OS, ArrayRef<InputKernels> Inputs,
                               ArrayRef<std::string> Errors) {
  json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attributeArray("kernels", [&] {
      for (const InputKernels &Input : Inputs)
        for (const KernelResources &Kernel : Input.Kernels)
          writeKernelResourcesJSON(J, Kernel, !NoDemangle);
    });
    J.attributeArray("errors", [&] {
      for (const std::string &E : Errors)
        J.value(E);
    });
  });
  OS << "\n";
}

//===----------------------------------------------------------------------===//
// --extract
//===----------------------------------------------------------------------===//

/// "<index>-<offload kind>-<triple>-<arch>.<ext>" ("none" for a missing
/// field), from nothing but the image's description, so that the same input
/// gives the same names; portable and inside the directory
/// (portableFileNamePart): target IDs have ':' and a crafted triple could
/// have '/'.
static std::string getExtractName(const InspectNode &Image) {
  auto OrNone = [](StringRef S) { return S.empty() ? "none" : S.str(); };
  return portableFileNamePart(std::to_string(Image.Index) + "-" +
                  OrNone(Image.OffloadKind) + "-" + OrNone(Image.Triple) + "-" +
                  OrNone(Image.Arch)) +
         "." + getExtractExtension(Image.ImageKind).str();
}

static Error extractAll(ArrayRef<InspectNode> Roots) {
  if (std::error_code EC = sys::fs::create_directories(ExtractDir))
    return createStringError(EC,
                             ExtractDir + ": cannot create: " + EC.message());
  Error Result = Error::success();
  for (const InspectNode &Root : Roots)
    forEachImage(Root, [&](const InspectNode &Image) {
      if (Result)
        return;
      SmallString<256> Path(ExtractDir);
      sys::path::append(Path, getExtractName(Image));
      if (Image.Extract)
        Result = writeFileAtomically(
            Path, [&](OutputFileStream &OS) { return Image.Extract(OS); });
      else
        Result = writeFileAtomically(Path, Image.Data);
    });
  return Result;
}

int main(int Argc, char **Argv) {
  ToolInit Init(
      Argc, Argv, Category,
      "Lists the device images that objects, archives, programs, offload "
      "bundles, OffloadBinaries and CUDA fat binaries carry, or with "
      "--resources the resources of their GPU kernels.\n");

  Inspector Inspect;
  Inspect.VerifyHashes = VerifyHashes;
  std::vector<InspectNode> Roots;
  for (StringRef Input : InputFiles)
    if (std::optional<InspectNode> Root = Inspect.inspectFile(Input))
      Roots.push_back(std::move(*Root));

  // Everything that could be read is printed, malformed parts marked in
  // place (a file that cannot be read at all, not at all); the errors then
  // go to stderr and the exit code says so.
  std::vector<std::string> Errors = Inspect.errors();
  if (Resources) {
    std::vector<InputKernels> Kernels = findKernelResources(Roots, Errors);
    if (JSON)
      printResourcesJSON(outs(), Kernels, Errors);
    else
      printResources(outs(), Kernels);
  } else if (JSON) {
    printJSON(outs(), Roots, Errors);
  } else {
    for (const InspectNode &Root : Roots)
      printTree(outs(), Root, /*IsRoot=*/true, 0);
  }
  outs().flush();

  bool Failed = false;
  for (const std::string &E : Errors) {
    reportError(E);
    Failed = true;
  }
  // Extract only from inputs read in full: a partial set of images is worse
  // than none to a script that expects every device.
  if (!ExtractDir.empty()) {
    if (Failed) {
      WithColor::note(errs(), ToolName)
          << "nothing extracted because of the errors above\n";
    } else if (Error E = extractAll(Roots)) {
      reportError(std::move(E));
      Failed = true;
    }
  }
  return Failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

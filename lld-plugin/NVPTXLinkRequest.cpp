//===- lld-plugin/NVPTXLinkRequest.cpp - What an NVPTX link does ----------===//

#include "lld-plugin/NVPTXLinkRequest.h"
#include "support/AtomicOutput.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace offload {

/// What a request file says it is, and its layout's version: a file that is
/// not one (a path mixed up, another version's) is said to be so, rather
/// than read as a request with fields missing.
static constexpr StringLiteral RequestKind = "lld-offload NVPTX link request";
static constexpr uint64_t RequestVersion = 2;

std::string NVPTXLinkRequest::toolPath(StringRef Tool) const {
  SmallString<128> Path(CudaPath);
  sys::path::append(Path, "bin", Tool);
  return Path.str().str();
}

std::vector<std::string> NVPTXLinkRequest::ptxasArgs() const {
  return {"-m64", "-O3",          "-arch=" + Arch, "-c",
          "-o",   ltoCubinFile(), ptxFile()};
}

std::vector<std::string>
NVPTXLinkRequest::nvlinkArgs(ArrayRef<std::string> Cubins) const {
  std::vector<std::string> Args = {"-arch=" + Arch, "-o", Output};
  llvm::append_range(Args, Cubins);
  llvm::append_range(Args, NVLinkArgs);
  return Args;
}

std::vector<NVPTXLinkRequest::Step> NVPTXLinkRequest::steps() const {
  Step LTO{"LTO", {"-mcpu=" + Arch, "-o", ptxFile()}};
  std::vector<std::string> Cubins = {ltoCubinFile()};
  // Inputs are named by their kind when planned (".bc", ".cubin":
  // DeviceLink.cpp), and may not be written yet: a cached link's never are.
  for (const std::string &Input : Inputs)
    (StringRef(Input).ends_with(".bc") ? LTO.Args : Cubins).push_back(Input);
  for (const std::string &Lib : Libraries)
    LTO.Args.push_back("--lib=" + Lib);
  std::vector<Step> Steps;
  if (Given == Stage::None)
    Steps.push_back(std::move(LTO));
  if (Given != Stage::Cubin)
    Steps.push_back({toolPath("ptxas"), ptxasArgs()});
  Steps.push_back({toolPath("nvlink"), nvlinkArgs(Cubins)});
  return Steps;
}

static void addStrings(msgpack::Document &Doc, msgpack::MapDocNode &Map,
                       StringRef Key, ArrayRef<std::string> Values) {
  msgpack::ArrayDocNode Array = Doc.getArrayNode();
  for (const std::string &Value : Values)
    Array.push_back(Doc.getNode(Value));
  Map[Key] = Array;
}

Error writeNVPTXLinkRequest(const NVPTXLinkRequest &R, StringRef Path) {
  msgpack::Document Doc;
  msgpack::MapDocNode Map = Doc.getRoot().getMap(/*Convert=*/true);
  Map["request"] = Doc.getNode(RequestKind);
  Map["version"] = Doc.getNode(RequestVersion);
  Map["cuda-path"] = Doc.getNode(R.CudaPath);
  Map["arch"] = Doc.getNode(R.Arch);
  Map["output"] = Doc.getNode(R.Output);
  addStrings(Doc, Map, "inputs", R.Inputs);
  addStrings(Doc, Map, "libraries", R.Libraries);
  addStrings(Doc, Map, "nvlink-args", R.NVLinkArgs);
  Map["given"] = Doc.getNode(static_cast<uint64_t>(R.Given));
  std::string Blob;
  Doc.writeToBlob(Blob);
  return writeFileDirectly(Path, Blob);
}

namespace {
/// Reads the fields of a request's map; the first error is kept, naming the
/// field.
class FieldReader {
public:
  explicit FieldReader(msgpack::MapDocNode Map) : Map(Map) {}

  std::string string(StringRef Key) {
    auto It = Map.find(Key);
    if (It == Map.end() || It->second.getKind() != msgpack::Type::String) {
      fail("'" + Key + "' is missing or not a string");
      return "";
    }
    return It->second.getString().str();
  }

  std::vector<std::string> strings(StringRef Key) {
    std::vector<std::string> Values;
    auto It = Map.find(Key);
    if (It == Map.end() || It->second.getKind() != msgpack::Type::Array) {
      fail("'" + Key + "' is missing or not a list");
      return Values;
    }
    for (msgpack::DocNode &Node : It->second.getArray()) {
      if (Node.getKind() != msgpack::Type::String) {
        fail("'" + Key + "' holds something other than strings");
        return {};
      }
      Values.push_back(Node.getString().str());
    }
    return Values;
  }

  uint64_t unsignedInt(StringRef Key) {
    auto It = Map.find(Key);
    if (It == Map.end() || It->second.getKind() != msgpack::Type::UInt) {
      fail("'" + Key + "' is missing or not an unsigned integer");
      return 0;
    }
    return It->second.getUInt();
  }

  void fail(const Twine &Why) {
    if (Problem.empty())
      Problem = Why.str();
  }

  std::string Problem;

private:
  msgpack::MapDocNode Map;
};
} // namespace

Expected<NVPTXLinkRequest> readNVPTXLinkRequest(StringRef Path) {
  auto Malformed = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             Path + ": malformed NVPTX link request: " + Why);
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!File)
    return createStringError(File.getError(),
                             Path + ": cannot read the NVPTX link request: " +
                                 File.getError().message());
  msgpack::Document Doc;
  if (!Doc.readFromBlob((*File)->getBuffer(), /*Multi=*/false))
    return Malformed("not MessagePack, or cut short");
  if (Doc.getRoot().getKind() != msgpack::Type::Map)
    return Malformed("not a MessagePack map");
  FieldReader Fields(Doc.getRoot().getMap());
  auto Version = Doc.getRoot().getMap().find("version");
  if (Fields.string("request") != RequestKind ||
      Version == Doc.getRoot().getMap().end() ||
      Version->second.getKind() != msgpack::Type::UInt ||
      Version->second.getUInt() != RequestVersion)
    return Malformed("not a version " + Twine(RequestVersion) +
                     " request of this ld.lld-offload");
  NVPTXLinkRequest R;
  R.CudaPath = Fields.string("cuda-path");
  R.Arch = Fields.string("arch");
  R.Output = Fields.string("output");
  R.Inputs = Fields.strings("inputs");
  R.Libraries = Fields.strings("libraries");
  R.NVLinkArgs = Fields.strings("nvlink-args");
  uint64_t Given = Fields.unsignedInt("given");
  if (Given > static_cast<uint64_t>(NVPTXLinkRequest::Stage::Cubin))
    Fields.fail("'given' is not a stage of an NVPTX link");
  else
    R.Given = static_cast<NVPTXLinkRequest::Stage>(Given);
  if (Fields.Problem.empty() &&
      (R.Arch.empty() || R.Output.empty() || R.Inputs.empty()))
    Fields.fail("needs an arch, an output and inputs");
  if (!Fields.Problem.empty())
    return Malformed(Fields.Problem);
  return std::move(R);
}

} // namespace offload

//===- lld-plugin/LastLoaded.cpp - What the last same link loaded ---------===//

#include "lld-plugin/LastLoaded.h"

#include "lld-plugin/DeviceLinkCache.h"
#include "lld-plugin/LinkInputs.h"

#include "support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace offload {

std::string lastLoadedKey(const LLDCommandLine &LLD, const LinkInputs &Named) {
  CacheKeyHasher H;
  H.add("format", "lld-offload last loaded 1");
  H.add("version", lldOffloadVersion());
  SmallString<256> Cwd;
  if (!sys::fs::current_path(Cwd))
    H.add("directory", Cwd);
  // What LLD loads does not depend on where its outputs go.
  for (const std::string &Arg : LLD.probeArguments())
    H.add("arg", Arg);
  // Objects are left out: a relink after one changed is the common case,
  // and the check finds out if it takes other members now.
  for (const std::string &Path : Named.archives()) {
    sys::fs::file_status St;
    if (sys::fs::status(Path, St)) {
      H.add("archive", Path + " missing");
      continue;
    }
    H.add("archive",
          (Path + " " + Twine(St.getSize()) + " " +
           Twine(St.getLastModificationTime().time_since_epoch().count()) +
           " " + Twine(St.getUniqueID().getFile()))
              .str());
  }
  return H.finish("loaded");
}

static json::Array toJSON(ArrayRef<std::string> Strings) {
  json::Array A;
  for (const std::string &S : Strings)
    A.push_back(S);
  return A;
}

static bool fromJSON(const json::Array *A, std::vector<std::string> &Out) {
  if (!A)
    return false;
  for (const json::Value &V : *A) {
    std::optional<StringRef> S = V.getAsString();
    if (!S)
      return false;
    Out.push_back(S->str());
  }
  return true;
}

std::optional<LoadedInputs> recallLastLoaded(DeviceLinkCache &Cache,
                                             StringRef Key) {
  Expected<std::unique_ptr<MemoryBuffer>> Entry = Cache.lookup(Key);
  if (!Entry) {
    consumeError(Entry.takeError());
    return std::nullopt;
  }
  if (!*Entry)
    return std::nullopt;
  Expected<json::Value> Record =
      json::parse(DeviceLinkCache::contents(**Entry));
  if (!Record) {
    consumeError(Record.takeError());
    return std::nullopt;
  }
  const json::Object *O = Record->getAsObject();
  LoadedInputs Loaded;
  std::optional<StringRef> Stats = O ? O->getString("stats") : std::nullopt;
  if (!Stats || !fromJSON(O->getArray("files"), Loaded.Files) ||
      !fromJSON(O->getArray("archives"), Loaded.Archives))
    return std::nullopt;
  Loaded.ArchiveStats = Stats->str();
  return Loaded;
}

Error rememberLastLoaded(DeviceLinkCache &Cache, StringRef Key,
                         const LoadedInputs &Loaded) {
  json::Object Record{{"files", toJSON(Loaded.Files)},
                      {"archives", toJSON(Loaded.Archives)},
                      {"stats", Loaded.ArchiveStats}};
  return Cache.keep(Key, formatv("{0}", json::Value(std::move(Record))).str(),
                    /*Replace=*/true);
}

bool registrationTookDeviceCode(StringRef WhyExtract, const LinkInputs &Named,
                                function_ref<bool(StringRef)> HoldsDeviceCode) {
  // reference <tab> extracted <tab> symbol, after a header line; a member
  // is listed once, for the first reference that took it.
  StringMap<StringRef> TakenFor;
  for (StringRef Line : split(WhyExtract, '\n')) {
    SmallVector<StringRef, 3> Fields;
    Line.split(Fields, '\t', 2);
    if (Fields.size() == 3 && Fields[0] != "reference")
      TakenFor.try_emplace(Fields[1], Fields[0]);
  }
  for (const auto &Taken : TakenFor) {
    if (!HoldsDeviceCode(Taken.first()))
      continue;
    // Up the chain to what took the first member of it.
    StringRef Reference = Taken.second;
    for (size_t Steps = 0; Steps <= TakenFor.size(); ++Steps) {
      auto Up = TakenFor.find(Reference);
      if (Up == TakenFor.end())
        break;
      Reference = Up->second;
    }
    // Options (--undefined, --entry) and LLD's own references ("<libcall>")
    // take members whatever is registered; so do the files the command line
    // names. Anything else is ours, or unknown.
    bool TakenAnyway = Reference.starts_with("-") ||
                       Reference.starts_with("<") || Named.namesFile(Reference);
    if (!TakenAnyway)
      return true;
  }
  return false;
}

} // namespace offload

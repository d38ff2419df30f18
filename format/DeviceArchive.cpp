//===- format/DeviceArchive.cpp - Heterogeneous device archives -----------===//
//
// What clang-offload-bundler 22 does for -type=a -unbundle, except that all
// members are read and all outputs are built in memory before any file is
// written, so a malformed member or a missing bundle leaves every output as
// it was.
//
//===----------------------------------------------------------------------===//

#include "format/DeviceArchive.h"
#include "format/CheckedArchive.h"

#include "format/BundleEntryID.h"
#include "format/CompressedBundle.h"
#include "format/ObjectBundle.h"
#include "format/OffloadBundle.h"
#include "format/SafeFileName.h"
#include "support/AtomicOutput.h"

#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <deque>

using namespace llvm;
using namespace llvm::object;

namespace offload {

static Error archiveError(StringRef Archive, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "'" + Archive + "': " + Msg);
}

/// An error about a member, named as archive(member).
static Error memberError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "'" + Name + "': " + Msg);
}

namespace {
/// The bundle of one archive member, as clang-offload-bundler sees it.
struct MemberBundle {
  /// Decompressed bytes when the member was a compressed bundle holding no
  /// binary bundle (an object bundle, say).
  SmallVector<char, 0> Inflated;
  /// The IDs and payloads of the entries inflated from a compressed binary
  /// bundle, which the entries view.
  std::deque<std::string> IDs;
  std::deque<SmallVector<char, 0>> Payloads;
  bool Compressed = false;
  /// archive(member), as errors name it.
  std::string Name;
  /// The bytes the entries view (the member or Inflated).
  MemoryBufferRef Bytes;
  bool IsObject = false;
  /// The entries in the order clang-offload-bundler visits them; empty when
  /// the member holds no bundle.
  std::vector<BundleEntry> Entries;
};
} // namespace

/// True if \p Data starts like an object file in a format LLVM reads
/// (clang-offload-bundler treats a member as an object bundle iff it parses as
/// one).
static bool looksLikeObject(StringRef Data) {
  switch (identify_magic(Data)) {
  case file_magic::elf:
  case file_magic::elf_relocatable:
  case file_magic::elf_executable:
  case file_magic::elf_shared_object:
  case file_magic::elf_core:
  case file_magic::macho_object:
  case file_magic::macho_executable:
  case file_magic::macho_dynamically_linked_shared_lib:
  case file_magic::macho_bundle:
  case file_magic::coff_object:
  case file_magic::wasm_object:
  case file_magic::xcoff_object_32:
  case file_magic::xcoff_object_64:
    return true;
  default:
    return false;
  }
}

/// True if the code object \p ID goes to any of \p Targets.
static bool isWanted(const BundleEntryID &ID, ArrayRef<BundleEntryID> Targets,
                     bool HipOpenMPCompatible) {
  return any_of(Targets, [&](const BundleEntryID &T) {
    return isCodeObjectCompatible(ID, T, HipOpenMPCompatible);
  });
}

static Error decompressError(Error E) {
  return createStringError(inconvertibleErrorCode(),
                           "Failed to decompress code object: " +
                               toString(std::move(E)));
}

/// Reads the compressed bundle \p Data of member \p Out.Name. A binary
/// bundle is inflated as a stream: its header, then the payloads of the
/// entries that go to one of \p Targets, stopping after the last of them;
/// anything else (an object bundle) is inflated whole into Out.Bytes, for the
/// caller to read. \p Streamed tells which.
static Error readCompressedMember(StringRef Data,
                                  ArrayRef<BundleEntryID> Targets,
                                  bool HipOpenMPCompatible, bool &Streamed,
                                  MemberBundle &Out) {
  Out.Compressed = true;
  Expected<std::unique_ptr<CompressedBundleReader>> Reader =
      CompressedBundleReader::open(Data, Out.Name);
  if (!Reader)
    return decompressError(Reader.takeError());
  Expected<std::optional<BinaryBundleHeader>> Header =
      readInflatedBundleHeader(**Reader);
  if (!Header)
    return decompressError(Header.takeError());
  if (!*Header) {
    Expected<SmallVector<char, 0>> Inflated =
        decompressBundle(Data, Out.Name, /*VerifyHash=*/false);
    if (!Inflated)
      return decompressError(Inflated.takeError());
    Out.Inflated = std::move(*Inflated);
    Out.Bytes = MemoryBufferRef(
        StringRef(Out.Inflated.data(), Out.Inflated.size()), Out.Name);
    return Error::success();
  }
  Streamed = true;
  const std::vector<BundleEntryLocation> &Entries = (*Header)->Entries;
  std::vector<BundleEntryLocation> Wanted;
  for (size_t I : inBundlerOrder(Entries)) {
    Expected<BundleEntryID> ID = BundleEntryID::parse(Entries[I].ID);
    if (!ID)
      return memberError(Out.Name, toString(ID.takeError()));
    if (isWanted(*ID, Targets, HipOpenMPCompatible))
      Wanted.push_back(Entries[I]);
  }
  // Each payload grows as the data comes, never from the header's size.
  std::vector<SmallVector<char, 0>> Payloads(Wanted.size());
  if (Error E = streamBundlePayloads(
          **Reader, Wanted, [&](size_t I, StringRef Piece) {
            Payloads[I].append(Piece.begin(), Piece.end());
            return Error::success();
          }))
    return decompressError(std::move(E));
  for (size_t I = 0; I != Wanted.size(); ++I) {
    Out.IDs.push_back(std::move(Wanted[I].ID));
    Out.Payloads.push_back(std::move(Payloads[I]));
    const SmallVector<char, 0> &P = Out.Payloads.back();
    Out.Entries.push_back({Out.IDs.back(), StringRef(P.data(), P.size())});
  }
  return Error::success();
}

/// Reads the bundle held by member \p Data named \p Member (only the
/// entries that go to \p Targets of a compressed one). Members that hold no
/// bundle give no entries.
static Error readMember(StringRef Archive, StringRef Member, StringRef Data,
                        ArrayRef<BundleEntryID> Targets,
                        bool HipOpenMPCompatible, MemberBundle &Out) {
  // Errors from the readers name the member as archive(member).
  Out.Name = (Archive + "(" + Member + ")").str();
  Out.Bytes = MemoryBufferRef(Data, Out.Name);
  if (isCompressedBundle(Data)) {
    bool Streamed = false;
    if (Error E = readCompressedMember(Data, Targets, HipOpenMPCompatible,
                                       Streamed, Out))
      return E;
    if (Streamed)
      return Error::success();
  }

  StringRef Bytes = Out.Bytes.getBuffer();
  if (looksLikeObject(Bytes)) {
    Out.IsObject = true;
    Expected<std::vector<BundleEntry>> Entries = readObjectBundle(Out.Bytes);
    if (!Entries)
      return Entries.takeError();
    Out.Entries = std::move(*Entries);
    return Error::success();
  }
  if (!isBinaryBundle(Bytes))
    return Error::success(); // No device code here.
  Expected<std::vector<BundleEntry>> Entries =
      readBinaryBundle(Bytes, Out.Name);
  if (!Entries)
    return Entries.takeError();
  for (const BundleEntry &E : *Entries)
    if (Expected<BundleEntryID> ID = BundleEntryID::parse(E.ID); !ID)
      return memberError(Out.Name, toString(ID.takeError()));
  Out.Entries = inBundlerOrder(*Entries);
  return Error::success();
}

/// clang-offload-bundler's -check-input-archive rule, applied to the entry
/// IDs of one member (findConflictingTargetIDs). Returns the conflicting
/// pair, if any.
static std::optional<std::pair<std::string, std::string>>
findConflictingIDs(ArrayRef<BundleEntry> Entries) {
  SmallVector<StringRef, 8> IDs;
  for (const BundleEntry &E : Entries)
    IDs.push_back(E.ID);
  return findConflictingTargetIDs(IDs);
}

/// The name clang-offload-bundler gives the code object \p ID of member
/// \p Member: <stem>-<ID><stem><ext> with every ':' made '_'
/// (bundlerFileName), where ext is
/// .bc for AMDGPU target IDs, .cubin for NVPTX ones and the member's own
/// extension otherwise.
static std::string deviceMemberName(StringRef Member, StringRef ID,
                                    const BundleEntryID &Parsed) {
  StringRef File = sys::path::filename(Member);
  StringRef Stem = sys::path::stem(File);
  StringRef Ext = sys::path::extension(File);
  StringRef TargetID = Parsed.TargetIDText;
  if (TargetID.contains("gfx"))
    Ext = ".bc";
  else if (TargetID.contains("sm_"))
    Ext = ".cubin";
  return bundlerFileName((Stem + "-" + ID + Stem + Ext).str());
}

Error unbundleArchive(const ArchiveUnbundleRequest &Request) {
  StringRef ArchiveName = Request.Input;
  if (Request.Targets.size() != Request.Outputs.size())
    return createStringError(
        inconvertibleErrorCode(),
        "number of output files (" + Twine(Request.Outputs.size()) +
            ") and targets (" + Twine(Request.Targets.size()) +
            ") do not match");

  std::vector<BundleEntryID> Targets;
  for (const std::string &T : Request.Targets) {
    Expected<BundleEntryID> ID = BundleEntryID::parse(T);
    if (!ID)
      return createStringError(inconvertibleErrorCode(),
                               "invalid target '" + T +
                                   "': " + toString(ID.takeError()));
    Targets.push_back(std::move(*ID));
  }

  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFileOrSTDIN(
      ArchiveName, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Buf.getError())
    return createFileError(ArchiveName, EC);

  Expected<std::unique_ptr<Archive>> Lib =
      createCheckedArchive((*Buf)->getMemBufferRef());
  if (!Lib)
    return archiveError(ArchiveName,
                        "not a valid archive: " + toString(Lib.takeError()));

  // Every member's bundle, read up front so that -check-input-archive sees
  // the whole archive before anything is extracted.
  std::deque<MemberBundle> Members;
  std::vector<std::string> MemberNames;
  {
    Error Err = Error::success();
    unsigned Index = 0;
    for (const Archive::Child &C : (*Lib)->children(Err)) {
      Expected<StringRef> Name = C.getName();
      if (!Name) {
        consumeError(std::move(Err));
        return archiveError(ArchiveName, "member " + Twine(Index) +
                                             ": cannot read the name: " +
                                             toString(Name.takeError()));
      }
      Expected<MemoryBufferRef> Data = C.getMemoryBufferRef();
      if (!Data) {
        consumeError(std::move(Err));
        return memberError((ArchiveName + "(" + *Name + ")").str(),
                           "cannot read the contents: " +
                               toString(Data.takeError()));
      }
      MemberBundle &M = Members.emplace_back();
      if (Error E = readMember(ArchiveName, *Name, Data->getBuffer(), Targets,
                               Request.HipOpenMPCompatible, M)) {
        consumeError(std::move(Err));
        return E;
      }
      MemberNames.push_back(Name->str());
      ++Index;
    }
    if (Err)
      return archiveError(ArchiveName, toString(std::move(Err)));
  }

  if (Request.CheckInputArchive) {
    // clang-offload-bundler checks the members as stored: a compressed
    // member's entries are not looked at.
    for (size_t I = 0; I != Members.size(); ++I) {
      if (Members[I].Compressed)
        continue;
      if (auto Conflict = findConflictingIDs(Members[I].Entries))
        return createStringError(inconvertibleErrorCode(),
                                 "conflicting TargetIDs [" + Conflict->first +
                                     ", " + Conflict->second + "] found in " +
                                     MemberNames[I] + " of " + ArchiveName);
    }
  }

  // The device members of each output, and the bytes they point at.
  std::vector<std::vector<NewArchiveMember>> Outputs(Targets.size());
  std::deque<std::string> Names;
  std::deque<SmallVector<char, 0>> HostObjects;
  for (size_t I = 0; I != Members.size(); ++I) {
    MemberBundle &M = Members[I];
    for (const BundleEntry &E : M.Entries) {
      Expected<BundleEntryID> CodeObject = BundleEntryID::parse(E.ID);
      if (!CodeObject)
        return memberError(M.Name, toString(CodeObject.takeError()));
      SmallVector<size_t, 2> Compatible;
      for (size_t T = 0; T != Targets.size(); ++T)
        if (isCodeObjectCompatible(*CodeObject, Targets[T],
                                   Request.HipOpenMPCompatible))
          Compatible.push_back(T);
      if (Compatible.empty())
        continue;

      StringRef Data = E.Data;
      // The one-byte placeholder of an object bundle stands for the host
      // object itself, without its bundle sections.
      if (M.IsObject && Data.size() == 1 && Data.front() == 0) {
        Expected<SmallVector<char, 0>> Host = getHostObject(M.Bytes);
        if (!Host)
          return Host.takeError();
        SmallVector<char, 0> &Stored =
            HostObjects.emplace_back(std::move(*Host));
        Data = StringRef(Stored.data(), Stored.size());
      }

      const std::string &Name = Names.emplace_back(
          deviceMemberName(MemberNames[I], E.ID, *CodeObject));
      for (size_t T : Compatible)
        Outputs[T].emplace_back(MemoryBufferRef(Data, Name));
    }
  }

  // A target nothing serves is an error unless -allow-missing-bundles,
  // which writes an empty archive. clang-offload-bundler writes the outputs
  // of earlier targets before it finds this out; we check first.
  if (!Request.AllowMissingBundles)
    for (size_t T = 0; T != Targets.size(); ++T)
      if (Outputs[T].empty())
        return createStringError(
            inconvertibleErrorCode(),
            "no compatible code object found for the target '" +
                Targets[T].str() +
                "' in heterogeneous archive library: " + ArchiveName);

  // Build every archive in memory, then write them.
  std::vector<std::unique_ptr<MemoryBuffer>> Built;
  for (size_t T = 0; T != Targets.size(); ++T) {
    Expected<std::unique_ptr<MemoryBuffer>> Out = writeArchiveToBuffer(
        Outputs[T], SymtabWritingMode::NormalSymtab, Archive::K_GNU,
        /*Deterministic=*/true, /*Thin=*/false,
        [](Error E) { consumeError(std::move(E)); });
    if (!Out)
      return archiveError(Request.Outputs[T],
                          "cannot write the device archive: " +
                              toString(Out.takeError()));
    Built.push_back(std::move(*Out));
  }
  for (size_t T = 0; T != Targets.size(); ++T)
    if (Error E =
            writeFileAtomically(Request.Outputs[T], Built[T]->getBuffer()))
      return E;
  return Error::success();
}

} // namespace offload

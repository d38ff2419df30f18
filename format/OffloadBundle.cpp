//===- format/OffloadBundle.cpp - clang-offload-bundler's bundles ---------===//

#include "format/OffloadBundle.h"
#include "format/FormatError.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace offload {

static const BundleType Types[] = {
    {"i", BundleLayout::Text, "//"},      {"ii", BundleLayout::Text, "//"},
    {"cui", BundleLayout::Text, "//"},    {"hipi", BundleLayout::Text, "//"},
    {"d", BundleLayout::Text, "#"},       {"ll", BundleLayout::Text, ";"},
    {"bc", BundleLayout::Binary, ""},     {"s", BundleLayout::Text, "#"},
    {"o", BundleLayout::Object, ""},      {"a", BundleLayout::Archive, ""},
    {"gch", BundleLayout::Binary, ""},    {"ast", BundleLayout::Binary, ""},
};

Expected<BundleType> getBundleType(StringRef Name) {
  for (const BundleType &T : Types)
    if (T.Name == Name)
      return T;
  return createStringError(inconvertibleErrorCode(),
                           "'" + Name +
                               "': invalid file type specified (expected "
                               "i, ii, cui, hipi, d, ll, bc, s, o, a, gch or "
                               "ast)");
}

bool isBinaryBundle(StringRef Data) { return Data.starts_with(BundleMagic); }

static Error bundleError(StringRef Name, uint64_t Offset, const Twine &Msg) {
  return formatError(Name, Offset, Msg);
}

uint64_t BinaryBundleHeader::payloadEnd() const {
  uint64_t End = HeaderSize;
  for (const BundleEntryLocation &E : Entries)
    End = std::max(End, E.Offset + E.Size);
  return End;
}

Expected<BinaryBundleHeader> readBinaryBundleHeader(BundlePrefix Prefix,
                                                    uint64_t BundleSize,
                                                    StringRef Name) {
  StringRef Head;
  // Makes the first Size bytes available in Head.
  auto Need = [&](uint64_t Size) -> Error {
    Expected<StringRef> P = Prefix(Size);
    if (!P)
      return P.takeError();
    Head = *P;
    return Error::success();
  };
  if (Error E = Need(std::min<uint64_t>(BundleSize, BundleMagic.size())))
    return std::move(E);
  if (!isBinaryBundle(Head))
    return bundleError(Name, 0,
                       "not an offload bundle (no " + BundleMagic + " magic)");
  uint64_t At = BundleMagic.size();
  auto Read64 = [&](const char *What) -> Expected<uint64_t> {
    if (BundleSize - At < 8)
      return bundleError(
          Name, At, Twine("truncated bundle header: no room for the ") + What);
    if (Error E = Need(At + 8))
      return std::move(E);
    uint64_t V = support::endian::read64le(Head.data() + At);
    At += 8;
    return V;
  };
  Expected<uint64_t> Count = Read64("entry count");
  if (!Count)
    return Count.takeError();
  // Each entry takes at least 24 header bytes: a count beyond that cannot be.
  if (*Count > (BundleSize - At) / 24)
    return bundleError(Name, At - 8,
                       "entry count " + Twine(*Count) +
                           " does not fit in the " + Twine(BundleSize) +
                           "-byte bundle");
  BinaryBundleHeader H;
  StringMap<size_t> Seen;
  for (uint64_t I = 0; I != *Count; ++I) {
    uint64_t EntryAt = At;
    Expected<uint64_t> Offset = Read64("entry offset");
    if (!Offset)
      return Offset.takeError();
    Expected<uint64_t> Size = Read64("entry size");
    if (!Size)
      return Size.takeError();
    Expected<uint64_t> IDSize = Read64("entry ID length");
    if (!IDSize)
      return IDSize.takeError();
    if (*IDSize > BundleSize - At)
      return bundleError(Name, At - 8,
                         "entry " + Twine(I) + ": ID length " + Twine(*IDSize) +
                             " runs past the end");
    if (Error E = Need(At + *IDSize))
      return std::move(E);
    BundleEntryLocation L;
    L.ID = Head.substr(At, *IDSize).str();
    L.IDOffset = At;
    L.Offset = *Offset;
    L.Size = *Size;
    At += *IDSize;
    if (*Offset > BundleSize || *Size > BundleSize - *Offset)
      return bundleError(Name, EntryAt,
                         "entry " + Twine(I) + " (" + L.ID +
                             "): " + Twine(*Size) + " bytes at offset " +
                             Twine(*Offset) + " run past the end of the " +
                             Twine(BundleSize) + "-byte bundle");
    if (!Seen.try_emplace(L.ID, I).second)
      return bundleError(Name, 0, "entry ID '" + L.ID + "' appears twice");
    H.Entries.push_back(std::move(L));
  }
  H.HeaderSize = At;
  // Payloads live after the header and apart from each other: sorted by
  // offset, each must end before the next begins.
  std::vector<size_t> ByOffset;
  for (size_t I = 0; I != H.Entries.size(); ++I) {
    const BundleEntryLocation &E = H.Entries[I];
    if (E.Size == 0)
      continue;
    if (E.Offset < At)
      return bundleError(Name, E.Offset,
                         "entry " + Twine(I) + " (" + E.ID +
                             ") overlaps the bundle header");
    ByOffset.push_back(I);
  }
  llvm::stable_sort(ByOffset, [&](size_t A, size_t B) {
    return H.Entries[A].Offset < H.Entries[B].Offset;
  });
  for (size_t K = 1; K < ByOffset.size(); ++K) {
    size_t A = ByOffset[K - 1], B = ByOffset[K];
    if (H.Entries[B].Offset < H.Entries[A].Offset + H.Entries[A].Size) {
      size_t J = std::min(A, B), I = std::max(A, B);
      return bundleError(Name, H.Entries[I].Offset,
                         "entries " + Twine(J) + " (" + H.Entries[J].ID +
                             ") and " + Twine(I) + " (" + H.Entries[I].ID +
                             ") overlap");
    }
  }
  return std::move(H);
}

Error checkBinaryBundleHeaderComplete(StringRef Data, StringRef Name) {
  if (!isBinaryBundle(Data))
    return Error::success();
  uint64_t Size = Data.size();
  uint64_t At = BundleMagic.size();
  if (Size - At < 8)
    return bundleError(Name, At,
                       "truncated bundle header: no room for the entry count "
                       "in the " +
                           Twine(Size) + "-byte file");
  uint64_t Count = support::endian::read64le(Data.data() + At);
  At += 8;
  // Each entry takes at least 24 bytes, so this ends within the file.
  for (uint64_t I = 0; I != Count; ++I) {
    auto Cut = [&](const Twine &What) {
      return bundleError(Name, At,
                         "truncated bundle header: " + What + " of entry " +
                             Twine(I) + " of " + Twine(Count) +
                             " runs past the end of the " + Twine(Size) +
                             "-byte file");
    };
    if (Size - At < 24)
      return Cut("the offset, size and ID length");
    uint64_t IDSize = support::endian::read64le(Data.data() + At + 16);
    At += 24;
    if (IDSize > Size - At)
      return Cut("the " + Twine(IDSize) + "-byte ID");
    At += IDSize;
  }
  return Error::success();
}

Expected<std::vector<BundleEntry>> readBinaryBundle(StringRef Data,
                                                    StringRef Name) {
  Expected<BinaryBundleHeader> H = readBinaryBundleHeader(
      [&](uint64_t Size) -> Expected<StringRef> {
        return Data.take_front(Size);
      },
      Data.size(), Name);
  if (!H)
    return H.takeError();
  std::vector<BundleEntry> Entries;
  for (const BundleEntryLocation &E : H->Entries)
    Entries.push_back(
        {Data.substr(E.IDOffset, E.ID.size()), Data.substr(E.Offset, E.Size)});
  return std::move(Entries);
}

/// The header size and each payload's offset.
static std::pair<uint64_t, std::vector<uint64_t>>
layOutBinaryBundle(ArrayRef<BundleEntryToWrite> Entries, uint64_t Alignment) {
  uint64_t Header = BundleMagic.size() + 8;
  for (const BundleEntryToWrite &E : Entries)
    Header += 24 + E.ID.size();
  std::vector<uint64_t> Offsets;
  uint64_t At = Header;
  for (const BundleEntryToWrite &E : Entries) {
    At = alignTo(At, std::max<uint64_t>(Alignment, 1));
    Offsets.push_back(At);
    At += E.Data.size();
  }
  return {Header, Offsets};
}

uint64_t getBinaryBundleSize(ArrayRef<BundleEntryToWrite> Entries,
                             uint64_t Alignment) {
  auto [Header, Offsets] = layOutBinaryBundle(Entries, Alignment);
  return Entries.empty() ? Header
                         : Offsets.back() + Entries.back().Data.size();
}

Error writeBinaryBundle(raw_ostream &OS, ArrayRef<BundleEntryToWrite> Entries,
                        uint64_t Alignment, PayloadWriter WritePayload) {
  auto [Header, Offsets] = layOutBinaryBundle(Entries, Alignment);
  support::endian::Writer W(OS, endianness::little);
  OS << BundleMagic;
  W.write<uint64_t>(Entries.size());
  for (size_t I = 0; I != Entries.size(); ++I) {
    W.write<uint64_t>(Offsets[I]);
    W.write<uint64_t>(Entries[I].Data.size());
    W.write<uint64_t>(Entries[I].ID.size());
    OS << Entries[I].ID;
  }
  uint64_t At = Header;
  for (size_t I = 0; I != Entries.size(); ++I) {
    OS.write_zeros(Offsets[I] - At);
    if (Error E = WritePayload(I))
      return E;
    At = Offsets[I] + Entries[I].Data.size();
  }
  return Error::success();
}

void writeBinaryBundle(raw_ostream &OS, ArrayRef<BundleEntryToWrite> Entries,
                       uint64_t Alignment) {
  cantFail(writeBinaryBundle(OS, Entries, Alignment, [&](size_t I) {
    OS << Entries[I].Data;
    return Error::success();
  }));
}

static std::string marker(StringRef Comment, StringRef What) {
  return ("\n" + Comment + " " + BundleMagic + "__" + What + "__ ").str();
}

static constexpr StringLiteral TextBundleStart =
    "__CLANG_OFFLOAD_BUNDLE____START__ ";

/// The comment is what precedes " <magic>__START__ " on the first line.
std::optional<StringRef> getTextBundleComment(StringRef Data) {
  if (!Data.consume_front("\n"))
    return std::nullopt;
  StringRef Line = Data.take_until([](char C) { return C == '\n'; });
  size_t Marker = Line.find(TextBundleStart);
  if (Marker == StringRef::npos || Marker < 2 || Line[Marker - 1] != ' ')
    return std::nullopt;
  return Line.take_front(Marker - 1);
}

Expected<std::vector<BundleEntry>> readTextBundle(StringRef Data,
                                                  StringRef Comment,
                                                  StringRef Name) {
  std::string Start = marker(Comment, "START"), End = marker(Comment, "END");
  std::vector<BundleEntry> Entries;
  size_t At = 0;
  while ((At = Data.find(Start, At)) != StringRef::npos) {
    size_t IDBegin = At + Start.size();
    size_t IDEnd = Data.find('\n', IDBegin);
    if (IDEnd == StringRef::npos)
      return bundleError(Name, At, "bundle start marker without an ID line");
    StringRef ID = Data.slice(IDBegin, IDEnd);
    size_t BodyBegin = IDEnd + 1;
    std::string EndLine = End + ID.str();
    size_t BodyEnd = Data.find(EndLine, BodyBegin);
    if (BodyEnd == StringRef::npos)
      return bundleError(Name, At,
                         "entry '" + ID + "' has no END marker");
    Entries.push_back({ID, Data.slice(BodyBegin, BodyEnd)});
    At = BodyEnd + EndLine.size();
  }
  return std::move(Entries);
}

uint64_t getTextBundleSize(ArrayRef<BundleEntryToWrite> Entries,
                           StringRef Comment) {
  uint64_t Markers =
      marker(Comment, "START").size() + marker(Comment, "END").size() + 2;
  uint64_t Size = 0;
  for (const BundleEntryToWrite &E : Entries)
    Size += Markers + 2 * E.ID.size() + E.Data.size();
  return Size;
}

Error writeTextBundle(raw_ostream &OS, ArrayRef<BundleEntryToWrite> Entries,
                      StringRef Comment, PayloadWriter WritePayload) {
  std::string Start = marker(Comment, "START"), End = marker(Comment, "END");
  for (size_t I = 0; I != Entries.size(); ++I) {
    OS << Start << Entries[I].ID << "\n";
    if (Error E = WritePayload(I))
      return E;
    OS << End << Entries[I].ID << "\n";
  }
  return Error::success();
}

void writeTextBundle(raw_ostream &OS, ArrayRef<BundleEntryToWrite> Entries,
                     StringRef Comment) {
  cantFail(writeTextBundle(OS, Entries, Comment, [&](size_t I) {
    OS << Entries[I].Data;
    return Error::success();
  }));
}

/// The indices of \p IDs in the iteration order of a StringMap filled with
/// them in order (a repeated ID keeps its last index).
template <typename T, typename GetID>
static std::vector<size_t> stringMapOrder(ArrayRef<T> Items, GetID ID) {
  StringMap<size_t> Index;
  for (size_t I = 0; I != Items.size(); ++I)
    Index[ID(Items[I])] = I;
  std::vector<size_t> Ordered;
  for (const auto &KV : Index)
    Ordered.push_back(KV.getValue());
  return Ordered;
}

std::vector<BundleEntry> inBundlerOrder(ArrayRef<BundleEntry> Entries) {
  std::vector<BundleEntry> Ordered;
  for (size_t I :
       stringMapOrder(Entries, [](const BundleEntry &E) { return E.ID; }))
    Ordered.push_back(Entries[I]);
  return Ordered;
}

std::vector<size_t> inBundlerOrder(ArrayRef<BundleEntryLocation> Entries) {
  return stringMapOrder(
      Entries, [](const BundleEntryLocation &E) { return StringRef(E.ID); });
}

} // namespace offload

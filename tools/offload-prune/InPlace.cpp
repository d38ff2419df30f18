//===- tools/offload-prune/InPlace.cpp - Linked files, pruned in place ----===//
//
// A linked executable or shared library is pruned in place: its size, its
// layout and every byte outside its HIP fat binaries stay as they are, so
// that no address, relocation or symbol has to move. The fat binaries are
// found through the __hip_fatbin_wrapper records in .hipFatBinSegment (one
// per fat binary: hipcc's non-RDC builds have one per source file), each
// pointing into .hip_fatbin; each is pruned where it is, the bytes it no
// longer needs zeroed so that a package compresses them away.
//
//===----------------------------------------------------------------------===//

#include "Pruner.h"
#include "Messages.h"

#include "format/CompressedBundle.h"
#include "format/OffloadBundle.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Endian.h"

#include <map>

using namespace llvm;
using namespace llvm::object;

namespace offload {
namespace prune {

/// The HIP runtime's __hip_fatbin_wrapper: {int magic 'HIPF', int version 1,
/// void *fatbin, void *unused}, 24 bytes on a 64-bit target.
constexpr uint32_t HIPWrapperMagic = 0x48495046;
constexpr uint64_t HIPWrapperSize = 24;

/// The addresses the wrappers of \p Obj point at, in wrapper order: from the
/// dynamic relocation of the pointer where there is one (a PIE or shared
/// library: R_*_RELATIVE, its addend the address), else the pointer as
/// stored (a non-PIE executable, or a relocation with an implicit addend).
static Expected<std::vector<uint64_t>>
readWrapperTargets(const ELF64LEObjectFile &Obj, const ELF64LE::Shdr &Segment,
                   StringRef Name) {
  const ELFFile<ELF64LE> &File = Obj.getELFFile();
  Expected<ArrayRef<uint8_t>> Contents = File.getSectionContents(Segment);
  if (!Contents)
    return fail(Name + ": .hipFatBinSegment: " +
                toString(Contents.takeError()));
  if (Contents->size() % HIPWrapperSize)
    return fail(Name + ": offset " + hex(Segment.sh_offset) +
                ": .hipFatBinSegment is " + Twine(Contents->size()) +
                " bytes, not a whole number of 24-byte fat binary wrappers");

  // Dynamic relocations by the address they patch.
  std::map<uint64_t, ELF64LE::Rela> Relocs;
  Expected<ELF64LE::ShdrRange> Sections = File.sections();
  if (!Sections)
    return fail(Name + ": " + toString(Sections.takeError()));
  for (const ELF64LE::Shdr &Sec : *Sections) {
    if (Sec.sh_type != ELF::SHT_RELA || !(Sec.sh_flags & ELF::SHF_ALLOC))
      continue;
    Expected<ELF64LE::RelaRange> Relas = File.relas(Sec);
    if (!Relas)
      return fail(Name + ": offset " + hex(Sec.sh_offset) + ": " +
                  toString(Relas.takeError()));
    for (const ELF64LE::Rela &R : *Relas)
      Relocs[R.r_offset] = R;
  }

  std::vector<uint64_t> Targets;
  const uint8_t *Data = Contents->data();
  for (uint64_t Off = 0; Off < Contents->size(); Off += HIPWrapperSize) {
    uint64_t FileOffset = Segment.sh_offset + Off;
    uint32_t Magic = support::endian::read32le(Data + Off);
    uint32_t Version = support::endian::read32le(Data + Off + 4);
    if (Magic != HIPWrapperMagic || Version != 1)
      return fail(Name + ": offset " + hex(FileOffset) +
                  ": not a HIP fat binary wrapper (magic " + hex(Magic) +
                  ", version " + Twine(Version) + ")");
    uint64_t PointerAddr = Segment.sh_addr + Off + 8;
    auto It = Relocs.find(PointerAddr);
    if (It == Relocs.end()) {
      Targets.push_back(support::endian::read64le(Data + Off + 8));
      continue;
    }
    if (It->second.getType(false) != File.getRelativeRelocationType())
      return fail(Name + ": offset " + hex(FileOffset + 8) +
                  ": the fat binary wrapper's pointer has a relocation of "
                  "type " +
                  Twine(It->second.getType(false)) +
                  ", not a relative one: its target is not known here");
    Targets.push_back(It->second.r_addend);
  }
  return Targets;
}

/// The size of the fat binary at the start of \p Data, which may run to the
/// end of its slot: a bundle's extent is where its last payload ends, a
/// CCOB v2/v3's its total size; a CCOB v1 has none and takes the slot.
static Expected<uint64_t> fatbinExtent(StringRef Data, StringRef Name,
                                       uint64_t Offset) {
  if (isCompressedBundle(Data)) {
    Expected<CompressedBundleHeader> H =
        readCompressedBundleHeader(Data, Name, Offset);
    if (!H)
      return H.takeError();
    if (H->TotalSize && *H->TotalSize > Data.size())
      return fail(Name + ": offset " + hex(Offset) +
                  ": the compressed bundle's total size " +
                  Twine(*H->TotalSize) + " runs past .hip_fatbin");
    if (H->TotalSize)
      return *H->TotalSize;
    // A v1 has no size: it runs to the next fat binary, but for the zeros
    // that pad the slot (which the inflater would take for another frame).
    return Data.rtrim('\0').size();
  }
  if (isBinaryBundle(Data)) {
    Expected<std::vector<BundleEntry>> Entries =
        readBinaryBundle(Data, (Name + "+" + hex(Offset)).str());
    if (!Entries)
      return Entries.takeError();
    uint64_t Size = BundleMagic.size() + 8;
    for (const BundleEntry &E : *Entries)
      Size = std::max<uint64_t>({Size, uint64_t(E.ID.end() - Data.data()),
                                 uint64_t(E.Data.end() - Data.data())});
    return Size;
  }
  return fail(Name + ": offset " + hex(Offset) +
              ": neither an offload bundle nor a compressed bundle");
}

/// Checks that the last entry of the pruned bundle \p Data is the one that
/// ends last: the HIP runtime takes a bundle's size from its last entry.
static Error checkLastEntryEndsLast(StringRef Data, StringRef Name) {
  if (!isBinaryBundle(Data))
    return Error::success();
  Expected<std::vector<BundleEntry>> Entries = readBinaryBundle(Data, Name);
  if (!Entries)
    return Entries.takeError();
  if (Entries->empty())
    return Error::success();
  const char *End = Entries->back().Data.end();
  for (const BundleEntry &E : *Entries)
    if (E.Data.end() > End)
      return fail(Name + ": the pruned bundle's last entry is not the one "
                         "that ends last");
  return Error::success();
}

Expected<std::optional<Pruner::Bytes>> Pruner::pruneLinked(MemoryBufferRef Data,
                                                           StringRef Name) {
  Expected<std::unique_ptr<ObjectFile>> Bin =
      ObjectFile::createObjectFile(Data);
  if (!Bin)
    return fail(Name +
                ": not a valid object file: " + toString(Bin.takeError()));
  const auto *Obj = dyn_cast<ELF64LEObjectFile>(Bin->get());
  if (!Obj)
    return fail(Name + ": only 64-bit little-endian ELF executables and "
                       "shared libraries are pruned in place");
  const ELFFile<ELF64LE> &File = Obj->getELFFile();
  Expected<ELF64LE::ShdrRange> Sections = File.sections();
  if (!Sections)
    return fail(Name + ": " + toString(Sections.takeError()));
  const ELF64LE::Shdr *Segment = nullptr, *Fatbins = nullptr;
  for (const ELF64LE::Shdr &Sec : *Sections) {
    Expected<StringRef> SecName = File.getSectionName(Sec);
    if (!SecName)
      return fail(Name + ": " + toString(SecName.takeError()));
    if (*SecName == ".hipFatBinSegment")
      Segment = &Sec;
    else if (*SecName == ".hip_fatbin")
      Fatbins = &Sec;
    else if (*SecName == ".nv_fatbin" || *SecName == ".llvm.offloading")
      return fail(Name + ": linked files are pruned in place only for HIP "
                         "fat binaries; this one has " +
                  *SecName);
  }
  if (!Segment && !Fatbins)
    return std::nullopt;
  if (!Segment || !Fatbins || Fatbins->sh_type == ELF::SHT_NOBITS)
    return fail(Name + ": " +
                (Segment ? "no .hip_fatbin for the fat binary wrappers of "
                           ".hipFatBinSegment"
                         : ".hip_fatbin without the fat binary wrappers "
                           "(.hipFatBinSegment) that find its fat binaries"));
  Expected<std::vector<uint64_t>> Targets =
      readWrapperTargets(*Obj, *Segment, Name);
  if (!Targets)
    return Targets.takeError();

  StringRef Buffer = Data.getBuffer();
  if (Fatbins->sh_offset > Buffer.size() ||
      Fatbins->sh_size > Buffer.size() - Fatbins->sh_offset)
    return fail(Name + ": .hip_fatbin runs past the end of the file");
  StringRef Section = Buffer.substr(Fatbins->sh_offset, Fatbins->sh_size);
  // The fat binaries' offsets in .hip_fatbin, each once, in order.
  std::vector<uint64_t> Starts;
  for (auto [I, Address] : enumerate(*Targets)) {
    if (Address < Fatbins->sh_addr ||
        Address - Fatbins->sh_addr >= Fatbins->sh_size)
      return fail(Name + ": offset " +
                  hex(Segment->sh_offset + I * HIPWrapperSize + 8) +
                  ": fat binary wrapper " + Twine(I) + " points at " +
                  hex(Address) + ", outside .hip_fatbin [" +
                  hex(Fatbins->sh_addr) + ", " +
                  hex(Fatbins->sh_addr + Fatbins->sh_size) + ")");
    Starts.push_back(Address - Fatbins->sh_addr);
  }
  llvm::sort(Starts);
  Starts.erase(std::unique(Starts.begin(), Starts.end()), Starts.end());

  Bytes Out(Buffer.begin(), Buffer.end());
  std::string Where = (Name + ":.hip_fatbin").str();
  for (auto [I, Start] : enumerate(Starts)) {
    // A fat binary may run no further than the next one starts.
    uint64_t SlotEnd = I + 1 < Starts.size() ? Starts[I + 1] : Section.size();
    StringRef Slot = Section.slice(Start, SlotEnd);
    uint64_t FileOffset = Fatbins->sh_offset + Start;
    Expected<uint64_t> Extent = fatbinExtent(Slot, Name, FileOffset);
    if (!Extent)
      return Extent.takeError();
    StringRef Old = Slot.take_front(*Extent);
    std::string PieceName = (Name + "+" + hex(FileOffset)).str();
    Expected<Bytes> Pruned =
        isCompressedBundle(Old)
            ? pruneCompressed(Old, at(Where, "compressed bundle", Start),
                              PieceName)
            : pruneBundle(Old, at(Where, "binary bundle", Start), PieceName);
    if (!Pruned)
      return Pruned.takeError();
    StringRef New(Pruned->data(), Pruned->size());
    if (New.size() > Old.size())
      return fail(PieceName + ": the pruned fat binary would grow from " +
                  Twine(Old.size()) + " to " + Twine(New.size()) +
                  " bytes (compressed again), and a linked file is pruned in "
                  "place");
    if (Error E = checkLastEntryEndsLast(New, PieceName))
      return std::move(E);
    char *Dest = Out.data() + FileOffset;
    llvm::copy(New, Dest);
    std::fill(Dest + New.size(), Dest + Old.size(), 0);
  }
  return std::move(Out);
}

} // namespace prune
} // namespace offload

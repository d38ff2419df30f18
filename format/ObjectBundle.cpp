//===- format/ObjectBundle.cpp - Offload bundles inside objects -----------===//
//
// Object bundles are read with LLVM's object library and written with its
// ObjCopy library, configured as clang-offload-bundler 22 configures the
// llvm-objcopy it runs:
//   bundling:   --add-section=<magic><ID>=<file> and
//               --set-section-flags=<magic><ID>=readonly,exclude per entry;
//   host entry: --regex --remove-section=<magic>.*
//
//===----------------------------------------------------------------------===//

#include "format/ObjectBundle.h"

#include "format/BundleEntryID.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ObjCopy/CommonConfig.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Object/Binary.h"
#include "llvm/Object/COFF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <deque>

using namespace llvm;
using namespace llvm::object;

namespace offload {

static StringRef nameOf(MemoryBufferRef Object) {
  StringRef Name = Object.getBufferIdentifier();
  return Name.empty() ? StringRef("<object>") : Name;
}

static Error objectError(MemoryBufferRef Object, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "'" + nameOf(Object) + "': " + Msg);
}

/// Parses \p Object as an object file; anything else (an archive, bitcode,
/// a truncated or malformed object) is an error naming the file.
static Expected<std::unique_ptr<ObjectFile>>
openObject(MemoryBufferRef Object) {
  Expected<std::unique_ptr<Binary>> Bin = createBinary(Object);
  if (!Bin)
    return objectError(Object,
                       "not a valid object file: " + toString(Bin.takeError()));
  if (!isa<ObjectFile>(**Bin))
    return objectError(Object, "not an object file");
  return std::unique_ptr<ObjectFile>(cast<ObjectFile>(Bin->release()));
}

namespace {
/// A bundle section: its index, name and ID.
struct BundleSection {
  SectionRef Section;
  StringRef Name;
  StringRef ID;
};

/// An object file and its bundle sections, which refer into it.
struct BundledObject {
  std::unique_ptr<ObjectFile> Obj;
  std::vector<BundleSection> Sections;
};
} // namespace

/// Opens \p Object as openObject() does and finds its bundle sections in
/// section order. Section names that cannot be read are errors.
static Expected<BundledObject> openBundledObject(MemoryBufferRef Object) {
  Expected<std::unique_ptr<ObjectFile>> Obj = openObject(Object);
  if (!Obj)
    return Obj.takeError();
  BundledObject Result{std::move(*Obj), {}};
  unsigned Index = 0;
  for (const SectionRef &Sec : Result.Obj->sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (!Name)
      return objectError(
          Object, "section " + Twine(Index) +
                      ": cannot read the name: " + toString(Name.takeError()));
    if (Name->starts_with(BundleMagic))
      Result.Sections.push_back(
          {Sec, *Name, Name->drop_front(BundleMagic.size())});
    ++Index;
  }
  return std::move(Result);
}

Expected<bool> hasBundleSections(MemoryBufferRef Object) {
  Expected<BundledObject> Bundled = openBundledObject(Object);
  if (!Bundled)
    return Bundled.takeError();
  return !Bundled->Sections.empty();
}

Expected<BundleEntryID> readBundleSectionID(StringRef Name) {
  return BundleEntryID::parse(Name.drop_front(BundleMagic.size()));
}

Expected<StringRef> readBundleSectionContents(const SectionRef &Section,
                                              MemoryBufferRef Object) {
  Expected<StringRef> Contents = Section.getContents();
  if (!Contents)
    return createStringError(inconvertibleErrorCode(),
                             "cannot read the contents: " +
                                 toString(Contents.takeError()));
  // getContents() checks the section against the file for ELF; make sure
  // of it for every format before handing out a view.
  StringRef Buffer = Object.getBuffer();
  if (!Contents->empty() &&
      (Contents->data() < Buffer.data() ||
       Contents->data() + Contents->size() > Buffer.data() + Buffer.size()))
    return createStringError(inconvertibleErrorCode(),
                             "extends past the end of the file");
  return *Contents;
}

Expected<std::vector<BundleEntry>> readObjectBundle(MemoryBufferRef Object) {
  Expected<BundledObject> Bundled = openBundledObject(Object);
  if (!Bundled)
    return Bundled.takeError();

  std::vector<BundleEntry> Entries;
  for (const BundleSection &S : Bundled->Sections) {
    auto Fail = [&](Error E) {
      return objectError(Object,
                         "section '" + S.Name + "': " + toString(std::move(E)));
    };
    if (Expected<BundleEntryID> ID = readBundleSectionID(S.Name); !ID)
      return Fail(ID.takeError());
    Expected<StringRef> Contents = readBundleSectionContents(S.Section, Object);
    if (!Contents)
      return Fail(Contents.takeError());
    Entries.push_back({S.ID, *Contents});
  }
  return Entries;
}

/// What objcopy sizes its output by but does not check against the file.
/// It lays the sections out again at their alignments, so one section
/// aligned to 2^32 turns an object of a few KiB into gigabytes of padding:
/// LLD refuses alignments above 4 GiB ("section sh_addralign is too large"),
/// and so do we. It copies the program header table as e_phnum entries of
/// e_phentsize bytes: the table must have the entry size of the class and
/// lie within the file.
template <class ELFT>
static Error checkObjcopyInput(const ELFObjectFile<ELFT> &Obj,
                               MemoryBufferRef Object) {
  // The raw e_phnum: objcopy takes 0xffff (PN_XNUM) as a count too.
  const typename ELFT::Ehdr &Header = Obj.getELFFile().getHeader();
  uint64_t PhdrTableSize = uint64_t(Header.e_phnum) * Header.e_phentsize;
  if (Header.e_phnum && Header.e_phentsize != sizeof(typename ELFT::Phdr))
    return objectError(Object, "invalid e_phentsize " +
                                   Twine(Header.e_phentsize) + " (expected " +
                                   Twine(sizeof(typename ELFT::Phdr)) + ")");
  if (Header.e_phoff > Object.getBufferSize() ||
      PhdrTableSize > Object.getBufferSize() - Header.e_phoff)
    return objectError(Object, "program header table at offset " +
                                   Twine(Header.e_phoff) + ", " +
                                   Twine(PhdrTableSize) +
                                   " bytes, extends past the end of the file");
  for (const SectionRef &Sec : Obj.sections()) {
    uint64_t Align = Obj.getSection(Sec.getRawDataRefImpl())->sh_addralign;
    if (Align > UINT32_MAX)
      return objectError(Object, "section " + Twine(Sec.getIndex()) +
                                     ": alignment " + Twine(Align) +
                                     " is 4 GiB or more, which LLD refuses");
  }
  return Error::success();
}

/// COFF: LLVM 22's reader hands objcopy a null relocation table, with the
/// header's count, when the table lies outside the file (found by
/// fuzz-object-bundle: a SEGV copying relocations). Refuse such sections.
static Error checkObjcopyInput(const COFFObjectFile &Obj,
                               MemoryBufferRef Object) {
  for (const SectionRef &Sec : Obj.sections()) {
    const coff_section *Header = Obj.getCOFFSection(Sec);
    ArrayRef<coff_relocation> Relocs = Obj.getRelocations(Header);
    if (Header->NumberOfRelocations && Relocs.data() == nullptr)
      return objectError(Object, "section " + Twine(Sec.getIndex()) + ": " +
                                     Twine(Header->NumberOfRelocations) +
                                     " relocations at offset " +
                                     Twine(Header->PointerToRelocations) +
                                     " lie outside the file");
  }
  return Error::success();
}

static Error checkObjcopyInput(const ObjectFile &Obj, MemoryBufferRef Object) {
  if (const auto *O = dyn_cast<COFFObjectFile>(&Obj))
    return checkObjcopyInput(*O, Object);
  if (const auto *O = dyn_cast<ELF64LEObjectFile>(&Obj))
    return checkObjcopyInput(*O, Object);
  if (const auto *O = dyn_cast<ELF64BEObjectFile>(&Obj))
    return checkObjcopyInput(*O, Object);
  if (const auto *O = dyn_cast<ELF32LEObjectFile>(&Obj))
    return checkObjcopyInput(*O, Object);
  if (const auto *O = dyn_cast<ELF32BEObjectFile>(&Obj))
    return checkObjcopyInput(*O, Object);
  return Error::success();
}

Expected<SmallVector<char, 0>>
runObjcopy(const objcopy::ConfigManager &Config, ObjectFile &Obj,
           MemoryBufferRef Object) {
  if (Error E = checkObjcopyInput(Obj, Object))
    return std::move(E);
  SmallVector<char, 0> Out;
  raw_svector_ostream OS(Out);
  if (Error E = objcopy::executeObjcopyOnBinary(Config, Obj, OS))
    return objectError(Object, toString(std::move(E)));
  return std::move(Out);
}

Expected<SmallVector<char, 0>> getHostObject(MemoryBufferRef Object) {
  Expected<BundledObject> Bundled = openBundledObject(Object);
  if (!Bundled)
    return Bundled.takeError();

  // clang-offload-bundler removes the sections matching the regular
  // expression <magic>.*; naming each one removes the same set.
  objcopy::ConfigManager Config;
  for (const BundleSection &S : Bundled->Sections)
    if (Error E = Config.Common.ToRemove.addMatcher(
            objcopy::NameOrPattern::create(S.Name, objcopy::MatchStyle::Literal,
                                           [](Error E) { return E; })))
      return objectError(Object, toString(std::move(E)));
  return runObjcopy(Config, *Bundled->Obj, Object);
}

Expected<SmallVector<char, 0>>
writeObjectBundle(MemoryBufferRef Host, StringRef HostID,
                  ArrayRef<BundleEntryToWrite> Entries) {
  Expected<std::unique_ptr<ObjectFile>> Obj = openObject(Host);
  if (!Obj)
    return Obj.takeError();

  // The config refers to names by StringRef: keep them alive here.
  std::deque<std::string> Names;
  StringSet<> Seen;
  objcopy::ConfigManager Config;
  static const char HostPlaceholder[1] = {0};
  for (const BundleEntryToWrite &Entry : Entries) {
    const std::string &Name = Names.emplace_back(BundleMagic.str() + Entry.ID);
    if (!Seen.insert(Name).second)
      return objectError(Host, "bundle entry ID '" + Entry.ID +
                                   "' is given more than once");
    StringRef Data =
        Entry.ID == HostID ? StringRef(HostPlaceholder, 1) : Entry.Data;
    Config.Common.AddSection.emplace_back(
        Name, MemoryBuffer::getMemBufferCopy(Data, Name));
    Config.Common.SetSectionFlags.try_emplace(
        Name, objcopy::SectionFlagsUpdate{
                  Name, objcopy::SectionFlag::SecReadonly |
                            objcopy::SectionFlag::SecExclude});
  }
  return runObjcopy(Config, **Obj, Host);
}

} // namespace offload

//===- lld-plugin/DeviceInputs.h - Device code in a link's inputs -*- C++ -*-=//
//
// Finds the device images in the files a host link loads: OffloadBinaries in
// .llvm.offloading sections and bitcode, and the entries of objects bundled
// by clang-offload-bundler (__CLANG_OFFLOAD_BUNDLE__<entry ID> sections).
// Which files and archive members those are is LLD's decision (search paths,
// linker scripts, --as-needed, lazy archive extraction...): the command line
// and the inputs' section tables tell it, or a probe link, and the host
// link's own --trace checks it; only what is loaded is searched.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_DEVICEINPUTS_H
#define LLD_OFFLOAD_LLDPLUGIN_DEVICEINPUTS_H

#include "format/ArchiveMembers.h"
#include "format/FindOffloadBinaries.h"
#include "format/InspectCudaFatbin.h"
#include "format/TargetSelection.h"
#include "lld-plugin/DeviceLinkKey.h"
#include "lld-plugin/LinkInputs.h"
#include "lld-plugin/RunLLD.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/StringSaver.h"

#include <map>
#include <optional>

namespace offload {

/// A device image found in a host link input.
struct DeviceImage {
  /// A copy of the finder's view: the views stay valid, the finder's list
  /// does not (it grows).
  OffloadImage Image;
  /// "a.o", "lib.a(m.o)": the input it came from.
  std::string Input;
  /// Where in that input, for messages.
  std::string Where;
  /// From a __CLANG_OFFLOAD_BUNDLE__ section (clang's old offload driver).
  bool FromBundle = false;
  /// For a member of an archive not under --whole-archive: the archive's
  /// place among the link's archives and the member's in the archive. Such
  /// images follow every object's in a device link (sortInLinkOrder()).
  std::optional<std::pair<size_t, size_t>> ArchivePlace;
  /// nvcc's relocatable device code (-rdc, format/NvccModule.h), where Image
  /// is one arch's relocatable cubin or PTX: the host object that holds it,
  /// which nvlink is given whole (as nvcc gives it), and its module IDs,
  /// which the registration defines __cudaRegisterLinkedBinary<ID> for.
  llvm::StringRef NvccObject;
  /// The file that is NvccObject, when the object is a file of its own (not
  /// an archive member): nvlink reads it there, and no copy is written.
  std::string NvccObjectFile;
  std::vector<std::string> NvccModuleIDs;
  /// With several modules (an `ld -r` output): each one's fat binary, which
  /// nvlink is given in place of the object (it reads an object's first
  /// fat binary only).
  std::vector<llvm::StringRef> NvccFatbins;
};

/// The device code of a link's loaded inputs.
class DeviceInputs {
public:
  /// Searches the files and archive members the host link loads for device
  /// code. Those that \p Index has read and found without any are skipped,
  /// here and among the archive members left out.
  llvm::Error scanLoadedInputs(const LoadedInputs &Loaded,
                               const LinkInputs *Index = nullptr);

  /// Adds the device code of archive members the host link left out when
  /// device code needs it: a member whose image defines a symbol that the
  /// images it may be linked with (same offload kind and triple, arch as
  /// mayShareDeviceLink() says) leave undefined (repeated until nothing
  /// more is needed), every image of an arch named in \p ExtractArchs
  /// (--offload-extract), and, with \p Request (--offload-arch=), every
  /// image the request keeps for one of its target IDs (TargetSelection.h,
  /// each member a container: gfx90a takes gfx90a:xnack+ code, and a
  /// generic image serves a member processor the member has no image for).
  llvm::Error
  addArchiveMembersDeviceCodeNeeds(llvm::ArrayRef<std::string> ExtractArchs,
                                   const TargetRequest *Request = nullptr);

  /// Puts the images in the order clang-linker-wrapper gives a device link
  /// its inputs, so that both link the same code into the same bytes: first
  /// those of objects and of members of archives under --whole-archive, in
  /// command-line order, then those of other archive members, archive by
  /// archive in command-line order, each archive's in member order. (LLD
  /// loads members in the order symbol resolution asks for them, and their
  /// device code was linked in that order, laid out differently.)
  void sortInLinkOrder();

  /// True if an input calls the OpenMP registration (a relocatable output
  /// that registered its own images, for one): the link needs the runtime.
  bool callsOpenMPRegistration() const { return CallsOpenMPRegistration; }

  /// The compilation units, by CUID in link order, whose host code refers to
  /// __hip_fatbin_<cuid> or __hip_gpubin_handle_<cuid>: clang's old HIP
  /// driver with -fgpu-rdc, which leaves both for the link to define.
  llvm::ArrayRef<std::string> hipFatbinUnits() const { return HIPUnits; }

  /// True if the host link loads objects of the program's own that are not
  /// nvcc's relocatable device code (a g++ object, a whole-program nvcc
  /// unit): nvcc's link gives nvlink those too, which keeps nvlink from
  /// dropping kernels the units' host code does not name.
  bool loadsObjectsBesideNvcc() const { return ObjectsBesideNvcc; }

  /// Device images, in link order.
  llvm::ArrayRef<DeviceImage> images() const { return Images; }

  /// Leaves out the images whose \p Dropped is true (one per image, in
  /// order): code for targets the link is not for, neither linked nor
  /// registered. Returns them.
  std::vector<DeviceImage> leaveOut(const std::vector<bool> &Dropped);

  /// What the offload entries of the loaded objects name (a CUDA kernel's
  /// stub, a HIP kernel's handle, a device variable's host shadow): the
  /// runtime tells kernels and variables apart by these addresses, which
  /// identical code folding must leave distinct.
  struct EntryTargets {
    /// Global symbols, in link order.
    std::vector<std::string> Global;
    /// What no linker option can name: local symbols (a kernel in an
    /// anonymous namespace), and loaded host bitcode with device code (host
    /// LTO), whose entries are read only after LTO.
    std::vector<std::string> Unnamed;
  };
  const EntryTargets &entryTargets() const { return Targets; }

  /// The input that already registers device images (clang-linker-wrapper's
  /// wrapper object, an offload-wrapper object): set when the link needs no
  /// registration of ours, that is when such inputs register every kind of
  /// device code found.
  std::optional<std::string> alreadyRegisteredBy() const;

private:
  /// The device images of an input, kept aside until chosen.
  struct Candidate {
    /// What it is once taken.
    DeviceImage Found;
    bool Taken = false;
    /// For an image left compressed (Found.Image.isDeferred()): its binary
    /// in Finder.binaries() and its index there, to inflate it from.
    size_t Binary = 0, Index = 0;
    /// The symbols the image defines, once read.
    std::optional<llvm::StringSet<>> Defines;
    /// For nvcc's code not read yet: its fat binary entry.
    std::optional<CudaFatbinEntry> NvccEntry;
  };
  /// Symbols the images of one (offload kind, triple, arch) define and need.
  struct SymbolUse {
    llvm::StringSet<> Defined, Undefined;
    bool needs(llvm::StringRef Name) const {
      return Undefined.contains(Name) && !Defined.contains(Name);
    }
  };

  /// Finds the device code of one input; with \p Loaded (the host link
  /// loads it), notes its entries' targets too.
  llvm::Error scanInput(llvm::MemoryBufferRef Buffer, llvm::StringRef Name,
                        std::vector<Candidate> *Found, bool Loaded);
  llvm::Expected<const ArchiveMemberIndex *> openArchive(llvm::StringRef Path);
  llvm::Expected<const ArchiveMember *> archiveMember(llvm::StringRef Archive,
                                                      llvm::StringRef Member,
                                                      unsigned Occurrence);
  /// Sets the ArchivePlace of \p Found, the candidates of the member
  /// \p Index (in archive order) of the archive \p Path.
  void placeArchiveMember(llvm::MutableArrayRef<Candidate> Found,
                          llvm::StringRef Path, size_t Index) const;
  llvm::Error addBundleSection(const llvm::object::SectionRef &Sec,
                               llvm::StringRef SecName,
                               llvm::MemoryBufferRef Object,
                               llvm::StringRef Name,
                               std::vector<Candidate> *Found);
  /// Adds the images of nvcc's relocatable device code in \p Object, if it
  /// has any; \p Registers: the __cudaRegisterLinkedBinary<ID> its host code
  /// calls, if any.
  llvm::Error addNvccModule(const llvm::object::ObjectFile &Obj,
                            llvm::MemoryBufferRef Object, llvm::StringRef Name,
                            llvm::StringRef Registers,
                            std::vector<Candidate> *Found);
  /// True for nvcc modules an input has device-linked already (an nvcc
  /// -dlink output, which registers them too).
  bool linkedAlready(const Candidate &C) const;
  llvm::Error load(Candidate &C);
  llvm::Error take(Candidate &C);
  llvm::Error noteSymbols(const OffloadImage &Image, llvm::StringRef Where,
                          SymbolUse &Use);

  const LinkInputs *Index = nullptr;
  /// Compressed (v3) binaries are inflated as far as their metadata only:
  /// an image is inflated when it is linked or its symbols are read
  /// (load()), so that archive members no device link uses cost nothing.
  OffloadBinaryFinder Finder{InflateMode::Metadata};
  /// The images of the compressed binaries inflated so far, by index in
  /// Finder.binaries(), and their bytes.
  llvm::DenseMap<size_t, std::vector<llvm::StringRef>> InflatedImages;
  ByteStore Inflated;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Files;
  struct OpenArchive {
    std::unique_ptr<llvm::object::Archive> Lib;
    ArchiveMemberIndex Members;
  };
  llvm::StringMap<OpenArchive> Archives;
  /// The members the host link loaded, by "archive(member)" as its trace
  /// names them, counted as format/ArchiveMembers.h tells members of one
  /// name apart.
  MemberOccurrences LoadedMembers;
  std::vector<std::string> ArchivePaths;
  std::vector<DeviceImage> Images;
  /// The offload kinds whose images an input registers already, and the
  /// first such input: images of these kinds are not linked.
  std::map<OffloadKind, std::string> RegisteredKinds;
  bool CallsOpenMPRegistration = false;
  EntryTargets Targets;
  std::vector<std::string> HIPUnits;
  /// CUIDs whose __hip_fatbin_<cuid> an input defines (clang --hip-link's
  /// object): dropped from HIPUnits.
  llvm::StringSet<> HIPUnitsDefined;
  llvm::StringSet<> HIPUnitSet;
  /// nvcc modules whose __cudaRegisterLinkedBinary<ID> an input defines (an
  /// nvcc -dlink output): their device code is linked already.
  llvm::StringSet<> NvccModulesLinked;
  /// nvcc's images taken before their symbols mattered, and whether they
  /// matter now (addArchiveMembersDeviceCodeNeeds() has members to take).
  std::vector<Candidate> UnreadNvcc;
  bool NoteNvccSymbols = false;
  bool ObjectsBesideNvcc = false;
  /// Symbol use per device link key (kind, triple, arch) of the images
  /// taken so far.
  std::map<DeviceLinkKey, SymbolUse> Uses;
  llvm::LLVMContext Context;
  /// Strings of images made up from bundle entry IDs.
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver{Alloc};
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_DEVICEINPUTS_H

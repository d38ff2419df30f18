//===- format/FindOffloadBinaries.h - OffloadBinaries in any file -*- C++ -*-=//
//
// Finds the OffloadBinaries that compilers embed in their outputs, whatever
// the container: ELF objects, executables and shared libraries (sections of
// type SHT_LLVM_OFFLOADING or named `.llvm.offloading*`), COFF objects (by
// name), archives (every member, thin ones too, nested ones recursively),
// LLVM bitcode (globals listed in `!llvm.embedded.objects`) and raw files
// that start with the magic. Other files hold no binaries and are no error.
// Archives nest at most MaxArchiveDepth deep, and a thin archive may not
// name a file that contains it.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_FINDOFFLOADBINARIES_H
#define LLD_OFFLOAD_FORMAT_FINDOFFLOADBINARIES_H

#include "format/OffloadBinary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem/UniqueID.h"

namespace offload {

/// Whether \p Sec of \p Obj, named \p Name, holds OffloadBinaries: of type
/// SHT_LLVM_OFFLOADING (ELF; never SHT_NOBITS) or named `.llvm.offloading*`.
bool isOffloadingSection(const llvm::object::SectionRef &Sec,
                         const llvm::object::ObjectFile &Obj,
                         llvm::StringRef Name);

/// Where an OffloadBinary was found.
struct OffloadOrigin {
  /// The file as named on the command line.
  std::string File;
  /// The archive member, "outer.a(inner.o)" style for nested archives; empty
  /// outside archives.
  std::string Member;
  /// The ELF/COFF section, or the bitcode global; empty for raw files.
  std::string Section;
  /// Offset of the binary within its object file (the member, if any). For
  /// bitcode this is the offset within the global's initializer.
  uint64_t Offset = 0;

  /// "file", "lib.a(member.o)", with ":section" and "+0xoffset" appended.
  std::string describe() const;
};

/// An OffloadBinary and where it came from.
struct FoundOffloadBinary {
  OffloadBinary Binary;
  OffloadOrigin Origin;
};

/// Collects the OffloadBinaries of any number of input files and owns every
/// buffer their views point into.
class OffloadBinaryFinder {
public:
  /// How deep archives may nest, thin archives' member files included:
  /// every level is a recursion, and a 1.4 MB file can nest 20,000 deep.
  static constexpr unsigned MaxArchiveDepth = 16;

  /// \p Mode says how much of compressed binaries to inflate: everything
  /// (the default, for readers that use every image's bytes) or what
  /// describes the images (listing; the images are then read with
  /// streamOffloadImages()).
  explicit OffloadBinaryFinder(InflateMode Mode = InflateMode::Whole)
      : Mode(Mode) {}

  /// Memory-maps the file at \p Path and collects the binaries it holds.
  llvm::Error addFile(llvm::StringRef Path);

  /// Collects the binaries in \p Buffer, a file named \p Path; the caller
  /// keeps \p Buffer alive as long as this finder.
  llvm::Error addBuffer(llvm::MemoryBufferRef Buffer, llvm::StringRef Path);

  /// Everything found so far, in input order. The views stay valid as long
  /// as the finder; the list itself moves when more inputs are added.
  llvm::ArrayRef<FoundOffloadBinary> binaries() const { return Found; }

private:
  llvm::Error scan(llvm::MemoryBufferRef Buffer, const OffloadOrigin &Where);
  llvm::Error scanObject(llvm::MemoryBufferRef Buffer,
                         const OffloadOrigin &Where);
  llvm::Error scanArchive(llvm::MemoryBufferRef Buffer,
                          const OffloadOrigin &Where);
  llvm::Error scanBitcode(llvm::MemoryBufferRef Buffer,
                          const OffloadOrigin &Where);
  llvm::Error scanBinaries(llvm::StringRef Data, uint64_t BaseOffset,
                           const OffloadOrigin &Where);

  InflateMode Mode;
  ByteStore Store;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Files;
  std::vector<std::unique_ptr<llvm::object::Archive>> Archives;
  std::vector<FoundOffloadBinary> Found;
  /// The files being read, outermost first: the input, then the thin
  /// archive members around the current one.
  std::vector<llvm::sys::fs::UniqueID> OpenFiles;
  /// How many archives enclose what is being scanned.
  unsigned ArchiveDepth = 0;
};

/// Refuses bitcode whose attribute group records give a parameter index no
/// module of its size can have: LLVM 22's bitcode reader sizes a list by it
/// before checking it, and aborts on ~34 GB ("LLVM ERROR: out of memory").
/// Anything else is left for the bitcode reader to report.
llvm::Error checkAttributeGroupIndices(llvm::MemoryBufferRef Buffer);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_FINDOFFLOADBINARIES_H

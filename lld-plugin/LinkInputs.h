//===- lld-plugin/LinkInputs.h - The inputs a command line names -*- C++
//-*-===//
//
// Which files and archive members a link loads is LLD's decision, and asking
// LLD costs a symbol resolution: a third of a large link. Most links do not
// need to ask. Device code sits in objects named on the command line, which
// LLD always loads, and no archive member carries any. This reads the
// command line with LLD's own option table and library search, then the
// section tables of every object and archive member it names, and tells
// whether that is so. A large program's archives take the longest to read
// (readArchives(), on every core). The host link's own trace confirms the
// answer afterwards (see Link.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_LINKINPUTS_H
#define LLD_OFFLOAD_LLDPLUGIN_LINKINPUTS_H

#include "lld-plugin/LLDCommandLine.h"
#include "lld-plugin/RunLLD.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFTypes.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace offload {

/// True if a section of this name, type and flags holds device code or
/// marks an object that registers it: .llvm.offloading* or
/// SHT_LLVM_OFFLOADING, __CLANG_OFFLOAD_BUNDLE__*, a HIP or CUDA unit's fat
/// binary wrapper segment, a linked .hip_fatbin. Code sections never do.
bool isDeviceCodeSection(llvm::StringRef Name, uint32_t Type, uint64_t Flags);

/// Calls \p F with a tag whose ::type is the ELFType (32 or 64 bits,
/// little or big endian) of the ELF file \p Data, which holds at least an
/// e_ident.
template <class Fn> auto withELFType(llvm::StringRef Data, Fn &&F) {
  using namespace llvm::object;
  bool Is64 = Data[llvm::ELF::EI_CLASS] == llvm::ELF::ELFCLASS64;
  bool IsLE = Data[llvm::ELF::EI_DATA] == llvm::ELF::ELFDATA2LSB;
  if (Is64)
    return IsLE ? F(std::common_type<ELF64LE>())
                : F(std::common_type<ELF64BE>());
  return IsLE ? F(std::common_type<ELF32LE>()) : F(std::common_type<ELF32BE>());
}

/// What the section tables of an input say.
enum class DeviceCodeScan {
  None,    // no device code: nothing to read there
  Found,   // device code, or a file that must be read whole (bitcode)
  Unknown, // unreadable or malformed: LLD's and our readers say why
};

/// Reads the section tables of the ELF relocatable object or bitcode file
/// in \p Buffer; other files hold no device code.
DeviceCodeScan scanForDeviceCode(llvm::MemoryBufferRef Buffer);

/// Reads the GNU or SysV archive ("!<arch>\n") \p Path without mapping it:
/// its member headers, each with the start of its member, and each ELF
/// object's section tables, with pread. None if no member holds device
/// code; Found if one may (which, LLVM's archive reader says); std::nullopt
/// where only that reader can tell: another kind of archive (thin, BSD
/// names), a header or name not as it expects. (Mapping a large program's
/// archives to walk their thousands of members cost a page fault for each,
/// and unmapping them TLB shootdowns in the host link running beside: a
/// third of the time the read took.)
std::optional<DeviceCodeScan> scanArchiveMembers(llvm::StringRef Path);

/// Where LLD finds -l<Name>: lib<Name>.so (unless \p Static), then
/// lib<Name>.a, in each of \p Dirs in turn; -l:<file> names the file. A
/// directory that starts with '=' is under \p Sysroot.
std::optional<std::string> searchLibrary(llvm::StringRef Name,
                                         llvm::ArrayRef<std::string> Dirs,
                                         llvm::StringRef Sysroot, bool Static);

/// The inputs a command line names, and which of them may hold device code.
class LinkInputs {
public:
  /// What the section tables of an input say.
  struct FileScan {
    DeviceCodeScan Scan = DeviceCodeScan::Unknown;
    bool IsArchive = false;
    struct {
      bool Read = false;
      /// Members that may hold device code, by name and occurrence (how
      /// format/ArchiveMembers.h tells members of one name apart).
      std::set<std::pair<std::string, unsigned>> DeviceMembers;
    } Archive;
  };
  /// What readArchives() found, for addArchives().
  struct ArchiveScans {
    llvm::StringMap<FileScan> Files;
    /// True if every archive was read and none has a member that may hold
    /// device code: what LinkInputs assumes while they are pending.
    bool holdNoDeviceCode() const;
  };

  enum class Reading { Now, Later };
  /// Finds \p LLD's inputs as LLD does (-l through the -L directories,
  /// -Bstatic, --start-lib) and reads the section tables of the objects, in
  /// parallel; the archives' members' too, unless \p Archives is Later:
  /// until addArchives() is given them, archivesPending() is true and the
  /// archives count as holding no device code.
  static LinkInputs find(const LLDCommandLine &LLD,
                         Reading Archives = Reading::Now);

  /// The archives whose members are still to be read.
  bool archivesPending() const { return ArchivesPending; }
  std::vector<std::string> archivesToRead() const;
  /// Reads the section tables of every member of the archives \p Paths,
  /// on up to \p Threads threads. Reads no state: safe on any thread.
  static ArchiveScans readArchives(const std::vector<std::string> &Paths,
                                   unsigned Threads);
  /// Takes what readArchives() found: whyAskLLD() and the answers below
  /// count the archives from now on.
  void addArchives(ArchiveScans Scans);
  /// Reads the pending archives on every core, and takes what it found.
  void readPendingArchives();

  /// Why what the link loads cannot be told from the command line (empty
  /// when it can): an archive member or a lazy object with device code, a
  /// file or library that cannot be found or read, an option LLD does not
  /// know. LLD is asked then, and says what is wrong with what.
  const std::string &whyAskLLD() const { return WhyAskLLD; }

  /// What LLD's --trace and --print-archive-stats would report of the
  /// device code's inputs, when whyAskLLD() is empty: every object named on
  /// the command line and every archive. (Members without device code and
  /// inputs of linker scripts are not listed: the host link's trace shows
  /// whether they matter.)
  LoadedInputs commandLineLoads() const;

  /// False if the input that LLD's --trace names \p Line ("a.o",
  /// "lib.a(m.o)") certainly holds no device code: its section tables were
  /// read and say so. True for inputs not read here. \p Occurrence: which
  /// member of that name (format/ArchiveMembers.h); 0 for a file.
  bool mayHoldDeviceCode(llvm::StringRef Line, unsigned Occurrence) const;
  /// True if the command line names the file \p Path (as LLD names it):
  /// an object, archive or library LLD loads whatever else is linked.
  bool namesFile(llvm::StringRef Path) const { return Files.count(Path); }
  /// The archives it names, in command-line order, once read.
  const std::vector<std::string> &archives() const { return Archives; }
  /// True if the command line names the archive \p Path (as LLD names it)
  /// under --whole-archive: its members are loaded as objects are.
  bool wholeArchive(llvm::StringRef Path) const {
    return WholeArchives.contains(Path);
  }

  /// False if no member of the archive \p Path holds device code.
  bool archiveMayHoldDeviceCode(llvm::StringRef Path) const;
  /// False if the member \p Member of the archive \p Path, the one of that
  /// occurrence of its name, holds no device code.
  bool memberMayHoldDeviceCode(llvm::StringRef Path, llvm::StringRef Member,
                               unsigned Occurrence) const;

  /// A library the command line names as -l<Name> outside -Bstatic, as
  /// found in its search paths: the file, and whether it is an archive.
  struct FoundLibrary {
    std::string Path;
    bool IsArchive = false;
  };
  /// -l\p Name as found here, for a link that searches \p Paths, which
  /// must begin with this command line's; std::nullopt if it is not known
  /// (it is not named so, or the paths differ): search for it then.
  std::optional<FoundLibrary> foundLibrary(llvm::StringRef Name,
                                           const SearchPaths &Paths) const;

private:
  void scanFiles();

  /// Every file named, by path as LLD names it.
  llvm::StringMap<FileScan> Files;
  /// In command-line order: objects LLD always loads, and archives.
  std::vector<std::string> Objects, Archives;
  /// Objects between --start-lib and --end-lib.
  std::vector<std::string> LazyObjects;
  /// Files named under --whole-archive.
  llvm::StringSet<> WholeArchives;
  /// Where -l<name> was found, outside -Bstatic, by name; and in what.
  llvm::StringMap<std::string> DynamicLibraries;
  SearchPaths Paths;
  std::string WhyAskLLD;
  bool ArchivesPending = false;
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_LINKINPUTS_H

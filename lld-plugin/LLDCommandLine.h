//===- lld-plugin/LLDCommandLine.h - LLD's part of a command line -*- C++ -*-=//
//
// The arguments of a link that are LLD's (all but our --offload-* options):
// kept as written, which is what LLD is handed (--reproduce must see what
// the user wrote), and read once with LLD's own option table, the one place
// that knows which of ld.lld's options take values and how each may be
// spelled (-o file, -ofile, --output=file; -omagic is not -o magic). Every
// question about LLD's options is asked here.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_LLDCOMMANDLINE_H
#define LLD_OFFLOAD_LLDPLUGIN_LLDCOMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Option/ArgList.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace offload {

/// Where -l libraries are searched: the -L directories in order, and the
/// sysroot that '=' and '$SYSROOT' prefixes stand for.
struct SearchPaths {
  std::vector<std::string> Dirs;
  std::string Sysroot;
};

/// What --time-trace asks for.
struct TimeTraceRequest {
  bool Enabled = false;
  /// --time-trace=<file> or --time-trace-file=<file>; empty: "<output>.time-trace".
  std::string File;
  unsigned Granularity = 500;
};

/// LLD's distributed ThinLTO (DTLTO) settings, which device links are sent
/// through too.
struct DTLTOSettings {
  /// --thinlto-distributor=<program> (empty: none) and
  /// --thinlto-distributor-arg=s.
  std::string Distributor;
  std::vector<std::string> DistributorArgs;
  /// --thinlto-remote-compiler=<program> (empty: not given), and the
  /// arguments that go before (--thinlto-remote-compiler-prepend-arg=) and
  /// after (--thinlto-remote-compiler-arg=) the shared ones.
  std::string RemoteCompiler;
  std::vector<std::string> RemoteCompilerPrependArgs, RemoteCompilerArgs;
};

class LLDCommandLine {
public:
  LLDCommandLine();
  explicit LLDCommandLine(std::vector<std::string> Args);
  LLDCommandLine(const LLDCommandLine &Other);
  LLDCommandLine &operator=(const LLDCommandLine &Other);
  LLDCommandLine(LLDCommandLine &&) noexcept;
  LLDCommandLine &operator=(LLDCommandLine &&) noexcept;
  ~LLDCommandLine();

  /// The arguments, as written.
  const std::vector<std::string> &args() const;
  /// LLD's reading of them, in order.
  const llvm::opt::InputArgList &list() const;
  /// True if the last option lacks its value.
  bool lacksValue() const;

  /// The output, "a.out" unless -o or --output names one.
  std::string output() const;
  /// -r (--relocatable).
  bool relocatable() const;
  /// -shared (-Bshareable).
  bool shared() const;
  /// --help.
  bool printsHelp() const;
  /// --version: the version, and nothing else.
  bool printsVersionOnly() const;
  /// -v or -V: the version, then the link if there is one.
  bool printsVersion() const;
  /// True if it names an input file (a file, -l, not an option's value).
  bool namesInputFiles() const;
  /// The -L directories and the sysroot.
  SearchPaths searchPaths() const;
  /// True if it links the library \p Name: -l<Name>, -l:lib<Name>.<ext>, or
  /// a file lib<Name>.<ext> named by path.
  bool namesLibrary(llvm::StringRef Name) const;
  /// --trace (-t): LLD's list of what it loads, asked for by the user.
  bool asksForTrace() const;
  /// The reason LLD's messages to standard output would mix with the
  /// --trace that ld.lld-offload reads from the host link (an option such
  /// as --print-gc-sections or -y), or std::nullopt when there is none.
  std::optional<std::string> optionPrintingToStdout() const;
  /// The last of --gc-sections and --no-gc-sections is --gc-sections.
  bool collectsUnusedSections() const;
  /// The last --icf= is --icf=all.
  bool foldsAllIdenticalCode() const;
  /// --why-extract=<file>: the user's, which a second would replace.
  bool writesWhyExtract() const;
  /// --dependency-file=<file>, the last.
  std::optional<std::string> dependencyFile() const;
  /// The --thinlto-distributor= and --thinlto-remote-compiler= options.
  DTLTOSettings dtlto() const;
  /// --time-trace, --time-trace=<file>, --time-trace-granularity=<n>, and
  /// --time-trace-file=<file>, which LLD 11-16 took and LLD 22 does not know
  /// (taken as --time-trace=<file>, as documented).
  TimeTraceRequest timeTrace() const;

  /// The same, without the options (with their values) that \p Drop picks.
  LLDCommandLine
  without(llvm::function_ref<bool(const llvm::opt::Arg &)> Drop) const;
  /// Without the options that ask for a time trace (TimeTrace records it).
  LLDCommandLine withoutTimeTrace() const;
  /// Without -v and -V (the version line is ours to print).
  LLDCommandLine withoutVersion() const;
  /// The arguments of a probe link: these without the options that write
  /// side outputs (map files, dependency files, traces, reproducers) or
  /// print (-v), with the output sent to /dev/null, ignoring undefined
  /// symbols.
  std::vector<std::string> probeArguments() const;

  /// Where the argument after the one at \p Index of \p Argv begins, as
  /// LLD's table reads them: after the value of an option that takes it
  /// as the next argument (-o <file>), whatever that value looks like.
  static unsigned nextArgument(const llvm::opt::InputArgList &Argv,
                               unsigned Index);

  /// The name of \p A's option in LLD's table, aliases resolved ("-static"
  /// is "Bstatic", "--output" is "o").
  static llvm::StringRef optionName(const llvm::opt::Arg &A);

private:
  struct Parsed;
  static std::unique_ptr<Parsed> parse(std::vector<std::string> Args);
  std::unique_ptr<Parsed> P;
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_LLDCOMMANDLINE_H

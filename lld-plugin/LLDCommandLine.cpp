//===- lld-plugin/LLDCommandLine.cpp - LLD's part of a command line -------===//

#include "lld-plugin/LLDCommandLine.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace lld::elf {
/// LLD's option table (lld/ELF/Driver.h, which liblld-dev does not install).
/// Its constructor is in lldELF.
class ELFOptTable : public llvm::opt::GenericOptTable {
public:
  ELFOptTable();
};
} // namespace lld::elf

namespace offload {

struct LLDCommandLine::Parsed {
  std::vector<std::string> Args;
  std::vector<const char *> Argv;
  opt::InputArgList List;
  unsigned MissingIndex = 0, MissingCount = 0;
};

/// LLD's option table, made once: it is constant once made.
static const lld::elf::ELFOptTable &lldOptTable() {
  static const lld::elf::ELFOptTable Table;
  return Table;
}

unsigned LLDCommandLine::nextArgument(const opt::InputArgList &Argv,
                                      unsigned Index) {
  unsigned Next = Index;
  if (!lldOptTable().ParseOneArg(Argv, Next))
    return Argv.getNumInputArgStrings(); // a value missing at the end
  return Next;
}

std::unique_ptr<LLDCommandLine::Parsed>
LLDCommandLine::parse(std::vector<std::string> Args) {
  const lld::elf::ELFOptTable &Table = lldOptTable();
  auto P = std::make_unique<LLDCommandLine::Parsed>();
  P->Args = std::move(Args);
  for (const std::string &Arg : P->Args)
    P->Argv.push_back(Arg.c_str());
  P->List = Table.ParseArgs(P->Argv, P->MissingIndex, P->MissingCount);
  return P;
}

LLDCommandLine::LLDCommandLine() : P(parse({})) {}
LLDCommandLine::LLDCommandLine(std::vector<std::string> Args)
    : P(parse(std::move(Args))) {}
LLDCommandLine::LLDCommandLine(const LLDCommandLine &Other)
    : P(parse(Other.args())) {}
LLDCommandLine &LLDCommandLine::operator=(const LLDCommandLine &Other) {
  if (this != &Other)
    P = parse(Other.args());
  return *this;
}
LLDCommandLine::LLDCommandLine(LLDCommandLine &&) noexcept = default;
LLDCommandLine &LLDCommandLine::operator=(LLDCommandLine &&) noexcept = default;
LLDCommandLine::~LLDCommandLine() = default;

const std::vector<std::string> &LLDCommandLine::args() const {
  return P->Args;
}
const opt::InputArgList &LLDCommandLine::list() const { return P->List; }
bool LLDCommandLine::lacksValue() const { return P->MissingCount != 0; }

StringRef LLDCommandLine::optionName(const opt::Arg &A) {
  return A.getOption().getUnaliasedOption().getName();
}

/// The last argument of the options named \p Names, or null.
static const opt::Arg *last(const opt::InputArgList &List,
                            std::initializer_list<StringRef> Names) {
  const opt::Arg *Last = nullptr;
  for (const opt::Arg *A : List)
    if (is_contained(Names, LLDCommandLine::optionName(*A)))
      Last = A;
  return Last;
}

static bool has(const opt::InputArgList &List,
                std::initializer_list<StringRef> Names) {
  return last(List, Names) != nullptr;
}

std::string LLDCommandLine::output() const {
  const opt::Arg *A = last(P->List, {"o"});
  return A && A->getNumValues() ? A->getValue() : "a.out";
}

bool LLDCommandLine::relocatable() const {
  return has(P->List, {"relocatable"});
}
bool LLDCommandLine::shared() const { return has(P->List, {"shared"}); }
bool LLDCommandLine::printsHelp() const { return has(P->List, {"help"}); }
bool LLDCommandLine::printsVersionOnly() const {
  return has(P->List, {"version"});
}
bool LLDCommandLine::printsVersion() const { return has(P->List, {"v"}); }

bool LLDCommandLine::namesInputFiles() const {
  return llvm::any_of(P->List, [](const opt::Arg *A) {
    return A->getOption().getKind() == opt::Option::InputClass;
  });
}

SearchPaths LLDCommandLine::searchPaths() const {
  SearchPaths Paths;
  for (const opt::Arg *A : P->List) {
    StringRef Name = optionName(*A);
    if (Name == "L")
      Paths.Dirs.push_back(A->getValue());
    else if (Name == "sysroot")
      Paths.Sysroot = A->getValue();
  }
  return Paths;
}

bool LLDCommandLine::namesLibrary(StringRef Name) const {
  // lib<Name>.so, lib<Name>.a, lib<Name>.so.1, ...
  std::string Prefix = ("lib" + Name + ".").str();
  auto IsFile = [&](StringRef Path) {
    return sys::path::filename(Path).starts_with(Prefix);
  };
  for (const opt::Arg *A : P->List) {
    if (A->getOption().getKind() == opt::Option::InputClass) {
      if (IsFile(A->getValue()))
        return true;
      continue;
    }
    if (optionName(*A) != "l")
      continue;
    StringRef Lib = A->getValue();
    if (Lib == Name || (Lib.consume_front(":") && IsFile(Lib)))
      return true;
  }
  return false;
}

bool LLDCommandLine::asksForTrace() const { return has(P->List, {"trace"}); }

std::optional<std::string> LLDCommandLine::optionPrintingToStdout() const {
  for (const opt::Arg *A : P->List) {
    StringRef Name = optionName(*A);
    // LLD prints these with its messages, where --trace goes.
    bool Prints = Name == "trace-symbol" || Name == "print-gc-sections" ||
                  Name == "print-icf-sections" ||
                  Name == "print-memory-usage" || Name == "v" ||
                  Name == "version" || Name == "verbose" ||
                  Name == "why-live" || Name == "print-map" ||
                  Name == "print-archive-stats=";
    // These write to standard output when their file is "-".
    Prints |= (Name == "Map" || Name == "why-extract=" ||
               Name == "print-symbol-order") &&
              A->getNumValues() && StringRef(A->getValue()) == "-";
    if (Prints)
      return A->getAsString(P->List);
  }
  return std::nullopt;
}

bool LLDCommandLine::collectsUnusedSections() const {
  const opt::Arg *A = last(P->List, {"gc-sections", "no-gc-sections"});
  return A && optionName(*A) == "gc-sections";
}

bool LLDCommandLine::foldsAllIdenticalCode() const {
  const opt::Arg *A = last(P->List, {"icf=all", "icf=safe", "icf=none"});
  return A && optionName(*A) == "icf=all";
}

bool LLDCommandLine::writesWhyExtract() const {
  return last(P->List, {"why-extract="}) != nullptr;
}

std::optional<std::string> LLDCommandLine::dependencyFile() const {
  const opt::Arg *A = last(P->List, {"dependency-file"});
  if (!A || !A->getNumValues())
    return std::nullopt;
  return std::string(A->getValue());
}

DTLTOSettings LLDCommandLine::dtlto() const {
  DTLTOSettings D;
  for (const opt::Arg *A : P->List) {
    StringRef Name = optionName(*A).rtrim('=');
    if (!A->getNumValues())
      continue;
    std::string Value = A->getValue();
    if (Name == "thinlto-distributor")
      D.Distributor = Value;
    else if (Name == "thinlto-distributor-arg")
      D.DistributorArgs.push_back(Value);
    else if (Name == "thinlto-remote-compiler")
      D.RemoteCompiler = Value;
    else if (Name == "thinlto-remote-compiler-prepend-arg")
      D.RemoteCompilerPrependArgs.push_back(Value);
    else if (Name == "thinlto-remote-compiler-arg")
      D.RemoteCompilerArgs.push_back(Value);
  }
  return D;
}

/// --time-trace-file=<file> (LLD 11-16's spelling, unknown to LLD 22): its
/// file, or std::nullopt for any other argument.
static std::optional<StringRef> oldTimeTraceFile(const opt::Arg &A) {
  if (A.getOption().getKind() != opt::Option::UnknownClass)
    return std::nullopt;
  StringRef Spelling = StringRef(A.getValue()).ltrim('-');
  if (!Spelling.consume_front("time-trace-file="))
    return std::nullopt;
  return Spelling;
}

static bool isTimeTraceOption(const opt::Arg &A) {
  StringRef Name = LLDCommandLine::optionName(A);
  return Name == "time-trace=" || Name == "time-trace-granularity" ||
         oldTimeTraceFile(A);
}

TimeTraceRequest LLDCommandLine::timeTrace() const {
  TimeTraceRequest T;
  for (const opt::Arg *A : P->List) {
    if (!isTimeTraceOption(*A))
      continue;
    if (optionName(*A) == "time-trace-granularity") {
      unsigned Granularity;
      if (!StringRef(A->getValue()).getAsInteger(10, Granularity))
        T.Granularity = Granularity;
      continue;
    }
    T.Enabled = true;
    if (std::optional<StringRef> File = oldTimeTraceFile(*A))
      T.File = File->str();
    else if (A->getNumValues() && *A->getValue())
      T.File = A->getValue();
  }
  return T;
}

LLDCommandLine LLDCommandLine::withoutTimeTrace() const {
  return without(isTimeTraceOption);
}

LLDCommandLine LLDCommandLine::withoutVersion() const {
  return without([](const opt::Arg &A) { return optionName(A) == "v"; });
}

LLDCommandLine
LLDCommandLine::without(function_ref<bool(const opt::Arg &)> Drop) const {
  // Each option spans the arguments from its index to the next option's.
  std::vector<bool> Dropped(P->Args.size(), false);
  std::vector<const opt::Arg *> InOrder(P->List.begin(), P->List.end());
  for (size_t I = 0; I != InOrder.size(); ++I) {
    if (!Drop(*InOrder[I]))
      continue;
    unsigned End = I + 1 < InOrder.size() ? InOrder[I + 1]->getIndex()
                                          : P->Args.size();
    for (unsigned J = InOrder[I]->getIndex(); J != End; ++J)
      Dropped[J] = true;
  }
  std::vector<std::string> Kept;
  for (size_t I = 0; I != P->Args.size(); ++I)
    if (!Dropped[I])
      Kept.push_back(P->Args[I]);
  return LLDCommandLine(std::move(Kept));
}

std::vector<std::string> LLDCommandLine::probeArguments() const {
  // By the names of LLD's table: "o" is -o, -ofile and --output; "v" is -V
  // too, "trace" -t, "trace-symbol" -y, "print-map" -M.
  static const StringSet<> SideOutputs = {
      "o",          "v",
      "version",    "print-map",
      "Map",        "cref",
      "why-extract=", "dependency-file",
      "reproduce",  "print-archive-stats=",
      "print-symbol-order", "print-gc-sections",
      "print-icf-sections", "trace",
      "trace-symbol", "verbose",
      "stats",      "print-memory-usage"};
  std::vector<std::string> Out =
      withoutTimeTrace()
          .without([](const opt::Arg &A) {
            return SideOutputs.contains(optionName(A));
          })
          .args();
  // Symbols the registration object or the offload runtime will provide are
  // not there yet; undefined symbols do not change what LLD loads. Hidden
  // ones (old-driver HIP's __hip_fatbin_<cuid>) are errors even so, unless
  // errors do not stop the link.
  Out.push_back("--unresolved-symbols=ignore-all");
  Out.push_back("--noinhibit-exec");
  Out.push_back("-o");
  Out.push_back("/dev/null");
  return Out;
}

} // namespace offload

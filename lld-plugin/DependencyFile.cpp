//===- lld-plugin/DependencyFile.cpp - The host link's Make rule ----------===//

#include "lld-plugin/DependencyFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace offload {

/// \p Path as LLD writes it in a dependency file: native, dots removed, a
/// space or '#' after a backslash, '$' doubled.
static std::string escapeAsLLD(StringRef Path) {
  SmallString<256> Native;
  sys::path::native(Path, Native);
  sys::path::remove_dots(Native, /*remove_dot_dot=*/true);
  std::string Out;
  for (size_t I = 0, E = Native.size(); I != E; ++I) {
    char C = Native[I];
    if (C == '#') {
      Out += '\\';
    } else if (C == ' ') {
      Out += '\\';
      for (size_t J = I; J > 0 && Native[--J] == '\\';)
        Out += '\\';
    } else if (C == '$') {
      Out += '$';
    }
    Out += C;
  }
  return Out;
}

std::string dropPrerequisitesUnder(StringRef Rule, StringRef Dir) {
  std::string Prefix = escapeAsLLD(Dir);
  if (!StringRef(Prefix).ends_with("/"))
    Prefix += '/';
  // "<output>: \", then " <file> \" for each but the last, " <file>"; then
  // an empty rule "<file>:" for each, each after an empty line.
  SmallVector<StringRef, 0> Lines;
  Rule.split(Lines, '\n');
  if (Lines.empty() || !Lines[0].contains(':'))
    return Rule.str();
  StringRef Target = Lines[0];
  Target.consume_back("\\");
  Target = Target.rtrim();
  std::vector<StringRef> Kept;
  bool Dropped = false;
  bool More = Lines[0].ends_with("\\");
  for (size_t I = 1; More && I < Lines.size(); ++I) {
    StringRef File = Lines[I];
    More = File.consume_back("\\");
    File = File.trim();
    if (File.starts_with(Prefix))
      Dropped = true;
    else if (!File.empty())
      Kept.push_back(File);
  }
  if (!Dropped)
    return Rule.str();
  std::string Out = Target.str();
  for (StringRef File : Kept)
    Out += (" \\\n " + File).str();
  Out += "\n";
  for (StringRef File : Kept)
    Out += ("\n" + File + ":\n").str();
  return Out;
}

Error dropFromDependencyFile(StringRef Path, StringRef Dir) {
  // "-" is standard output, /dev/null or a pipe cannot be read back: what
  // went there stays as LLD wrote it.
  if (Path == "-" || !sys::fs::is_regular_file(Path))
    return Error::success();
  ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(Path);
  if (!File)
    return createFileError(Path, File.getError());
  std::string Rule = dropPrerequisitesUnder((*File)->getBuffer(), Dir);
  if (Rule == (*File)->getBuffer())
    return Error::success();
  File->reset();
  return writeToOutput(Path, [&](raw_ostream &OS) {
    OS << Rule;
    return Error::success();
  });
}

} // namespace offload

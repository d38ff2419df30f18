//===- tools/common/ToolSupport.h - What the tools' mains share -*- C++ -*-===//
//
// Start-up, errors and input files for offload-bundler, offload-inspect,
// offload-packager and offload-wrapper: each is one executable, so the tool
// name lives here as an inline variable. Header-only.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_TOOLS_COMMON_TOOLSUPPORT_H
#define LLD_OFFLOAD_TOOLS_COMMON_TOOLSUPPORT_H

#include "support/MappedFileFaults.h"
#include "support/Version.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>

namespace offload {
namespace tool {

/// The name the tool was run as (the file name of argv[0]), which starts its
/// messages; set by ToolInit.
inline llvm::StringRef ToolName;

/// The start of a tool's main(): InitLLVM for as long as this lives, ToolName
/// from argv[0], SIGBUS on a mapped file reported as an error about it (see
/// support/MappedFileFaults.h), --version naming the tool and lld-offload,
/// and the command line parsed with only \p Category's options in --help.
class ToolInit {
public:
  ToolInit(int &Argc, char **&Argv, llvm::cl::OptionCategory &Category,
           llvm::StringRef Overview)
      : Init(Argc, Argv) {
    // The file name is the end of argv[0], so it is NUL-terminated.
    ToolName = llvm::sys::path::filename(Argv[0]);
    reportMappedFileFaults(ToolName.data());
    llvm::cl::HideUnrelatedOptions(Category);
    llvm::cl::SetVersionPrinter(
        [](llvm::raw_ostream &OS) { printToolVersion(OS, ToolName); });
    llvm::cl::ParseCommandLineOptions(Argc, Argv, Overview);
  }

private:
  llvm::InitLLVM Init;
};

/// An error that reads \p Msg and carries no error code.
inline llvm::Error fail(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Prints every error in \p E to stderr as "<tool>: error: <message>".
inline void reportError(llvm::Error E) {
  llvm::logAllUnhandledErrors(std::move(E),
                              llvm::WithColor::error(llvm::errs(), ToolName));
}

/// Prints "<tool>: error: <Msg>" to stderr.
inline void reportError(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), ToolName) << Msg << "\n";
}

/// main()'s result for work that ended with \p E: EXIT_SUCCESS on success,
/// else EXIT_FAILURE once \p E is reported.
inline int exitStatus(llvm::Error E) {
  if (!E)
    return EXIT_SUCCESS;
  reportError(std::move(E));
  return EXIT_FAILURE;
}

/// The contents of the file \p Path ("-": stdin), not null-terminated; an
/// error reads "'<Path>': <reason>".
inline llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Buffer.getError())
    return fail("'" + Path + "': " + EC.message());
  return std::move(*Buffer);
}

} // namespace tool
} // namespace offload

#endif // LLD_OFFLOAD_TOOLS_COMMON_TOOLSUPPORT_H

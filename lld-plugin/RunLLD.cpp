//===- lld-plugin/RunLLD.cpp - LLD's ELF linker, in this process ----------===//

#include "lld-plugin/RunLLD.h"

#include "lld-plugin/LinkOptions.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <signal.h>

LLD_HAS_DRIVER(elf)

namespace offload {

static bool LLDUsable = true;

int runLLD(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out,
           llvm::raw_ostream &Err) {
  llvm::SmallVector<const char *, 64> Argv;
  // The flavor comes from argv[0]; "ld.lld" selects the ELF driver.
  Argv.push_back("ld.lld");
  for (const std::string &Arg : Args)
    Argv.push_back(Arg.c_str());
  lld::Result R = lld::lldMain(Argv, Out, Err, {{lld::Gnu, &lld::elf::link}});
  LLDUsable = R.canRunAgain;
  return R.retCode;
}

int runLLDCapturing(llvm::ArrayRef<std::string> Args, std::string &Out,
                    std::string &Err) {
  llvm::raw_string_ostream OutOS(Out), ErrOS(Err);
  // LLD ends the process on a fatal error (a malformed input), its message
  // still in the string; crash recovery brings control back here instead.
  // LLD cannot run again after that (canRunLLDAgain() says so).
  // Crash recovery takes SIGBUS too; a full disk under a memory-mapped
  // output ends the whole link with an error about the file instead (see
  // support/MappedFileFaults.h).
  struct sigaction BusAction;
  sigaction(SIGBUS, nullptr, &BusAction);
  llvm::CrashRecoveryContext::Enable();
  sigaction(SIGBUS, &BusAction, nullptr);
  int RC = runLLD(Args, OutOS, ErrOS);
  llvm::CrashRecoveryContext::Disable();
  return RC;
}

llvm::Expected<LoadedInputs>
traceLoadedInputs(llvm::ArrayRef<std::string> LLDArgs,
                  llvm::StringRef StatsFile) {
  std::vector<std::string> Args = probeArguments(LLDArgs);
  Args.push_back("--trace");
  Args.push_back(("--print-archive-stats=" + StatsFile).str());
  std::string Out, Err;
  if (runLLDCapturing(Args, Out, Err) != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::StringRef(Err).rtrim());
  LoadedInputs Loaded;
  for (llvm::StringRef Line : llvm::split(Out, '\n'))
    if (!Line.empty())
      Loaded.Files.push_back(Line.str());

  // members <tab> extracted <tab> archive, after a header line.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Stats =
      llvm::MemoryBuffer::getFile(StatsFile);
  if (!Stats)
    return Loaded; // no archive in the link
  for (llvm::StringRef Line : llvm::split((*Stats)->getBuffer(), '\n')) {
    llvm::SmallVector<llvm::StringRef, 3> Fields;
    Line.split(Fields, '\t', 2);
    if (Fields.size() == 3 && Fields[0] != "members")
      Loaded.Archives.push_back(Fields[2].str());
  }
  return std::move(Loaded);
}

bool canRunLLDAgain() { return LLDUsable; }

} // namespace offload

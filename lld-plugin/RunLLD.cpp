//===- lld-plugin/RunLLD.cpp - LLD's ELF linker, in this process ----------===//

#include "lld-plugin/RunLLD.h"

#include "lld-plugin/LinkOptions.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallVector.h"

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

llvm::Expected<std::vector<std::string>>
traceLoadedInputs(llvm::ArrayRef<std::string> LLDArgs) {
  std::vector<std::string> Args = probeArguments(LLDArgs);
  Args.push_back("--trace");
  std::string Out, Err;
  llvm::raw_string_ostream OutOS(Out), ErrOS(Err);
  if (runLLD(Args, OutOS, ErrOS) != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::StringRef(Err).rtrim());
  std::vector<std::string> Loaded;
  for (llvm::StringRef Line : llvm::split(Out, '\n'))
    if (!Line.empty())
      Loaded.push_back(Line.str());
  return Loaded;
}

bool canRunLLDAgain() { return LLDUsable; }

} // namespace offload

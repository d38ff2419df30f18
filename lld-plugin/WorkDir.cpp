//===- lld-plugin/WorkDir.cpp - Where intermediate files live -------------===//

#include "lld-plugin/WorkDir.h"

#include "support/AtomicOutput.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace offload {

Expected<std::unique_ptr<WorkDir>> WorkDir::create(StringRef Output,
                                                   bool Keep) {
  std::string Dir;
  if (Keep) {
    Dir = (Output + ".offload-temps").str();
    // Start clean so that what is there comes from this link only.
    sys::fs::remove_directories(Dir, /*IgnoreErrors=*/true);
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return createStringError(EC, "cannot create '%s': %s", Dir.c_str(),
                               EC.message().c_str());
  } else {
    SmallString<128> Path;
    if (std::error_code EC =
            sys::fs::createUniqueDirectory("ld.lld-offload", Path))
      return createStringError(EC, "cannot create a temporary directory: %s",
                               EC.message().c_str());
    Dir = Path.str().str();
  }
  return std::unique_ptr<WorkDir>(new WorkDir(std::move(Dir), Keep));
}

WorkDir::~WorkDir() {
  if (!Keep)
    sys::fs::remove_directories(Dir, /*IgnoreErrors=*/true);
}

std::string WorkDir::path(StringRef Name) const {
  SmallString<128> P(Dir);
  sys::path::append(P, Name);
  return P.str().str();
}

Expected<std::string> WorkDir::write(StringRef Name, StringRef Data) const {
  std::string P = path(Name);
  if (Error E = writeFileDirectly(P, Data))
    return std::move(E);
  return P;
}

} // namespace offload

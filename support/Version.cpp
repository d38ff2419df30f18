//===- support/Version.cpp - What every tool says for --version -----------===//

#include "support/Version.h"

#include "llvm/Config/llvm-config.h"

using namespace llvm;

StringRef offload::lldOffloadVersion() { return LLD_OFFLOAD_VERSION; }

void offload::printToolVersion(raw_ostream &OS, StringRef Tool) {
  OS << Tool << " (lld-offload " << lldOffloadVersion() << ")\n"
     << "  built on LLVM " << LLVM_VERSION_STRING << "\n";
}

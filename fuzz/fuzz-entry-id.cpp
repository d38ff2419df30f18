//===- fuzz/fuzz-entry-id.cpp - Bundle entry ID and target ID fuzzer ------===//
//
// Parses the input as a bundle entry ID and as a target ID, prints them back
// and checks compatibility of the input against itself and a fixed ID. The
// normalized form of an ID must parse again.
//
//===----------------------------------------------------------------------===//

#include "format/BundleEntryID.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text(reinterpret_cast<const char *>(Data), Size);
  // Two IDs: before and after the first NUL.
  auto [First, Second] = Text.split('\0');

  Expected<offload::TargetID> T = offload::TargetID::parse(First);
  if (T) {
    std::string S = T->str();
    Expected<offload::TargetID> Again = offload::TargetID::parse(S);
    if (!Again)
      __builtin_trap(); // the canonical form must parse
    (void)offload::isTargetIDCompatible(*T, *Again);
  } else {
    consumeError(T.takeError());
  }
  (void)offload::isKnownOffloadProcessor(First);

  Expected<offload::BundleEntryID> A = offload::BundleEntryID::parse(First);
  Expected<offload::BundleEntryID> B = offload::BundleEntryID::parse(
      Second.empty() ? StringRef("hip-amdgcn-amd-amdhsa--gfx90a:xnack+")
                     : Second);
  if (A) {
    std::string S = A->str();
    (void)A->hasKnownKind();
    (void)A->isHost();
    (void)offload::isCodeObjectCompatible(*A, *A);
    if (B) {
      (void)offload::isCodeObjectCompatible(*A, *B, false);
      (void)offload::isCodeObjectCompatible(*B, *A, true);
    }
  }
  consumeError(A.takeError());
  consumeError(B.takeError());
  return 0;
}

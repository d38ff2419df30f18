//===- fuzz/fuzz-link-args.cpp - ld.lld-offload command line fuzzer -------===//
//
// Feeds ld.lld-offload's argument handling (parseLinkCommandLine, then
// linksOffloadRuntime and LLDCommandLine::probeArguments on what it
// returns) an argv and up to three response files, all taken from the
// input:
//
//   <argv, one argument per line> \0 <r0> \0 <r1> \0 <r2>
//
// The response files are written as r0, r1 and r2 in a directory of this
// process, which is also the working directory, so "@r0" names one from argv
// and from other response files (nested, and recursive: "@r0" inside r0).
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/LinkOptions.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace llvm;

static constexpr int NumResponseFiles = 3;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  SmallString<128> Dir;
  if (sys::fs::createUniqueDirectory("fuzz-link-args", Dir) ||
      sys::fs::set_current_path(Dir)) {
    errs() << "fuzz-link-args: cannot make a working directory\n";
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto [ArgText, Files] = Input.split('\0');

  // The response files; those the input has no part for are empty.
  for (int I = 0; I != NumResponseFiles; ++I) {
    auto [Content, Rest] = Files.split('\0');
    Files = Rest;
    std::error_code EC;
    raw_fd_ostream OS("r" + std::to_string(I), EC);
    if (EC)
      std::abort();
    OS << Content;
  }

  std::vector<std::string> Storage;
  SmallVector<StringRef, 16> Lines;
  ArgText.split(Lines, '\n');
  for (StringRef Line : Lines)
    Storage.push_back(Line.str());
  std::vector<const char *> Args;
  for (const std::string &S : Storage)
    Args.push_back(S.c_str());

  Expected<offload::LinkCommandLine> CL =
      offload::parseLinkCommandLine(Args, "/runtime");
  if (!CL) {
    consumeError(CL.takeError());
    return 0;
  }
  // What a successful parse promises.
  if (!CL->Offload.UseJobserver && CL->Offload.Jobs == 0)
    __builtin_trap();
  if (CL->Offload.CompressionVersion != 2 &&
      CL->Offload.CompressionVersion != 3)
    __builtin_trap();
  (void)offload::linksOffloadRuntime(CL->LLD);
  std::vector<std::string> Probe = CL->LLD.probeArguments();
  // The probe's output always goes to /dev/null, last.
  if (Probe.size() < 2 || Probe[Probe.size() - 2] != "-o" ||
      Probe.back() != "/dev/null")
    __builtin_trap();
  return 0;
}

//===- format/SafeFileName.cpp - File names from image metadata -----------===//

#include "format/SafeFileName.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

using namespace llvm;

namespace offload {

static bool isUnsafeChar(unsigned char C) {
  return C == '/' || C == '\\' || C < 0x20 || C == 0x7f;
}

std::string safeFileNamePart(StringRef Part, bool *Changed, size_t MaxSize) {
  std::string Out;
  Out.reserve(Part.size());
  for (size_t I = 0; I != Part.size();) {
    if (Part[I] == '.') {
      size_t Run = std::min(Part.find_first_not_of('.', I), Part.size()) - I;
      Out.append(Run, Run > 1 ? '_' : '.');
      I += Run;
      continue;
    }
    Out.push_back(isUnsafeChar(Part[I]) ? '_' : Part[I]);
    ++I;
  }
  if (Out == ".")
    Out = "_";
  // "-" and 16 hexadecimal digits stand for what is cut.
  constexpr size_t HashSize = 17;
  MaxSize = std::max(MaxSize, HashSize);
  if (Out.size() > MaxSize) {
    Out.resize(MaxSize - HashSize);
    Out += "-";
    Out += utohexstr(xxh3_64bits(Part), /*LowerCase=*/true, /*Width=*/16);
  }
  if (Changed)
    *Changed = Out != Part;
  return Out;
}

std::string portableFileNamePart(StringRef Part) {
  std::string Out;
  Out.reserve(Part.size());
  for (char C : Part)
    Out += (isAlnum(C) || C == '.' || C == '_' || C == '+' || C == '-') ? C
                                                                        : '_';
  return Out;
}

std::string bundlerFileName(StringRef Name) {
  std::string Out = Name.str();
  std::replace(Out.begin(), Out.end(), ':', '_');
  return Out;
}

} // namespace offload

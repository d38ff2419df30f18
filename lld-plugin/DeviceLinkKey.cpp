//===- lld-plugin/DeviceLinkKey.cpp - What names one device link ----------===//

#include "lld-plugin/DeviceLinkKey.h"

#include "format/SafeFileName.h"

using namespace llvm;

namespace offload {

DeviceLinkKey DeviceLinkKey::of(const OffloadImage &Image) {
  DeviceLinkKey Key;
  Key.Kind = Image.TheOffloadKind;
  Key.TargetTriple = Triple(Triple::normalize(Image.getTriple()));
  Key.Arch = Image.getArch().str();
  return Key;
}

std::string DeviceLinkKey::name() const {
  return (getOffloadKindName(Kind) + "-" + TargetTriple.str() + "-" +
          (Arch.empty() ? "generic" : Arch))
      .str();
}

std::string DeviceLinkKey::fileName(bool *Changed) const {
  // Room for ".<n>.<ext>" and a work directory's other names.
  return safeFileNamePart(name(), Changed, MaxFileNameSize - 32);
}

} // namespace offload

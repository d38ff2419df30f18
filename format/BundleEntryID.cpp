//===- format/BundleEntryID.cpp - Offload bundle entry and target IDs -----===//

#include "format/BundleEntryID.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/TargetParser.h"

#include <set>

using namespace llvm;

namespace offload {

static Error malformed(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

Expected<TargetID> TargetID::parse(StringRef Text) {
  SmallVector<StringRef, 4> Parts;
  Text.split(Parts, ':');
  TargetID ID;
  ID.Processor = Parts.front().str();
  if (ID.Processor.empty())
    return malformed("target ID '" + Text + "' has no processor");
  for (StringRef F : ArrayRef(Parts).drop_front()) {
    if (F.size() < 2 || (!F.ends_with("+") && !F.ends_with("-")))
      return malformed("target ID '" + Text + "': feature '" + F +
                       "' must end in '+' or '-'");
    StringRef Name = F.drop_back();
    if (ID.feature(Name))
      return malformed("target ID '" + Text + "': feature '" + Name +
                       "' appears twice");
    ID.Features.emplace_back(Name.str(), F.back() == '+');
  }
  llvm::sort(ID.Features);
  return ID;
}

std::string TargetID::str() const {
  std::string S = Processor;
  for (const auto &[Name, On] : Features)
    S += ":" + Name + (On ? "+" : "-");
  return S;
}

std::optional<bool> TargetID::feature(StringRef Name) const {
  for (const auto &[F, On] : Features)
    if (F == Name)
      return On;
  return std::nullopt;
}

bool TargetID::setsSameFeatures(const TargetID &Other) const {
  // Features are sorted by name.
  return llvm::equal(Features, Other.Features,
                     [](const auto &A, const auto &B) {
                       return A.first == B.first;
                     });
}

std::optional<std::string>
TargetID::featureSetOtherwise(const TargetID &Other) const {
  for (const auto &[Name, On] : Features)
    if (Other.feature(Name) == !On)
      return Name;
  return std::nullopt;
}

void TargetID::setFeature(StringRef Feature, bool On) {
  auto It = partition_point(
      Features, [&](const auto &F) { return StringRef(F.first) < Feature; });
  if (It != Features.end() && It->first == Feature)
    It->second = On;
  else
    Features.insert(It, {Feature.str(), On});
}

std::optional<std::pair<std::string, std::string>>
findConflictingTargetIDs(ArrayRef<StringRef> IDs) {
  std::set<StringRef> Sorted(IDs.begin(), IDs.end());
  StringMap<std::pair<StringRef, TargetID>> ByProcessor;
  for (StringRef Text : Sorted) {
    Expected<TargetID> ID = TargetID::parse(Text);
    if (!ID) {
      consumeError(ID.takeError());
      continue;
    }
    auto [It, Inserted] = ByProcessor.try_emplace(ID->Processor, Text, *ID);
    if (Inserted)
      continue;
    const TargetID &First = It->second.second;
    for (const auto &F : ID->Features)
      if (!First.feature(F.first))
        return std::make_pair(It->second.first.str(), Text.str());
  }
  return std::nullopt;
}

bool isTargetIDCompatible(const TargetID &CodeObject, const TargetID &Target) {
  if (CodeObject.Processor != Target.Processor)
    return false;
  return all_of(CodeObject.Features, [&](const auto &F) {
    return Target.feature(F.first) == F.second;
  });
}

bool isKnownOffloadProcessor(StringRef Processor) {
  if (AMDGPU::parseArchAMDGCN(Processor) != AMDGPU::GK_NONE)
    return true;
  // HIP's portable SPIR-V image, for every AMD GPU.
  if (Processor == "amdgcnspirv")
    return true;
  // CUDA: sm_NN and the arch-specific sm_NNa/sm_NNf.
  StringRef Digits = Processor;
  if (!Digits.consume_front("sm_"))
    return false;
  if (Digits.ends_with("a") || Digits.ends_with("f"))
    Digits = Digits.drop_back();
  unsigned Version;
  return !Digits.getAsInteger(10, Version) && Version >= 20;
}

Expected<BundleEntryID> BundleEntryID::parse(StringRef Text) {
  SmallVector<StringRef, 6> Parts;
  Text.split(Parts, '-', /*MaxSplit=*/5);
  if (Parts.size() < 5)
    return malformed("bundle entry ID '" + Text +
                     "' is not <kind>-<arch>-<vendor>-<os>-<env>[-<target "
                     "ID>]");
  BundleEntryID ID;
  ID.Kind = Parts[0].str();
  Triple T(join(ArrayRef(Parts).slice(1, 4), "-"));
  ID.TargetTriple = Triple(T.getArchName(), T.getVendorName(), T.getOSName(),
                           T.getEnvironmentName());
  StringRef TargetIDText = Parts.size() == 6 ? Parts[5] : "";
  // Like clang-offload-bundler, keep a target ID only when its processor is
  // one LLVM knows.
  if (!TargetIDText.empty() &&
      isKnownOffloadProcessor(TargetIDText.split(':').first))
    ID.TargetIDText = TargetIDText.str();
  return ID;
}

std::string BundleEntryID::str() const {
  std::string TripleText;
  if (TargetTriple.getOS() == Triple::AMDHSA) {
    TripleText = TargetTriple.normalize(Triple::CanonicalForm::THREE_IDENT);
    TripleText += '-';
  } else {
    TripleText = TargetTriple.normalize(Triple::CanonicalForm::FOUR_IDENT);
  }
  return Kind + "-" + TripleText + "-" + TargetIDText;
}

bool BundleEntryID::hasKnownKind() const {
  return Kind == "host" || Kind == "openmp" || Kind == "hip" ||
         Kind == "hipv4";
}

static bool areKindsCompatible(StringRef CodeObject, StringRef Target,
                               bool HipOpenMPCompatible) {
  auto IsHIP = [](StringRef K) { return K == "hip" || K == "hipv4"; };
  if (CodeObject == Target || (IsHIP(CodeObject) && IsHIP(Target)))
    return true;
  return HipOpenMPCompatible &&
         ((CodeObject.starts_with_insensitive("hip") && Target == "openmp") ||
          (CodeObject == "openmp" && Target.starts_with_insensitive("hip")));
}

bool isCodeObjectCompatible(const BundleEntryID &CodeObject,
                            const BundleEntryID &Target,
                            bool HipOpenMPCompatible) {
  if (!areKindsCompatible(CodeObject.Kind, Target.Kind, HipOpenMPCompatible) ||
      !CodeObject.TargetTriple.isCompatibleWith(Target.TargetTriple))
    return false;
  if (CodeObject.TargetIDText.empty() || Target.TargetIDText.empty())
    return CodeObject.TargetIDText == Target.TargetIDText;
  Expected<TargetID> Code = TargetID::parse(CodeObject.TargetIDText);
  Expected<TargetID> Want = TargetID::parse(Target.TargetIDText);
  if (!Code || !Want) {
    consumeError(Code.takeError());
    consumeError(Want.takeError());
    return false;
  }
  return isTargetIDCompatible(*Code, *Want);
}

} // namespace offload

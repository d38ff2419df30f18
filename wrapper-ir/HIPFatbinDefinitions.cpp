//===- wrapper-ir/HIPFatbinDefinitions.cpp - Old-driver HIP fat binary ----===//
//
// clang's old HIP driver with -fgpu-rdc leaves each unit's registration code
// in its host object, referring to a fat binary and a module handle that
// only the link can provide (__hip_fatbin_<cuid>, __hip_gpubin_handle_<cuid>,
// one name pair per compilation unit). The module built here defines them:
// one fat binary and one handle for the whole program, every unit's names
// aliasing them, as clang's `--hip-link` object does.
//
//===----------------------------------------------------------------------===//

#include "wrapper-ir/Registration.h"
#include "wrapper-ir/RegistrationCommon.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace offload {

/// Defines \p Prefix<first CUID> as \p Storage and the other units' names as
/// aliases of it.
static void defineForUnits(Module &M, GlobalVariable &Storage, StringRef Prefix,
                           ArrayRef<std::string> CUIDs) {
  Storage.setName(Prefix + CUIDs.front());
  Storage.setVisibility(GlobalValue::ProtectedVisibility);
  for (const std::string &CUID : CUIDs.drop_front())
    GlobalAlias::create(Storage.getValueType(), 0, GlobalValue::ExternalLinkage,
                        Prefix + CUID, &Storage, &M);
}

Expected<std::unique_ptr<Module>>
buildHIPFatbinDefinitions(LLVMContext &Context, const Triple &HostTriple,
                          StringRef Fatbin, ArrayRef<std::string> CUIDs) {
  if (CUIDs.empty())
    return createStringError(inconvertibleErrorCode(),
                             "no compilation unit refers to a HIP fat binary");
  auto M = std::make_unique<Module>("hip-fatbin", Context);
  M->setTargetTriple(HostTriple);

  // The code objects sit at 4096-aligned offsets in the bundle, and stay so
  // in memory when the bundle does.
  GlobalVariable *Image = createByteArray(*M, "", Fatbin, ".hip_fatbin", 4096);
  Image->setLinkage(GlobalValue::ExternalLinkage);
  defineForUnits(*M, *Image, "__hip_fatbin_", CUIDs);

  // The runtime's module handle, written by the first unit that registers.
  auto *HandleType = PointerType::getUnqual(Context);
  auto *Handle = new GlobalVariable(*M, HandleType, /*isConstant=*/false,
                                    GlobalValue::ExternalLinkage,
                                    ConstantPointerNull::get(HandleType));
  Handle->setSection(".hip_gpubin_handle");
  Handle->setAlignment(Align(8));
  defineForUnits(*M, *Handle, "__hip_gpubin_handle_", CUIDs);
  return std::move(M);
}

} // namespace offload

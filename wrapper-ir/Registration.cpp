//===- wrapper-ir/Registration.cpp - Registration modules -----------------===//

#include "wrapper-ir/RegistrationCommon.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace offload {

StructType *getOffloadEntryType(Module &M) {
  LLVMContext &C = M.getContext();
  if (StructType *T = StructType::getTypeByName(C, "struct.__tgt_offload_entry"))
    return T;
  Type *I16 = Type::getInt16Ty(C), *I32 = Type::getInt32Ty(C),
       *I64 = Type::getInt64Ty(C), *Ptr = PointerType::getUnqual(C);
  return StructType::create("struct.__tgt_offload_entry", I64, I16, I16, I32,
                            Ptr, Ptr, I64, I64, Ptr);
}

EntryBounds createEntryBounds(Module &M, StringRef Section, bool Retained) {
  ArrayType *Empty = ArrayType::get(getOffloadEntryType(M), 0);
  auto MakeBound = [&](const Twine &Name) {
    auto *GV = new GlobalVariable(M, Empty, /*isConstant=*/true,
                                  GlobalValue::ExternalLinkage, nullptr, Name);
    GV->setVisibility(GlobalValue::HiddenVisibility);
    return GV;
  };
  EntryBounds Bounds{MakeBound("__start_" + Section),
                     MakeBound("__stop_" + Section)};
  auto *Dummy = new GlobalVariable(M, Empty, /*isConstant=*/true,
                                   GlobalValue::InternalLinkage,
                                   ConstantAggregateZero::get(Empty),
                                   "__dummy." + Section);
  Dummy->setSection(Section);
  Dummy->setAlignment(Align(8));
  // In a relocatable output the section is retained (SHF_GNU_RETAIN, which
  // llvm.used gives on ELF): it is that output's own, so no linker script of
  // the final link names it, and --gc-sections there would collect it.
  if (Retained)
    appendToUsed(M, {Dummy});
  else
    appendToCompilerUsed(M, {Dummy});
  return Bounds;
}

Function *createStartupFunction(Module &M, StringRef Name) {
  auto *Fn = Function::Create(
      FunctionType::get(Type::getVoidTy(M.getContext()), /*isVarArg=*/false),
      GlobalValue::InternalLinkage, Name, &M);
  Fn->setSection(".text.startup");
  BasicBlock::Create(M.getContext(), "entry", Fn);
  return Fn;
}

void emitAtExit(IRBuilder<> &Builder, Function *Fn) {
  Module &M = *Builder.GetInsertBlock()->getModule();
  LLVMContext &C = M.getContext();
  FunctionCallee AtExit = M.getOrInsertFunction(
      "atexit", FunctionType::get(Type::getInt32Ty(C),
                                  {PointerType::getUnqual(C)}, false));
  Builder.CreateCall(AtExit, Fn);
}

GlobalVariable *createByteArray(Module &M, StringRef Name, StringRef Data,
                                StringRef Section, uint64_t Alignment) {
  Constant *Init = ConstantDataArray::get(M.getContext(),
                                          arrayRefFromStringRef(Data));
  auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                GlobalValue::InternalLinkage, Init, Name);
  if (!Section.empty())
    GV->setSection(Section);
  if (Alignment > 1)
    GV->setAlignment(Align(Alignment));
  return GV;
}

static Error invalid(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

Expected<std::unique_ptr<Module>>
buildRegistrationModule(LLVMContext &Context, const Triple &HostTriple,
                        ArrayRef<ImageToRegister> Images,
                        const RegistrationOptions &Options) {
  if (HostTriple.getArch() == Triple::UnknownArch)
    return invalid("unknown host triple '" + HostTriple.str() + "'");
  if (Images.empty())
    return invalid("no device image to register");
  bool IsFatbin = Options.Kind != RegistrationKind::OpenMP;
  if (IsFatbin && Images.size() != 1)
    return invalid(Twine(Options.Kind == RegistrationKind::Cuda ? "CUDA"
                                                                : "HIP") +
                   " registers one fat binary, but " + Twine(Images.size()) +
                   " images were given");
  for (const ImageToRegister &Image : Images)
    if (!IsFatbin && (Image.ImageBegin > Image.ImageEnd ||
                      Image.ImageEnd > Image.Data.size()))
      return invalid("device image [" + Twine(Image.ImageBegin) + ", " +
                     Twine(Image.ImageEnd) + ") lies outside its " +
                     Twine(Image.Data.size()) + "-byte embedding");

  auto M = std::make_unique<Module>("offload.wrapper.module", Context);
  M->setTargetTriple(HostTriple);
  if (IsFatbin)
    buildFatbinRegistration(*M, Images.front(), Options);
  else
    buildOpenMPRegistration(*M, Images, Options);
  return std::move(M);
}

} // namespace offload

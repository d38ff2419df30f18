//===- wrapper-ir/OpenMPRegistration.cpp - OpenMP registration ------------===//
//
// The module built here is, in C terms:
//
//   extern __tgt_offload_entry __start_<S>[], __stop_<S>[];  // hidden
//   static const char Image0[] = {...};   // .llvm.offloading (LLVM 22)
//   static const __tgt_device_image Images[] = {
//     {Image0 + Begin0, Image0 + End0, __start_<S>, __stop_<S>}, ...};
//   static const __tgt_bin_desc Desc = {N, Images, __start_<S>, __stop_<S>};
//   __attribute__((constructor(101))) static void reg(void) {
//     // legacy layout only, for each image I:
//     if (__tgt_register_image_info)  // weak
//       __tgt_register_image_info(&ImageInfoI);
//     __tgt_register_lib(&Desc);
//     atexit(unreg);
//   }
//   static void unreg(void) { __tgt_unregister_lib(&Desc); }
//
//===----------------------------------------------------------------------===//

#include "wrapper-ir/RegistrationCommon.h"

#include "llvm/IR/Constants.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace offload {

namespace {

/// "Base" for the first image and "Base.N" for image N, the names the legacy
/// wrapper documents (and LLVM's own uniquing would not give once several
/// bases are in use).
std::string imageName(StringRef Base, size_t N) {
  return N == 0 ? Base.str() : (Base + "." + Twine(N)).str();
}

/// The image-info version the legacy runtime interface defines.
constexpr uint32_t ImageInfoVersion = 1;

class OpenMPBuilder {
public:
  OpenMPBuilder(Module &M, const RegistrationOptions &Options)
      : M(M), C(M.getContext()), Options(Options),
        Ptr(PointerType::getUnqual(C)), I32(Type::getInt32Ty(C)),
        I64(Type::getInt64Ty(C)) {}

  void build(ArrayRef<ImageToRegister> Images) {
    EntryBounds Entries = createEntryBounds(M, Options.EntriesSection,
                                            Options.Relocatable);
    GlobalVariable *Desc = createDescriptor(Images, Entries);
    SmallVector<GlobalVariable *> Infos;
    if (Options.Layout == OpenMPLayout::Legacy)
      Infos = createImageInfos(Images);
    createRegistration(Desc, Infos);
  }

private:
  GlobalVariable *createDescriptor(ArrayRef<ImageToRegister> Images,
                                   const EntryBounds &Entries) {
    StructType *ImageTy = StructType::create(C, {Ptr, Ptr, Ptr, Ptr},
                                             "__tgt_device_image");
    StructType *DescTy =
        StructType::create(C, {I32, Ptr, Ptr, Ptr}, "__tgt_bin_desc");

    // LLVM 22 embeds each OffloadBinary whole, 8-aligned, in
    // `.llvm.offloading`, so that the image's metadata stays next to it;
    // the legacy layout embeds the raw image.
    bool Legacy = Options.Layout == OpenMPLayout::Legacy;
    StringRef Section = Legacy                 ? ""
                        : Options.Relocatable ? ".llvm.offloading.relocatable"
                                               : ".llvm.offloading";
    SmallVector<Constant *> ImageInits;
    for (auto [N, Image] : enumerate(Images)) {
      GlobalVariable *Data = createByteArray(
          M, imageName(".omp_offloading.device_image", N), Image.Data, Section,
          Legacy ? 1 : 8);
      Data->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
      auto At = [&](uint64_t Offset) {
        return ConstantExpr::getGetElementPtr(
            Data->getValueType(), Data,
            ArrayRef<Constant *>{ConstantInt::get(I64, 0),
                                 ConstantInt::get(I64, Offset)});
      };
      ImageInits.push_back(ConstantStruct::get(
          ImageTy, {At(Image.ImageBegin), At(Image.ImageEnd), Entries.Begin,
                    Entries.End}));
    }
    Constant *ImagesInit = ConstantArray::get(
        ArrayType::get(ImageTy, ImageInits.size()), ImageInits);
    auto *ImagesGV = new GlobalVariable(M, ImagesInit->getType(), true,
                                        GlobalValue::InternalLinkage,
                                        ImagesInit,
                                        ".omp_offloading.device_images");
    ImagesGV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);

    Constant *DescInit = ConstantStruct::get(
        DescTy, {ConstantInt::get(I32, Images.size()), ImagesGV, Entries.Begin,
                 Entries.End});
    return new GlobalVariable(M, DescTy, true, GlobalValue::InternalLinkage,
                              DescInit, ".omp_offloading.descriptor");
  }

  /// One `__tgt_image_info` per image; the target ID strings go to
  /// `.offload_arch_list`, where tools (and offload-arch) look for them.
  SmallVector<GlobalVariable *> createImageInfos(
      ArrayRef<ImageToRegister> Images) {
    StructType *InfoTy =
        StructType::create(C, {I32, I32, I32, Ptr, Ptr}, "__tgt_image_info");
    SmallVector<GlobalVariable *> Infos;
    for (auto [Number, Image] : enumerate(Images)) {
      Constant *ArchInit = ConstantDataArray::getString(C, Image.Arch);
      auto *Arch = new GlobalVariable(M, ArchInit->getType(), true,
                                      GlobalValue::InternalLinkage, ArchInit,
                                      imageName("__offload_arch", Number));
      Arch->setSection(".offload_arch_list");
      Constant *Opts = ConstantPointerNull::get(Ptr);
      if (!Image.CompileOptions.empty()) {
        Constant *OptsInit =
            ConstantDataArray::getString(C, Image.CompileOptions);
        Opts = new GlobalVariable(M, OptsInit->getType(), true,
                                  GlobalValue::InternalLinkage, OptsInit,
                                  imageName("__offload_compile_opts", Number));
      }
      Constant *InfoInit = ConstantStruct::get(
          InfoTy, {ConstantInt::get(I32, ImageInfoVersion),
                   ConstantInt::get(I32, Number),
                   ConstantInt::get(I32, Images.size()), Arch, Opts});
      Infos.push_back(new GlobalVariable(M, InfoTy, true,
                                         GlobalValue::InternalLinkage,
                                         InfoInit,
                                         imageName(".offload_image_info",
                                                   Number)));
    }
    return Infos;
  }

  void createRegistration(GlobalVariable *Desc,
                          ArrayRef<GlobalVariable *> Infos) {
    FunctionType *TakesPtr =
        FunctionType::get(Type::getVoidTy(C), {Ptr}, false);

    Function *Unreg =
        createStartupFunction(M, ".omp_offloading.descriptor_unreg");
    IRBuilder<> UnregBuilder(&Unreg->getEntryBlock());
    UnregBuilder.CreateCall(
        M.getOrInsertFunction("__tgt_unregister_lib", TakesPtr), Desc);
    UnregBuilder.CreateRetVoid();

    Function *Reg = createStartupFunction(M, ".omp_offloading.descriptor_reg");
    IRBuilder<> Builder(&Reg->getEntryBlock());
    if (!Infos.empty()) {
      // LLVM 22's runtime has no __tgt_register_image_info: reference it
      // weakly and call it only where a runtime provides it.
      Function *RegisterInfo = Function::Create(
          TakesPtr, GlobalValue::ExternalWeakLinkage,
          "__tgt_register_image_info", &M);
      BasicBlock *Call = BasicBlock::Create(C, "register.info", Reg);
      BasicBlock *Lib = BasicBlock::Create(C, "register.lib", Reg);
      Builder.CreateCondBr(Builder.CreateIsNotNull(RegisterInfo), Call, Lib);
      Builder.SetInsertPoint(Call);
      for (GlobalVariable *Info : Infos)
        Builder.CreateCall(RegisterInfo, Info);
      Builder.CreateBr(Lib);
      Builder.SetInsertPoint(Lib);
    }
    Builder.CreateCall(M.getOrInsertFunction("__tgt_register_lib", TakesPtr),
                       Desc);
    emitAtExit(Builder, Unreg);
    Builder.CreateRetVoid();
    appendToGlobalCtors(M, Reg, RegistrationPriority);
  }

  Module &M;
  LLVMContext &C;
  const RegistrationOptions &Options;
  PointerType *Ptr;
  IntegerType *I32;
  IntegerType *I64;
};

} // namespace

void buildOpenMPRegistration(Module &M, ArrayRef<ImageToRegister> Images,
                             const RegistrationOptions &Options) {
  OpenMPBuilder(M, Options).build(Images);
}

} // namespace offload

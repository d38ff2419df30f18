//===- wrapper-ir/FatbinRegistration.cpp - CUDA and HIP registration ------===//
//
// The module built here is, in C terms (P is `__cuda` or `__hip`):
//
//   static const char Fatbin[] = {...};          // .nv_fatbin / .hip_fatbin
//   static const struct { int magic, version; const void *data, *unused; }
//       Wrapper = {MAGIC, 1, Fatbin, 0};       // .nvFatBinSegment / .hip…
//   static void *Handle;
//   __attribute__((constructor(101))) static void reg(void) {
//     Handle = PRegisterFatBinary(&Wrapper);
//     globals_reg(Handle);
//     __cudaRegisterFatBinaryEnd(Handle);        // CUDA only
//     atexit(unreg);
//   }
//   static void unreg(void) { PUnregisterFatBinary(Handle); }
//
// where globals_reg walks the offload entries from __start_<S> to __stop_<S>
// and registers those of its offload kind: kernels (size 0), variables,
// managed variables, surfaces and textures, as told by the entry's flags.
//
// With nvcc modules (RegistrationOptions::NvccModules), the registration
// waits for them, as the CUDA toolkit's crt/link.stub does: each module's
// constructor calls __cudaRegisterLinkedBinary<ID>(callback, &its wrapper,
// ...), here an alias of `linked` for every ID:
//
//   static void *Prelinked[N + 1];  // the wrapper's 4th field (version 2)
//   static void (*Callbacks[N + 1])(void **);
//   static void linked(void (*cb)(void **), const Wrapper *Unit, ...) {
//     static int I;
//     Prelinked[I] = Unit->data; Callbacks[I] = cb;
//     if (++I == N) {
//       Handle = __cudaRegisterFatBinary(&Wrapper); atexit(unreg);
//       for (I = 0; I < N; ++I) Callbacks[I](Handle);
//       globals_reg(Handle);
//       __cudaRegisterFatBinaryEnd(Handle);
//     }
//   }
//
// A table of every __fatbinwrap<ID> loads every module's host object into
// the host link, as link.stub's references do; "def <ID>" strings go to
// __nv_module_id as link.stub's.
//===----------------------------------------------------------------------===//

#include "wrapper-ir/RegistrationCommon.h"

#include "format/OffloadBinary.h"

#include "llvm/IR/Constants.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace offload {

namespace {

/// The fat-binary wrapper magics the runtimes check.
constexpr uint32_t CudaFatMagic = 0x466243b1;
constexpr uint32_t HIPFatMagic = 0x48495046;

/// Entry flags (LLVM's OffloadEntryKindFlag): the low three bits say what a
/// non-kernel entry is, the others qualify it.
enum : uint32_t {
  EntryGlobal = 0,
  EntryManaged = 1,
  EntrySurface = 2,
  EntryTexture = 3,
  EntryTypeMask = 0x7,
  EntryExtern = 1 << 3,
  EntryConstant = 1 << 4,
  EntryNormalized = 1 << 5,
};

/// Field numbers of struct.__tgt_offload_entry.
enum EntryField : unsigned {
  FieldKind = 2,
  FieldFlags = 3,
  FieldAddress = 4,
  FieldName = 5,
  FieldSize = 6,
  FieldData = 7,
  FieldAuxAddr = 8,
};

class FatbinBuilder {
public:
  FatbinBuilder(Module &M, const RegistrationOptions &Options)
      : M(M), C(M.getContext()), Options(Options),
        IsHIP(Options.Kind == RegistrationKind::HIP),
        Prefix(IsHIP ? "__hip" : "__cuda"), Ptr(PointerType::getUnqual(C)),
        I16(Type::getInt16Ty(C)), I32(Type::getInt32Ty(C)),
        I64(Type::getInt64Ty(C)), Void(Type::getVoidTy(C)) {}

  void build(const ImageToRegister &Fatbin) {
    EntryBounds Entries = createEntryBounds(M, Options.EntriesSection,
                                            Options.Relocatable);
    if (!IsHIP && !Options.NvccModules.empty()) {
      size_t N = Options.NvccModules.size();
      auto *Prelinked = new GlobalVariable(
          M, ArrayType::get(Ptr, N + 1), false, GlobalValue::InternalLinkage,
          ConstantAggregateZero::get(ArrayType::get(Ptr, N + 1)),
          ".cuda.prelinked_fatbins");
      GlobalVariable *Wrapper = createWrapper(Fatbin, Prelinked);
      createLinkedRegistration(Wrapper, Prelinked,
                               createGlobalsRegistration(Entries));
      return;
    }
    GlobalVariable *Wrapper = createWrapper(Fatbin);
    Function *GlobalsReg = createGlobalsRegistration(Entries);
    createRegistration(Wrapper, GlobalsReg);
  }

private:
  /// \p Prelinked: the array of the nvcc modules' fat binaries, for a
  /// version 2 wrapper (a linked fat binary).
  GlobalVariable *createWrapper(const ImageToRegister &Fatbin,
                                GlobalVariable *Prelinked = nullptr) {
    // HIP's code objects sit at 4096-aligned offsets in the bundle; keeping
    // the bundle itself page-aligned keeps them so in memory.
    GlobalVariable *Image = createByteArray(
        M, ".fatbin_image", Fatbin.Data, IsHIP ? ".hip_fatbin" : ".nv_fatbin",
        IsHIP ? 4096 : 8);
    StructType *WrapperTy =
        StructType::create(C, {I32, I32, Ptr, Ptr}, "fatbin_wrapper");
    Constant *Init = ConstantStruct::get(
        WrapperTy,
        {ConstantInt::get(I32, IsHIP ? HIPFatMagic : CudaFatMagic),
         ConstantInt::get(I32, Prelinked ? 2 : 1), Image,
         Prelinked ? static_cast<Constant *>(Prelinked)
                   : ConstantPointerNull::get(Ptr)});
    auto *Wrapper = new GlobalVariable(M, WrapperTy, true,
                                       GlobalValue::InternalLinkage, Init,
                                       ".fatbin_wrapper");
    Wrapper->setSection(IsHIP ? ".hipFatBinSegment" : ".nvFatBinSegment");
    Wrapper->setAlignment(Align(8));
    return Wrapper;
  }

  FunctionCallee runtime(StringRef Suffix, Type *Result,
                         ArrayRef<Type *> Params) {
    return M.getOrInsertFunction((Prefix + Suffix).str(),
                                 FunctionType::get(Result, Params, false));
  }

  Function *createGlobalsRegistration(const EntryBounds &Entries) {
    FunctionCallee RegFunction =
        runtime("RegisterFunction", I32,
                {Ptr, Ptr, Ptr, Ptr, I32, Ptr, Ptr, Ptr, Ptr, Ptr});
    FunctionCallee RegVar =
        runtime("RegisterVar", Void, {Ptr, Ptr, Ptr, Ptr, I32, I64, I32, I32});
    FunctionCallee RegManaged =
        runtime("RegisterManagedVar", Void, {Ptr, Ptr, Ptr, Ptr, I64, I32});
    // Declared always, as LLVM does; CUDA calls them only when asked.
    bool Surfaces = IsHIP || Options.CudaSurfacesAndTextures;
    FunctionCallee RegSurface =
        runtime("RegisterSurface", Void, {Ptr, Ptr, Ptr, Ptr, I32, I32});
    FunctionCallee RegTexture =
        runtime("RegisterTexture", Void, {Ptr, Ptr, Ptr, Ptr, I32, I32, I32});

    auto *Fn = Function::Create(FunctionType::get(Void, {Ptr}, false),
                                GlobalValue::InternalLinkage,
                                (IsHIP ? ".hip" : ".cuda") +
                                    Twine(".globals_reg"),
                                &M);
    Fn->setSection(".text.startup");
    Value *Handle = Fn->getArg(0);
    auto Block = [&](const char *Name) {
      return BasicBlock::Create(C, Name, Fn);
    };
    BasicBlock *Entry = Block("entry"), *Loop = Block("while.entry"),
               *IfKind = Block("if.kind"), *IfFunction = Block("if.then"),
               *IfVariable = Block("if.else"), *Global = Block("sw.global"),
               *Managed = Block("sw.managed"), *Surface = Block("sw.surface"),
               *Texture = Block("sw.texture"), *Next = Block("if.end"),
               *Done = Block("while.end");

    IRBuilder<> B(Entry);
    B.CreateCondBr(B.CreateICmpNE(Entries.Begin, Entries.End), Loop, Done);

    B.SetInsertPoint(Loop);
    StructType *EntryTy = getOffloadEntryType(M);
    PHINode *Cur = B.CreatePHI(Ptr, 2, "entry");
    auto Load = [&](Type *Ty, EntryField Field, const char *Name) {
      return B.CreateLoad(Ty, B.CreateStructGEP(EntryTy, Cur, Field), Name);
    };
    Value *Addr = Load(Ptr, FieldAddress, "addr");
    Value *AuxAddr = Load(Ptr, FieldAuxAddr, "aux_addr");
    Value *Kind = Load(I16, FieldKind, "kind");
    Value *Name = Load(Ptr, FieldName, "name");
    Value *Size = Load(I64, FieldSize, "size");
    Value *Flags = Load(I32, FieldFlags, "flags");
    Value *Data = B.CreateTrunc(Load(I64, FieldData, "data"), I32);
    auto Bit = [&](uint32_t Mask, unsigned Shift, const char *Name) {
      return B.CreateLShr(B.CreateAnd(Flags, Mask), Shift, Name);
    };
    Value *Type = B.CreateAnd(Flags, EntryTypeMask, "type");
    Value *Extern = Bit(EntryExtern, 3, "extern");
    Value *Constant = Bit(EntryConstant, 4, "constant");
    Value *Normalized = Bit(EntryNormalized, 5, "normalized");
    B.CreateCondBr(
        B.CreateICmpEQ(Kind, ConstantInt::get(I16, static_cast<uint16_t>(
                                           IsHIP ? OffloadKind::HIP
                                                 : OffloadKind::Cuda))),
        IfKind, Next);

    B.SetInsertPoint(IfKind);
    B.CreateCondBr(B.CreateICmpEQ(Size, ConstantInt::get(I64, 0)), IfFunction,
                   IfVariable);

    // A kernel: the host stub's address names the device function.
    B.SetInsertPoint(IfFunction);
    llvm::Constant *Null = ConstantPointerNull::get(Ptr);
    B.CreateCall(RegFunction, {Handle, Addr, Name, Name,
                               ConstantInt::getSigned(I32, -1), Null, Null,
                               Null, Null, Null});
    B.CreateBr(Next);

    B.SetInsertPoint(IfVariable);
    SwitchInst *Switch = B.CreateSwitch(Type, Next, 4);
    Switch->addCase(ConstantInt::get(I32, EntryGlobal), Global);
    Switch->addCase(ConstantInt::get(I32, EntryManaged), Managed);
    Switch->addCase(ConstantInt::get(I32, EntrySurface), Surface);
    Switch->addCase(ConstantInt::get(I32, EntryTexture), Texture);

    B.SetInsertPoint(Global);
    B.CreateCall(RegVar, {Handle, Addr, Name, Name, Extern, Size, Constant,
                          ConstantInt::get(I32, 0)});
    B.CreateBr(Next);

    // A managed variable: the entry's address is the managed pointer, the
    // auxiliary address its shadow, and the data field its alignment.
    B.SetInsertPoint(Managed);
    B.CreateCall(RegManaged, {Handle, AuxAddr, Addr, Name, Size, Data});
    B.CreateBr(Next);

    B.SetInsertPoint(Surface);
    if (Surfaces)
      B.CreateCall(RegSurface, {Handle, Addr, Name, Name, Data, Extern});
    B.CreateBr(Next);

    B.SetInsertPoint(Texture);
    if (Surfaces)
      B.CreateCall(RegTexture,
                   {Handle, Addr, Name, Name, Data, Normalized, Extern});
    B.CreateBr(Next);

    B.SetInsertPoint(Next);
    Value *Following = B.CreateInBoundsGEP(EntryTy, Cur,
                                           ConstantInt::get(I64, 1));
    B.CreateCondBr(B.CreateICmpEQ(Following, Entries.End), Done, Loop);
    Cur->addIncoming(Entries.Begin, Entry);
    Cur->addIncoming(Following, Next);

    B.SetInsertPoint(Done);
    B.CreateRetVoid();
    return Fn;
  }

  void createRegistration(GlobalVariable *Wrapper, Function *GlobalsReg) {
    StringRef Tag = IsHIP ? ".hip" : ".cuda";
    auto *HandleGV = new GlobalVariable(
        M, Ptr, false, GlobalValue::InternalLinkage,
        ConstantPointerNull::get(Ptr), Tag + ".binary_handle");

    Function *Unreg = createStartupFunction(M, (Tag + ".fatbin_unreg").str());
    IRBuilder<> UB(&Unreg->getEntryBlock());
    UB.CreateCall(runtime("UnregisterFatBinary", Void, {Ptr}),
                  UB.CreateAlignedLoad(Ptr, HandleGV, Align(8)));
    UB.CreateRetVoid();

    Function *Reg = createStartupFunction(M, (Tag + ".fatbin_reg").str());
    IRBuilder<> B(&Reg->getEntryBlock());
    Value *Handle =
        B.CreateCall(runtime("RegisterFatBinary", Ptr, {Ptr}), Wrapper);
    B.CreateAlignedStore(Handle, HandleGV, Align(8));
    B.CreateCall(GlobalsReg, Handle);
    if (!IsHIP)
      B.CreateCall(M.getOrInsertFunction(
                       "__cudaRegisterFatBinaryEnd",
                       FunctionType::get(Void, {Ptr}, false)),
                   Handle);
    emitAtExit(B, Unreg);
    B.CreateRetVoid();
    appendToGlobalCtors(M, Reg, RegistrationPriority);
  }

  /// The registration of a fat binary that links nvcc modules: see the
  /// file comment.
  void createLinkedRegistration(GlobalVariable *Wrapper,
                                GlobalVariable *Prelinked,
                                Function *GlobalsReg) {
    size_t N = Options.NvccModules.size();
    ArrayType *Slots = ArrayType::get(Ptr, N + 1);
    auto *Callbacks = new GlobalVariable(
        M, Slots, false, GlobalValue::InternalLinkage,
        ConstantAggregateZero::get(Slots), ".cuda.linked_callbacks");
    auto *Count = new GlobalVariable(M, I32, false,
                                     GlobalValue::InternalLinkage,
                                     ConstantInt::get(I32, 0),
                                     ".cuda.linked_count");
    auto *HandleGV = new GlobalVariable(
        M, Ptr, false, GlobalValue::InternalLinkage,
        ConstantPointerNull::get(Ptr), ".cuda.binary_handle");

    Function *Unreg = createStartupFunction(M, ".cuda.fatbin_unreg");
    IRBuilder<> UB(&Unreg->getEntryBlock());
    UB.CreateCall(runtime("UnregisterFatBinary", Void, {Ptr}),
                  UB.CreateAlignedLoad(Ptr, HandleGV, Align(8)));
    UB.CreateRetVoid();

    // linked(Callback, Unit, ...): notes the module; the last one
    // registers. Every __cudaRegisterLinkedBinary<ID> is this function: a
    // unit passes its own fat binary wrapper. (A function of each, calling
    // it, made code generation 70% of a 50-unit link's registration.)
    auto *Linked = Function::Create(
        FunctionType::get(Void, {Ptr, Ptr, Ptr, Ptr}, false),
        GlobalValue::InternalLinkage, ".cuda.register_linked", &M);
    Linked->setSection(".text.startup");
    auto Block = [&](const char *Name) {
      return BasicBlock::Create(C, Name, Linked);
    };
    BasicBlock *Entry = Block("entry"), *Last = Block("all.linked"),
               *Loop = Block("callbacks"), *Done = Block("done"),
               *Return = Block("return");
    IRBuilder<> B(Entry);
    Value *I = B.CreateAlignedLoad(I32, Count, Align(4), "i");
    Value *Index = B.CreateZExt(I, I64);
    StructType *WrapperTy = cast<StructType>(Wrapper->getValueType());
    Value *Data = B.CreateAlignedLoad(
        Ptr, B.CreateStructGEP(WrapperTy, Linked->getArg(1), 2), Align(8),
        "data");
    B.CreateAlignedStore(
        Data, B.CreateInBoundsGEP(Slots, Prelinked, {B.getInt64(0), Index}),
        Align(8));
    B.CreateAlignedStore(
        Linked->getArg(0),
        B.CreateInBoundsGEP(Slots, Callbacks, {B.getInt64(0), Index}),
        Align(8));
    Value *Next = B.CreateAdd(I, ConstantInt::get(I32, 1));
    B.CreateAlignedStore(Next, Count, Align(4));
    B.CreateCondBr(B.CreateICmpEQ(Next, ConstantInt::get(I32, N)), Last,
                   Return);

    B.SetInsertPoint(Last);
    Value *Handle =
        B.CreateCall(runtime("RegisterFatBinary", Ptr, {Ptr}), Wrapper);
    B.CreateAlignedStore(Handle, HandleGV, Align(8));
    emitAtExit(B, Unreg);
    B.CreateBr(Loop);

    B.SetInsertPoint(Loop);
    PHINode *J = B.CreatePHI(I64, 2, "j");
    J->addIncoming(B.getInt64(0), Last);
    Value *Callback = B.CreateAlignedLoad(
        Ptr, B.CreateInBoundsGEP(Slots, Callbacks, {B.getInt64(0), J}),
        Align(8), "callback");
    B.CreateCall(FunctionType::get(Void, {Ptr}, false), Callback, {Handle});
    Value *NextJ = B.CreateAdd(J, B.getInt64(1));
    J->addIncoming(NextJ, Loop);
    B.CreateCondBr(B.CreateICmpEQ(NextJ, B.getInt64(N)), Done, Loop);

    B.SetInsertPoint(Done);
    B.CreateCall(GlobalsReg, Handle);
    B.CreateCall(M.getOrInsertFunction("__cudaRegisterFatBinaryEnd",
                                       FunctionType::get(Void, {Ptr}, false)),
                 Handle);
    B.CreateBr(Return);
    B.SetInsertPoint(Return);
    B.CreateRetVoid();

    // __cudaRegisterLinkedBinary<ID> for each module; a table that refers
    // to each module's fat binary wrapper, which loads the module's host
    // object into the host link (its constructor calls in); and, as
    // link.stub leaves them, "def <ID>" in __nv_module_id.
    std::vector<Constant *> Units;
    std::vector<GlobalValue *> Kept;
    for (const std::string &ID : Options.NvccModules) {
      GlobalAlias::create(GlobalValue::ExternalLinkage,
                          "__cudaRegisterLinkedBinary" + ID, Linked);
      Units.push_back(new GlobalVariable(M, WrapperTy, true,
                                         GlobalValue::ExternalLinkage, nullptr,
                                         "__fatbinwrap" + ID));
      Constant *DefText =
          ConstantDataArray::getString(C, "def " + ID, /*AddNull=*/true);
      auto *Def = new GlobalVariable(M, DefText->getType(), true,
                                     GlobalValue::InternalLinkage, DefText,
                                     ".cuda.def_module_id");
      Def->setSection("__nv_module_id");
      Def->setAlignment(Align(1));
      Kept.push_back(Def);
    }
    ArrayType *UnitsTy = ArrayType::get(Ptr, Units.size());
    Kept.push_back(new GlobalVariable(M, UnitsTy, true,
                                      GlobalValue::InternalLinkage,
                                      ConstantArray::get(UnitsTy, Units),
                                      ".cuda.linked_units"));
    appendToCompilerUsed(M, Kept);
  }

  Module &M;
  LLVMContext &C;
  const RegistrationOptions &Options;
  bool IsHIP;
  StringRef Prefix;
  PointerType *Ptr;
  IntegerType *I16, *I32, *I64;
  llvm::Type *Void;
};

} // namespace

void buildFatbinRegistration(Module &M, const ImageToRegister &Fatbin,
                             const RegistrationOptions &Options) {
  FatbinBuilder(M, Options).build(Fatbin);
}

} // namespace offload

//===- RegistrationTest.cpp - Registration modules and their emission -----===//

#include "wrapper-ir/Registration.h"
#include "wrapper-ir/Emit.h"

#include "unittests/ErrorMatchers.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

const Triple Host("x86_64-pc-linux-gnu");

ImageToRegister rawImage(StringRef Data, StringRef Arch = "") {
  ImageToRegister Image;
  Image.Data = Data;
  Image.ImageEnd = Data.size();
  Image.Arch = Arch.str();
  return Image;
}

/// The priority and function of the module's only global constructor.
std::pair<uint64_t, StringRef> onlyConstructor(const Module &M) {
  auto *Ctors = M.getNamedGlobal("llvm.global_ctors");
  EXPECT_NE(Ctors, nullptr);
  auto *Init = cast<ConstantArray>(Ctors->getInitializer());
  EXPECT_EQ(Init->getNumOperands(), 1u);
  auto *Entry = cast<ConstantStruct>(Init->getOperand(0));
  return {cast<ConstantInt>(Entry->getOperand(0))->getZExtValue(),
          Entry->getOperand(1)->getName()};
}

// Every kind and layout builds a module that verifies, with one constructor
// at priority 101.
TEST(Registration, EveryKindVerifiesWithOneConstructorAt101) {
  struct Case {
    RegistrationKind Kind;
    OpenMPLayout Layout;
    StringRef Ctor;
  } Cases[] = {
      {RegistrationKind::OpenMP, OpenMPLayout::LLVM22,
       ".omp_offloading.descriptor_reg"},
      {RegistrationKind::OpenMP, OpenMPLayout::Legacy,
       ".omp_offloading.descriptor_reg"},
      {RegistrationKind::Cuda, OpenMPLayout::LLVM22, ".cuda.fatbin_reg"},
      {RegistrationKind::HIP, OpenMPLayout::LLVM22, ".hip.fatbin_reg"},
  };
  for (const Case &C : Cases) {
    LLVMContext Context;
    RegistrationOptions Options;
    Options.Kind = C.Kind;
    Options.Layout = C.Layout;
    std::unique_ptr<Module> M = takeOrFail(buildRegistrationModule(
        Context, Host, {rawImage("IMAGE", "gfx90a")}, Options));
    ASSERT_TRUE(M);
    std::string Broken;
    raw_string_ostream OS(Broken);
    EXPECT_FALSE(verifyModule(*M, &OS)) << Broken;
    auto [Priority, Fn] = onlyConstructor(*M);
    EXPECT_EQ(Priority, 101u);
    EXPECT_EQ(Fn, C.Ctor);
  }
}

// The legacy layout's image-info call goes through a weak declaration.
TEST(Registration, LegacyImageInfoIsAWeakReference) {
  LLVMContext Context;
  RegistrationOptions Options;
  Options.Layout = OpenMPLayout::Legacy;
  std::unique_ptr<Module> M = takeOrFail(buildRegistrationModule(
      Context, Host, {rawImage("A", "sm_70"), rawImage("B", "sm_80")},
      Options));
  ASSERT_TRUE(M);
  Function *Info = M->getFunction("__tgt_register_image_info");
  ASSERT_NE(Info, nullptr);
  EXPECT_TRUE(Info->hasExternalWeakLinkage());
  EXPECT_EQ(Info->getNumUses(), 3u); // the null test and one call per image
  GlobalVariable *Arch1 = M->getNamedGlobal("__offload_arch.1");
  ASSERT_NE(Arch1, nullptr);
  EXPECT_EQ(Arch1->getSection(), ".offload_arch_list");
  EXPECT_EQ(cast<ConstantDataArray>(Arch1->getInitializer())->getAsCString(),
            "sm_80");
}

TEST(Registration, RejectsBadRequests) {
  LLVMContext Context;
  RegistrationOptions Options;
  EXPECT_EQ(errorMessage(buildRegistrationModule(Context, Host, {}, Options)),
            "no device image to register");
  EXPECT_EQ(errorMessage(buildRegistrationModule(Context, Triple("nonsense"),
                                                 {rawImage("A")}, Options)),
            "unknown host triple 'nonsense'");
  Options.Kind = RegistrationKind::Cuda;
  EXPECT_EQ(errorMessage(buildRegistrationModule(
                Context, Host, {rawImage("A"), rawImage("B")}, Options)),
            "CUDA registers one fat binary, but 2 images were given");
  Options.Kind = RegistrationKind::OpenMP;
  ImageToRegister Past = rawImage("ABC");
  Past.ImageBegin = 2;
  Past.ImageEnd = 4;
  EXPECT_EQ(
      errorMessage(buildRegistrationModule(Context, Host, {Past}, Options)),
      "device image [2, 4) lies outside its 3-byte embedding");
}

// An emitted object is an ELF relocatable for the host with the sections the
// runtimes look for, and its constructor in .init_array.
TEST(Emit, ObjectHasTheRegistrationSections) {
  LLVMContext Context;
  RegistrationOptions Options;
  Options.Kind = RegistrationKind::HIP;
  std::unique_ptr<Module> M = takeOrFail(
      buildRegistrationModule(Context, Host, {rawImage("FATBIN")}, Options));
  ASSERT_TRUE(M);
  SmallString<0> Object = takeOrFail(emitModule(*M, EmitOptions()));
  // The target's data layout, set by emitModule().
  EXPECT_FALSE(M->getDataLayout().isDefault());
  std::unique_ptr<object::ObjectFile> Obj = takeOrFail(
      object::ObjectFile::createObjectFile(MemoryBufferRef(Object, "reg.o")));
  ASSERT_TRUE(Obj);
  EXPECT_TRUE(Obj->isRelocatableObject());
  std::vector<std::string> Names;
  for (const object::SectionRef &Sec : Obj->sections())
    Names.push_back(cantFail(Sec.getName()).str());
  for (StringRef Want : {".hip_fatbin", ".hipFatBinSegment", ".init_array.101",
                         "llvm_offload_entries"})
    EXPECT_NE(std::find(Names.begin(), Names.end(), Want), Names.end())
        << Want.str();
}

// Old-driver HIP units' names: the first unit's are the definitions, the
// others alias them, so that every unit registers the one fat binary.
TEST(HIPFatbinDefinitions, OneDefinitionAliasedPerUnit) {
  LLVMContext Context;
  std::unique_ptr<Module> M = takeOrFail(
      buildHIPFatbinDefinitions(Context, Host, "FATBIN", {"aa11", "bb22"}));
  ASSERT_TRUE(M);
  EXPECT_FALSE(verifyModule(*M, &errs()));
  GlobalVariable *Fatbin = M->getNamedGlobal("__hip_fatbin_aa11");
  ASSERT_NE(Fatbin, nullptr);
  EXPECT_EQ(Fatbin->getSection(), ".hip_fatbin");
  EXPECT_EQ(Fatbin->getAlign(), MaybeAlign(4096));
  EXPECT_TRUE(Fatbin->hasExternalLinkage());
  EXPECT_EQ(cast<ConstantDataSequential>(Fatbin->getInitializer())
                ->getRawDataValues(),
            "FATBIN");
  GlobalVariable *Handle = M->getNamedGlobal("__hip_gpubin_handle_aa11");
  ASSERT_NE(Handle, nullptr);
  EXPECT_EQ(Handle->getSection(), ".hip_gpubin_handle");
  EXPECT_TRUE(Handle->getInitializer()->isNullValue());
  GlobalAlias *FatbinB = M->getNamedAlias("__hip_fatbin_bb22");
  GlobalAlias *HandleB = M->getNamedAlias("__hip_gpubin_handle_bb22");
  ASSERT_NE(FatbinB, nullptr);
  ASSERT_NE(HandleB, nullptr);
  EXPECT_EQ(FatbinB->getAliasee(), Fatbin);
  EXPECT_EQ(HandleB->getAliasee(), Handle);
  EXPECT_EQ(errorMessage(buildHIPFatbinDefinitions(Context, Host, "F", {})),
            "no compilation unit refers to a HIP fat binary");
}

TEST(Emit, UnknownTargetIsAnError) {
  LLVMContext Context;
  Module M("m", Context);
  M.setTargetTriple(Triple("bogus-arch-none"));
  EXPECT_NE(errorMessage(emitModule(M, EmitOptions()))
                .find("unsupported host triple 'bogus-arch-none'"),
            std::string::npos);
}

} // namespace

//===- wrapper-ir/Emit.cpp - Emitting a module in memory ------------------===//

#include "wrapper-ir/Emit.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <mutex>

using namespace llvm;

namespace offload {

static const Target *lookupTarget(const Triple &TT, std::string &Message) {
  // Registering every target once is cheap next to building one machine,
  // and host triples are not only x86.
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
  });
  return TargetRegistry::lookupTarget(TT, Message);
}

static Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(const Module &M, bool PIC) {
  const Triple &TT = M.getTargetTriple();
  std::string Message;
  const Target *T = lookupTarget(TT, Message);
  if (!T)
    return createStringError(inconvertibleErrorCode(),
                             "unsupported host triple '" + TT.str() +
                                 "': " + Message);
  // Constructors must go to .init_array, as clang puts them: the .ctors
  // that TargetOptions defaults to are not run by today's C runtimes.
  TargetOptions Options;
  Options.UseInitArray = true;
  // Registration code runs once, at startup: code generation without
  // optimization (most of a small link's registration object took it).
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(
      TT, /*CPU=*/"", /*Features=*/"", Options,
      PIC ? Reloc::PIC_ : Reloc::Static, std::nullopt, CodeGenOptLevel::None));
  if (!TM)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create a target machine for '" +
                                 TT.str() + "'");
  return std::move(TM);
}

Expected<SmallString<0>> emitModule(Module &M, const EmitOptions &Options) {
  Expected<std::unique_ptr<TargetMachine>> TM =
      createTargetMachine(M, Options.PIC);
  if (!TM)
    return TM.takeError();
  M.setDataLayout((*TM)->createDataLayout());

  std::string Broken;
  raw_string_ostream BrokenOS(Broken);
  if (verifyModule(M, &BrokenOS))
    return createStringError(inconvertibleErrorCode(),
                             "internal error: invalid registration module: " +
                                 Broken);

  SmallString<0> Out;
  raw_svector_ostream OS(Out);
  switch (Options.Kind) {
  case EmitKind::IR:
    M.print(OS, /*AAW=*/nullptr);
    return std::move(Out);
  case EmitKind::Bitcode:
    WriteBitcodeToFile(M, OS);
    return std::move(Out);
  case EmitKind::Object:
    break;
  }

  legacy::PassManager PM;
  if ((*TM)->addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::ObjectFile))
    return createStringError(inconvertibleErrorCode(),
                             "the target for '" +
                                 M.getTargetTriple().str() +
                                 "' cannot emit object files");
  PM.run(M);
  return std::move(Out);
}

} // namespace offload

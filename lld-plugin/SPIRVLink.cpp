//===- lld-plugin/SPIRVLink.cpp - SPIR-V device links ---------------------===//

#include "lld-plugin/SPIRVLink.h"

#include "format/FindOffloadBinaries.h"
#include "support/AtomicOutput.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/AutoUpgrade.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include "llvm/Analysis/TargetLibraryInfo.h"

#include <spirv-tools/linker.hpp>

#include <cstring>
#include <mutex>

using namespace llvm;

namespace offload {

static Error linkError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

namespace {
/// LLVM's errors in the link, said as diagnostics (the IR linker's, the
/// backend's), kept rather than printed: LLVMContext ends the process on
/// an error diagnostic no handler takes.
struct KeepDiagnostics : DiagnosticHandler {
  explicit KeepDiagnostics(std::string &Errors) : Errors(Errors) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() != DS_Error)
      return true;
    raw_string_ostream OS(Errors);
    DiagnosticPrinterRawOStream DP(OS);
    DI.print(DP);
    OS << "\n";
    return true;
  }
  std::string &Errors;
};
} // namespace

/// The SPIR-V backend ends the process on IR it cannot compile
/// (report_fatal_error): the message is kept and control comes back to
/// the link, which fails with it.
static void keepFatalError(void *Errors, const char *Reason, bool) {
  *static_cast<std::string *>(Errors) += std::string(Reason) + "\n";
  if (CrashRecoveryContext *CRC = CrashRecoveryContext::GetCurrent())
    CRC->HandleExit(1);
}

/// Links the bitcode of \p Inputs into one module, as llvm-link does: into
/// an empty module named "llvm-link", each read lazily with its metadata
/// and debug info upgraded, types of debug info uniqued by name.
static Expected<std::unique_ptr<Module>>
linkBitcode(const SPIRVLinkRequest &Request, LLVMContext &Context,
            std::string &Errors) {
  TimeTraceScope Scope("Offload: SPIR-V bitcode linked");
  auto Composite = std::make_unique<Module>("llvm-link", Context);
  Linker L(*Composite);
  for (const std::string &Input : Request.Inputs) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
        Input, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return linkError("cannot read '" + Input +
                       "': " + Buffer.getError().message());
    // A broken attribute group index makes the reader read out of bounds.
    if (Error E = checkAttributeGroupIndices((*Buffer)->getMemBufferRef()))
      return linkError(Input + ": " + toString(std::move(E)));
    Expected<std::unique_ptr<Module>> M = getOwningLazyBitcodeModule(
        std::move(*Buffer), Context, /*ShouldLazyLoadMetadata=*/false);
    if (!M)
      return linkError(Input + ": " + toString(M.takeError()));
    if (Error E = (*M)->materializeMetadata())
      return linkError(Input + ": " + toString(std::move(E)));
    UpgradeDebugInfo(**M);
    if (L.linkInModule(std::move(*M)))
      return linkError("cannot link " + Input + ": " + Errors);
  }
  std::string Broken;
  raw_string_ostream BrokenOS(Broken);
  if (verifyModule(*Composite, &BrokenOS))
    return linkError("the linked module is broken: " + Broken);
  return std::move(Composite);
}

/// LLVM's SPIR-V backend on \p M, at -O0 with the target's defaults, as
/// clang -cc1 -emit-obj compiles bitcode for a SPIR-V triple.
static Expected<SmallString<0>> emitSPIRV(Module &M, const Triple &TT) {
  TimeTraceScope Scope("Offload: SPIR-V backend");
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeSPIRVTargetInfo();
    LLVMInitializeSPIRVTarget();
    LLVMInitializeSPIRVTargetMC();
    LLVMInitializeSPIRVAsmPrinter();
  });
  std::string Message;
  const Target *T = TargetRegistry::lookupTarget(TT, Message);
  if (!T)
    return linkError("no SPIR-V backend for " + TT.str() + ": " + Message);
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(
      TT, /*CPU=*/"", /*Features=*/"", TargetOptions(), std::nullopt,
      std::nullopt, CodeGenOptLevel::None));
  if (!TM)
    return linkError("cannot create a target machine for " + TT.str());
  M.setDataLayout(TM->createDataLayout());
  SmallString<0> Out;
  raw_svector_ostream OS(Out);
  legacy::PassManager PM;
  TargetLibraryInfoImpl TLII(TT);
  PM.add(new TargetLibraryInfoWrapperPass(TLII));
  if (TM->addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::ObjectFile))
    return linkError("the SPIR-V backend cannot emit an object for " +
                     TT.str());
  PM.run(M);
  return std::move(Out);
}

/// Links the SPIR-V modules of \p Inputs with SPIRV-Tools' linker, as
/// spirv-link links them with no options (clang's pipeline gives it none):
/// the universal 1.6 environment, every symbol resolved.
static Expected<SmallString<0>> linkModules(ArrayRef<std::string> Inputs) {
  TimeTraceScope Scope("Offload: SPIR-V modules linked (SPIRV-Tools)");
  std::vector<std::vector<uint32_t>> Modules;
  for (const std::string &Input : Inputs) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
        Input, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return linkError("cannot read '" + Input +
                       "': " + Buffer.getError().message());
    StringRef Bytes = (*Buffer)->getBuffer();
    if (Bytes.size() % 4 != 0)
      return linkError(Input + ": not a SPIR-V module: its size, " +
                       Twine(Bytes.size()) +
                       " bytes, is not a whole number of words");
    std::vector<uint32_t> &Words = Modules.emplace_back(Bytes.size() / 4);
    std::memcpy(Words.data(), Bytes.data(), Bytes.size());
  }
  std::string Messages;
  spvtools::Context Context(SPV_ENV_UNIVERSAL_1_6);
  Context.SetMessageConsumer([&](spv_message_level_t Level, const char *,
                                 const spv_position_t &Position,
                                 const char *Message) {
    bool IsError = Level == SPV_MSG_FATAL || Level == SPV_MSG_INTERNAL_ERROR ||
                   Level == SPV_MSG_ERROR;
    Messages += (IsError ? "error: " : "warning: ") +
                std::to_string(Position.index) + ": " + Message + "\n";
  });
  std::vector<uint32_t> Linked;
  spv_result_t Result =
      spvtools::Link(Context, Modules, &Linked, spvtools::LinkerOptions());
  if (Result != SPV_SUCCESS && Result != SPV_WARNING)
    return linkError("SPIRV-Tools' linker failed:\n" +
                     StringRef(Messages).rtrim());
  SmallString<0> Out;
  Out.resize(Linked.size() * 4);
  std::memcpy(Out.data(), Linked.data(), Out.size());
  return std::move(Out);
}

std::vector<std::string> SPIRVLinkRequest::args() const {
  std::vector<std::string> Args = {
      Bitcode ? "--spirv-backend" : "--spirv-tools", "--triple=" + Triple};
  llvm::append_range(Args, Inputs);
  llvm::append_range(Args, std::vector<std::string>{"-o", Output});
  return Args;
}

Error linkSPIRV(const SPIRVLinkRequest &Request) {
  if (!Request.Bitcode) {
    Expected<SmallString<0>> Module = linkModules(Request.Inputs);
    if (!Module)
      return Module.takeError();
    return writeFileAtomically(Request.Output,
                               StringRef(Module->data(), Module->size()));
  }
  Triple TT(Request.Triple);
  std::string Errors;
  auto Context = std::make_unique<LLVMContext>();
  Context->setDiagnosticHandler(std::make_unique<KeepDiagnostics>(Errors),
                                /*RespectFilters=*/true);
  Context->enableDebugTypeODRUniquing();
  // Diagnostics and fatal errors come back here, kept in Errors; a crash
  // too.
  Expected<SmallString<0>> Module = SmallString<0>();
  ScopedFatalErrorHandler Fatal(keepFatalError, &Errors);
  CrashRecoveryContext CRC;
  CrashRecoveryContext::Enable();
  bool Done = CRC.RunSafely([&] {
    Expected<std::unique_ptr<llvm::Module>> Linked =
        linkBitcode(Request, *Context, Errors);
    if (!Linked) {
      Module = Linked.takeError();
      return;
    }
    Module = emitSPIRV(**Linked, TT);
    // The backend's errors are diagnostics: no module then.
    if (Module && !Errors.empty())
      Module = linkError(Errors);
  });
  CrashRecoveryContext::Disable();
  if (!Done) {
    // The context holds what the backend was working on, as it was left:
    // it is not freed.
    (void)Context.release();
    consumeError(Module.takeError());
    return linkError("LLVM's SPIR-V backend failed: " +
                     (Errors.empty() ? "it crashed (exit code " +
                                           std::to_string(CRC.RetCode) + ")"
                                     : StringRef(Errors).rtrim().str()));
  }
  if (!Module)
    return Module.takeError();
  return writeFileAtomically(Request.Output,
                             StringRef(Module->data(), Module->size()));
}

} // namespace offload

//===- wrapper-ir/RegistrationCommon.h - Shared IR pieces -------*- C++ -*-===//
//
// Pieces every registration module has: the offload entry type, the bounds of
// the entries section, startup functions and their atexit counterpart.
// Internal to wrapper-ir.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_WRAPPERIR_REGISTRATIONCOMMON_H
#define LLD_OFFLOAD_WRAPPERIR_REGISTRATIONCOMMON_H

#include "wrapper-ir/Registration.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"

namespace offload {

/// Constructor priority of every registration: after the default-priority
/// constructors of libraries that run earlier (0-100 are reserved), before
/// the program's own (65535).
constexpr int RegistrationPriority = 101;

/// `struct.__tgt_offload_entry`, the 56-byte entry of LLVM 22:
/// {i64 reserved, i16 version, i16 kind, i32 flags, ptr address,
///  ptr symbol_name, i64 size, i64 data, ptr aux_addr}.
llvm::StructType *getOffloadEntryType(llvm::Module &M);

/// The `__start_<Section>`/`__stop_<Section>` bounds of the entries table,
/// and a zero-size entry array in that section (kept by llvm.compiler.used;
/// by llvm.used, which also retains the section, when \p Retained) so that
/// the linker defines the bounds even when no input has entries.
struct EntryBounds {
  llvm::GlobalVariable *Begin;
  llvm::GlobalVariable *End;
};
EntryBounds createEntryBounds(llvm::Module &M, llvm::StringRef Section,
                              bool Retained);

/// An internal `void()` function in `.text.startup`, with an entry block.
llvm::Function *createStartupFunction(llvm::Module &M, llvm::StringRef Name);

/// Emits `atexit(Fn)` at \p Builder.
void emitAtExit(llvm::IRBuilder<> &Builder, llvm::Function *Fn);

/// An internal constant byte array holding \p Data.
llvm::GlobalVariable *createByteArray(llvm::Module &M, llvm::StringRef Name,
                                      llvm::StringRef Data,
                                      llvm::StringRef Section,
                                      uint64_t Alignment);

/// The OpenMP registration (both layouts).
void buildOpenMPRegistration(llvm::Module &M,
                             llvm::ArrayRef<ImageToRegister> Images,
                             const RegistrationOptions &Options);

/// The CUDA or HIP registration of one fat binary.
void buildFatbinRegistration(llvm::Module &M, const ImageToRegister &Fatbin,
                             const RegistrationOptions &Options);

} // namespace offload

#endif // LLD_OFFLOAD_WRAPPERIR_REGISTRATIONCOMMON_H

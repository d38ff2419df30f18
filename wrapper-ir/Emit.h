//===- wrapper-ir/Emit.h - Emitting a module in memory ----------*- C++ -*-===//
//
// Turns a module into textual IR, bitcode, or a relocatable object for its
// target triple (through that target's TargetMachine), all in memory.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_WRAPPERIR_EMIT_H
#define LLD_OFFLOAD_WRAPPERIR_EMIT_H

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace offload {

/// The forms a module can be emitted in.
enum class EmitKind { IR, Bitcode, Object };

/// How to emit.
struct EmitOptions {
  EmitKind Kind = EmitKind::Object;
  /// Position-independent code, as executables (PIE) and shared libraries
  /// need; off only for objects known to end up in non-PIE executables.
  bool PIC = true;
};

/// Emits \p M in the requested form, for its triple: finds the target (an
/// error names an unknown or unsupported triple) and sets the module's data
/// layout to the target's first. One target machine does both (it is most
/// of what a small registration object costs).
llvm::Expected<llvm::SmallString<0>> emitModule(llvm::Module &M,
                                                const EmitOptions &Options);

} // namespace offload

#endif // LLD_OFFLOAD_WRAPPERIR_EMIT_H

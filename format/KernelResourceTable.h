//===- format/KernelResourceTable.h - Kernel resources, shown ---*- C++ -*-===//
//
// The two forms offload-inspect --resources and ld.lld-offload
// --offload-resource-usage give kernel resources in: a table aligned for a
// terminal, the kernels of each code object under its container, and JSON
// objects whose keys are the same for every row and every vendor (null
// where a code object does not say).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_KERNELRESOURCETABLE_H
#define LLD_OFFLOAD_FORMAT_KERNELRESOURCETABLE_H

#include "format/KernelResources.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace offload {

/// The kernel's name as shown: demangled, unless \p Demangle is false.
std::string getKernelDisplayName(const KernelResources &Row, bool Demangle);

/// Writes \p Rows as a table: for each container in turn, a line naming it,
/// then a header and one line per kernel, indented, with every column
/// aligned across the whole table. Columns that no row fills are left out;
/// a value one row lacks is "-". Nothing for no rows.
void printKernelResourceTable(llvm::raw_ostream &OS,
                              llvm::ArrayRef<KernelResources> Rows,
                              bool Demangle);

/// Writes \p Row as one JSON object: container, triple, arch, kernel (as
/// shown), mangled_name, then the resources.
void writeKernelResourcesJSON(llvm::json::OStream &J,
                              const KernelResources &Row, bool Demangle);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_KERNELRESOURCETABLE_H

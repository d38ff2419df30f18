//===- support/MappedFileFaults.h - SIGBUS as a file error ------*- C++ -*-===//
//
// LLVM and LLD read inputs and write outputs through memory maps. When the
// file system cannot back a page (a full disk under an output, an input
// truncated while mapped, an I/O error), the kernel answers the access with
// SIGBUS, and ld.lld dies of it with a crash report. Here it becomes an
// error that names the file and the likely cause, removes the temporary
// files LLVM registered for removal, and exits with code 1.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_SUPPORT_MAPPEDFILEFAULTS_H
#define LLD_OFFLOAD_SUPPORT_MAPPEDFILEFAULTS_H

namespace offload {

/// Reports SIGBUS as "<ToolName>: error: cannot write|read '<file>': ..."
/// and exits with code 1. \p ToolName must outlive the process (a string
/// literal or argv). Install after llvm::InitLLVM; install again after
/// anything that replaces the handler (CrashRecoveryContext::Enable).
void reportMappedFileFaults(const char *ToolName);

} // namespace offload

#endif // LLD_OFFLOAD_SUPPORT_MAPPEDFILEFAULTS_H

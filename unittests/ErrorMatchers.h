//===- unittests/ErrorMatchers.h - gtest checks for llvm::Error -*- C++ -*-===//
//
// Debian does not ship LLVM's TestingSupport library, so these are the few
// checks our units need: a value that must be there, and an error whose
// message must contain given text.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_UNITTESTS_ERRORMATCHERS_H
#define LLD_OFFLOAD_UNITTESTS_ERRORMATCHERS_H

#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <string>

namespace offload {

/// The value of \p E; fails the test (and returns a default T) on an error.
template <typename T> T takeOrFail(llvm::Expected<T> E) {
  if (!E) {
    ADD_FAILURE() << "unexpected error: " << llvm::toString(E.takeError());
    return T();
  }
  return std::move(*E);
}

/// True if \p E is success; otherwise fails the test with its message. Use
/// as ASSERT_TRUE(succeeded(...)): llvm::cantFail() checks nothing in
/// release builds.
inline bool succeeded(llvm::Error E) {
  if (E) {
    ADD_FAILURE() << "unexpected error: " << llvm::toString(std::move(E));
    return false;
  }
  return true;
}

/// The message of the error in \p E, or "" (and a test failure) on success.
template <typename T> std::string errorMessage(llvm::Expected<T> E) {
  if (E) {
    ADD_FAILURE() << "expected an error, got a value";
    return "";
  }
  return llvm::toString(E.takeError());
}

/// The message of \p E, or "" (and a test failure) on success.
inline std::string errorMessage(llvm::Error E) {
  if (!E) {
    ADD_FAILURE() << "expected an error, got success";
    return "";
  }
  return llvm::toString(std::move(E));
}

} // namespace offload

#endif // LLD_OFFLOAD_UNITTESTS_ERRORMATCHERS_H

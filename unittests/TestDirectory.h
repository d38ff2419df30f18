//===- unittests/TestDirectory.h - A directory for one test -----*- C++ -*-===//
//
// A fresh directory that goes with the test that made it, and the files
// written into it.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_UNITTESTS_TESTDIRECTORY_H
#define LLD_OFFLOAD_UNITTESTS_TESTDIRECTORY_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <string>

namespace offload {

class TestDirectory {
public:
  /// A unique directory whose name starts with \p Prefix.
  explicit TestDirectory(llvm::StringRef Prefix) {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(Prefix, Dir));
  }
  ~TestDirectory() { llvm::sys::fs::remove_directories(Dir); }
  TestDirectory(const TestDirectory &) = delete;
  TestDirectory &operator=(const TestDirectory &) = delete;

  /// The path of the file \p Name in the directory.
  std::string path(llvm::StringRef Name) const {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  /// Writes \p Data to the file \p Name and returns its path.
  std::string write(llvm::StringRef Name, llvm::StringRef Data) const {
    std::error_code EC;
    llvm::raw_fd_ostream OS(path(Name), EC);
    EXPECT_FALSE(EC) << path(Name) << ": " << EC.message();
    OS << Data;
    return path(Name);
  }

private:
  llvm::SmallString<128> Dir;
};

} // namespace offload

#endif // LLD_OFFLOAD_UNITTESTS_TESTDIRECTORY_H

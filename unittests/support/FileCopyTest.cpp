//===- unittests/support/FileCopyTest.cpp - Reading file ranges -----------===//

#include "support/FileCopy.h"

#include "unittests/ErrorMatchers.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <unistd.h>

using namespace llvm;
using namespace offload;

namespace {

TEST(FileCopyTest, ReadFileRangeReadsExactlyTheRange) {
  SmallString<128> Path;
  int FD;
  ASSERT_FALSE(sys::fs::createTemporaryFile("range", "bin", FD, Path));
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/false);
    OS << "0123456789";
  }
  char Middle[4];
  ASSERT_TRUE(succeeded(readFileRange(FD, 3, MutableArrayRef(Middle))));
  EXPECT_EQ(StringRef(Middle, 4), "3456");
  // The file's own offset is left where the write put it.
  EXPECT_EQ(::lseek(FD, 0, SEEK_CUR), 10);
  char None[1];
  EXPECT_TRUE(succeeded(readFileRange(FD, 10, MutableArrayRef<char>(None, size_t(0)))));
  // A range past the end is an error, not a short read.
  char Past[4];
  EXPECT_EQ(errorMessage(readFileRange(FD, 8, MutableArrayRef(Past))),
            "unexpected end of file");
  EXPECT_NE(errorMessage(readFileRange(-1, 0, MutableArrayRef(Past))).find(
                "read failed: "),
            std::string::npos);
  ::close(FD);
  sys::fs::remove(Path);
}

} // namespace

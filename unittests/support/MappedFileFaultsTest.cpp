//===- MappedFileFaultsTest.cpp - SIGBUS as an error about a file ---------===//
//
// A page of a mapped file past its end answers an access with SIGBUS, as a
// page the file system cannot back does: each test maps a file, shrinks it,
// touches the page in a child process, and checks how the child ended.
//
//===----------------------------------------------------------------------===//

#include "support/MappedFileFaults.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace llvm;
using namespace offload;

namespace {

class MappedFileFaultsTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("mapped-file-faults", Dir));
    File = (Dir + "/mapped.bin").str();
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  /// Maps two pages of a new file, then truncates it to nothing.
  char *mapThenTruncate(bool Writable) {
    int FD = ::open(File.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    EXPECT_GE(FD, 0);
    EXPECT_EQ(::ftruncate(FD, 8192), 0);
    void *P = ::mmap(nullptr, 8192, PROT_READ | (Writable ? PROT_WRITE : 0),
                     MAP_SHARED, FD, 0);
    EXPECT_NE(P, MAP_FAILED);
    EXPECT_EQ(::ftruncate(FD, 0), 0);
    ::close(FD);
    return static_cast<char *>(P);
  }

  SmallString<128> Dir;
  std::string File;
};

TEST_F(MappedFileFaultsTest, ReadOfTruncatedInput) {
  char *P = mapThenTruncate(/*Writable=*/false);
  EXPECT_EXIT(
      {
        reportMappedFileFaults("fault-test");
        volatile char C = P[4096];
        (void)C;
      },
      ::testing::ExitedWithCode(1),
      "fault-test: error: cannot read '.*mapped.bin': it was truncated while "
      "in use, or reading it failed \\(SIGBUS on a memory-mapped read\\)");
}

TEST_F(MappedFileFaultsTest, WriteThatCannotBeBacked) {
  char *P = mapThenTruncate(/*Writable=*/true);
  EXPECT_EXIT(
      {
        reportMappedFileFaults("fault-test");
        P[4096] = 1;
      },
      ::testing::ExitedWithCode(1),
      "fault-test: error: cannot write '.*mapped.bin': its file system is "
      "full, or writing to it failed \\(SIGBUS on a memory-mapped write\\)");
}

// Without the report, the same access kills the process with SIGBUS: the
// tests above see the handler, not a quirk of the setup.
TEST_F(MappedFileFaultsTest, WithoutReportItIsASignal) {
  char *P = mapThenTruncate(/*Writable=*/false);
  EXPECT_EXIT(
      {
        ::signal(SIGBUS, SIG_DFL);
        volatile char C = P[4096];
        (void)C;
      },
      ::testing::KilledBySignal(SIGBUS), "");
}

} // namespace

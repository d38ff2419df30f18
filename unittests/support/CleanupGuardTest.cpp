//===- CleanupGuardTest.cpp - Cleaning up after a killed process ----------===//
//
// A child process starts a guard, registers paths and ends; the test then
// looks at what the helper left (it runs on for a moment after the child).
//
//===----------------------------------------------------------------------===//

#include "support/CleanupGuard.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <chrono>
#include <fstream>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace offload;

namespace {

class CleanupGuardTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("cleanup-guard", Dir));
    Work = path("work");
    ASSERT_FALSE(sys::fs::create_directories(Work + "/nested"));
    touch(Work + "/image.o");
    touch(Work + "/nested/deeper.o");
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) const { return (Dir + "/" + Name).str(); }
  static void touch(const std::string &Path) { std::ofstream(Path) << "x"; }

  /// Runs \p Body in a child process that starts a guard for the output
  /// \p Output and the work directory \p WorkDir, and returns the child's
  /// wait status once the helper is done (it holds the pipe given as its
  /// stdout until then).
  template <typename Fn>
  int runChild(Fn Body, StringRef Output = "app", StringRef WorkDir = "work") {
    int Pipe[2];
    EXPECT_EQ(::pipe(Pipe), 0);
    pid_t Pid = ::fork();
    if (Pid == 0) {
      // A process group of its own; the helper is in a session of its own.
      ::setpgid(0, 0);
      ::dup2(Pipe[1], STDOUT_FILENO);
      ::close(Pipe[0]);
      ::close(Pipe[1]);
      Expected<std::unique_ptr<CleanupGuard>> Guard = CleanupGuard::start(
          path(Output), WorkDir.empty() ? "" : path(WorkDir));
      if (!Guard)
        ::_exit(99);
      Body(*Guard);
      ::_exit(0);
    }
    ::close(Pipe[1]);
    char C;
    while (::read(Pipe[0], &C, 1) > 0) {
    }
    ::close(Pipe[0]);
    int Status = 0;
    ::waitpid(Pid, &Status, 0);
    return Status;
  }

  SmallString<128> Dir;
  std::string Work;
};

// Killed: the work directory goes, and of the files next to the output only
// FileOutputBuffer's temporaries of that output ("app.tmp" and seven
// hexadecimal digits).
TEST_F(CleanupGuardTest, KilledProcessIsCleanedUp) {
  for (const char *Name : {"app", "app.tmp0123abc", "app.tmpfedcba9",
                           "app.tmp0123ABC", "app.tmp01234567", "app.tmp012345",
                           "app.tmp-0123456", "other.tmp0123abc", "app.o"})
    touch(path(Name));
  int Status = runChild(
      [](std::unique_ptr<CleanupGuard> &) { ::kill(::getpid(), SIGKILL); });
  ASSERT_TRUE(WIFSIGNALED(Status));
  EXPECT_FALSE(sys::fs::exists(Work));
  EXPECT_TRUE(sys::fs::exists(path("app")));
  EXPECT_FALSE(sys::fs::exists(path("app.tmp0123abc")));
  EXPECT_FALSE(sys::fs::exists(path("app.tmpfedcba9")));
  for (const char *Kept : {"app.tmp0123ABC", "app.tmp01234567", "app.tmp012345",
                           "app.tmp-0123456", "other.tmp0123abc", "app.o"})
    EXPECT_TRUE(sys::fs::exists(path(Kept))) << Kept;
}

// An exit() that skips the destructor (LLD's fatal errors end that way) is
// cleaned up too.
TEST_F(CleanupGuardTest, ExitWithoutDestructorIsCleanedUp) {
  touch(path("app.tmp0123abc"));
  int Status = runChild([](std::unique_ptr<CleanupGuard> &) { ::_exit(1); });
  ASSERT_TRUE(WIFEXITED(Status));
  EXPECT_FALSE(sys::fs::exists(Work));
  EXPECT_FALSE(sys::fs::exists(path("app.tmp0123abc")));
}

// A process that ends by destroying its guard cleaned up itself: the helper
// removes nothing.
TEST_F(CleanupGuardTest, CleanEndRemovesNothing) {
  touch(path("app.tmp0123abc"));
  int Status =
      runChild([](std::unique_ptr<CleanupGuard> &Guard) { Guard.reset(); });
  ASSERT_TRUE(WIFEXITED(Status));
  EXPECT_EQ(WEXITSTATUS(Status), 0);
  EXPECT_TRUE(sys::fs::exists(Work + "/nested/deeper.o"));
  EXPECT_TRUE(sys::fs::exists(path("app.tmp0123abc")));
}

// The helper ignores the signals a terminal or a build system sends, so
// that a SIGTERM to the whole process group still leaves it to clean up.
TEST_F(CleanupGuardTest, HelperOutlivesTermination) {
  int Status = runChild([](std::unique_ptr<CleanupGuard> &) {
    ::signal(SIGTERM, SIG_DFL);
    ::kill(0, SIGTERM); // the child's process group
    ::kill(::getpid(), SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(Status));
  EXPECT_EQ(WTERMSIG(Status), SIGTERM);
  EXPECT_FALSE(sys::fs::exists(Work));
}

// Without a work directory (a link that is LLD's alone), only the
// output's temporaries go.
TEST_F(CleanupGuardTest, OutputOnly) {
  touch(path("app.tmp0123abc"));
  int Status = runChild(
      [](std::unique_ptr<CleanupGuard> &) { ::kill(::getpid(), SIGKILL); },
      "app", "");
  ASSERT_TRUE(WIFSIGNALED(Status));
  EXPECT_TRUE(sys::fs::exists(Work + "/nested/deeper.o"));
  EXPECT_FALSE(sys::fs::exists(path("app.tmp0123abc")));
}

// An output whose name has spaces and pattern characters is taken as it is.
TEST_F(CleanupGuardTest, OutputNameIsNotAPattern) {
  for (const char *Name :
       {"my app[1].tmp0123abc", "my app1.tmp0123abc", "my*.tmp0123abc"})
    touch(path(Name));
  int Status = runChild(
      [](std::unique_ptr<CleanupGuard> &) { ::kill(::getpid(), SIGKILL); },
      "my app[1]", "");
  ASSERT_TRUE(WIFSIGNALED(Status));
  EXPECT_FALSE(sys::fs::exists(path("my app[1].tmp0123abc")));
  EXPECT_TRUE(sys::fs::exists(path("my app1.tmp0123abc")));
  EXPECT_TRUE(sys::fs::exists(path("my*.tmp0123abc")));
}

} // namespace

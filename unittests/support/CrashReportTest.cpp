//===- unittests/support/CrashReportTest.cpp ------------------------------===//
//
// A crash, in the calling thread or another, becomes an error that says
// what was being done, and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "support/CrashReport.h"

#include "gtest/gtest.h"

#include <csignal>
#include <thread>

using namespace offload;

namespace {

TEST(CrashReportTest, CrashInTheCallingThread) {
  EXPECT_EXIT(
      {
        reportCrashes("crash-test");
        setCrashPhase("in the host link");
        ::raise(SIGSEGV);
      },
      ::testing::ExitedWithCode(1),
      "crash-test: error: LLD crashed \\(SIGSEGV, a bad memory access\\) in "
      "the host link; no output was written");
}

TEST(CrashReportTest, CrashInAnotherThread) {
  EXPECT_EXIT(
      {
        reportCrashes("crash-test");
        setCrashPhase("in the device link for openmp-x86_64-pc-linux-gnu-"
                      "generic (images: a.o)");
        std::thread([] { ::raise(SIGILL); }).join();
      },
      ::testing::ExitedWithCode(1),
      "crash-test: error: LLD crashed \\(SIGILL, an illegal instruction\\) "
      "in the device link for openmp-x86_64-pc-linux-gnu-generic \\(images: "
      "a.o\\)");
}

// Without the report, the same is death by the signal: the tests above see
// the handler, not a quirk of the setup.
TEST(CrashReportTest, WithoutReportItIsASignal) {
  EXPECT_EXIT(
      {
        ::signal(SIGSEGV, SIG_DFL);
        ::raise(SIGSEGV);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
}

} // namespace

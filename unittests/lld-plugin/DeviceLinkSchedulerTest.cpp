//===- unittests/lld-plugin/DeviceLinkSchedulerTest.cpp -------------------===//
//
// The scheduler of parallel device links: every worker is reaped, at most
// MaxJobs run at once, nothing new starts after a failure, another child
// of the process is left alone, and waiting costs no CPU time.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DeviceLinkScheduler.h"

#include "llvm/Support/Program.h"
#include "gtest/gtest.h"

#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using namespace llvm;
using namespace offload;

namespace {

sys::ProcessInfo startShell(StringRef Script) {
  std::string Sh = "/bin/sh";
  StringRef Argv[] = {"sh", "-c", Script};
  return sys::ExecuteNoWait(Sh, Argv, std::nullopt);
}

double cpuSeconds() {
  rusage RU;
  getrusage(RUSAGE_SELF, &RU);
  return RU.ru_utime.tv_sec + RU.ru_utime.tv_usec / 1e6 + RU.ru_stime.tv_sec +
         RU.ru_stime.tv_usec / 1e6;
}

TEST(DeviceLinkSchedulerTest, EveryWorkerReapedAtMostMaxJobs) {
  std::vector<int> Codes(5, -1);
  size_t Running = 0, MostRunning = 0;
  scheduleWorkers(
      Codes.size(), 2, nullptr,
      [&](size_t I) -> std::optional<sys::ProcessInfo> {
        MostRunning = std::max(MostRunning, ++Running);
        return startShell("sleep 0.05; exit " + std::to_string(I));
      },
      [&](size_t I, int ExitCode, StringRef Why) {
        --Running;
        EXPECT_TRUE(Why.empty()) << Why.str();
        Codes[I] = ExitCode;
        return true;
      });
  EXPECT_EQ(MostRunning, 2u);
  for (int I = 0; I != 5; ++I)
    EXPECT_EQ(Codes[I], I);
}

TEST(DeviceLinkSchedulerTest, NothingNewStartsAfterAFailure) {
  std::vector<size_t> Started, Finished;
  scheduleWorkers(
      4, 1, nullptr,
      [&](size_t I) -> std::optional<sys::ProcessInfo> {
        Started.push_back(I);
        return startShell(I == 1 ? "exit 1" : "exit 0");
      },
      [&](size_t I, int ExitCode, StringRef) {
        Finished.push_back(I);
        return ExitCode == 0;
      });
  EXPECT_EQ(Started, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(Finished, (std::vector<size_t>{0, 1}));

  // A worker that cannot start: nothing new starts, the running one is
  // reaped.
  Started.clear();
  Finished.clear();
  scheduleWorkers(
      4, 2, nullptr,
      [&](size_t I) -> std::optional<sys::ProcessInfo> {
        if (I == 1)
          return std::nullopt;
        Started.push_back(I);
        return startShell("sleep 0.05");
      },
      [&](size_t I, int, StringRef) {
        Finished.push_back(I);
        return true;
      });
  EXPECT_EQ(Started, (std::vector<size_t>{0}));
  EXPECT_EQ(Finished, (std::vector<size_t>{0}));
}

TEST(DeviceLinkSchedulerTest, AnotherChildIsLeftAloneAndNoBusyLoop) {
  // A child that is not a worker, and has already exited when the
  // scheduler waits (as the clean-up helper would, killed).
  sys::ProcessInfo Other = startShell("exit 7");
  ASSERT_NE(Other.Pid, 0);
  ::usleep(100000);
  double Before = cpuSeconds();
  int Reaped = 0;
  scheduleWorkers(
      2, 2, nullptr,
      [&](size_t) -> std::optional<sys::ProcessInfo> {
        return startShell("sleep 0.5");
      },
      [&](size_t, int ExitCode, StringRef) {
        EXPECT_EQ(ExitCode, 0);
        ++Reaped;
        return true;
      });
  double Spent = cpuSeconds() - Before;
  EXPECT_EQ(Reaped, 2);
  // Waiting half a second in a loop would spend about that much.
  EXPECT_LT(Spent, 0.2);
  // The other child is still there to be reaped by its owner.
  std::string ErrMsg;
  sys::ProcessInfo Done = sys::Wait(Other, /*SecondsToWait=*/0, &ErrMsg);
  EXPECT_EQ(Done.Pid, Other.Pid) << ErrMsg;
  EXPECT_EQ(Done.ReturnCode, 7);
}

} // namespace

//===- unittests/lld-plugin/InputGateTest.cpp -----------------------------===//
//
// A file LLD reads through a named pipe once a decision is made: its bytes,
// or a line LLD refuses; and the file as it was afterwards.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/InputGate.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <functional>
#include <future>

using namespace llvm;
using namespace offload;

namespace {

class InputGateTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("input-gate", Dir));
    sys::path::append(Path, Dir, "registration.o");
    // Larger than a pipe holds at once.
    Bytes.assign(3 << 20, 'x');
    Bytes.replace(0, 4,
                  "\x7f"
                  "ELF");
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Bytes;
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  /// What LLD reads: the file, as LLD opens it.
  std::future<std::string> readAsLLD() {
    return std::async(std::launch::async, [P = Path.str().str()] {
      ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
          P, /*IsText=*/false, /*RequiresNullTerminator=*/false);
      return File ? (*File)->getBuffer().str() : std::string("<error>");
    });
  }

  /// A gate on the file, or null (the test says why).
  std::unique_ptr<InputGate> gate(std::function<bool()> Decide) {
    Expected<std::unique_ptr<InputGate>> Gate =
        InputGate::create(Path, std::move(Decide));
    if (!Gate) {
      ADD_FAILURE() << toString(Gate.takeError());
      return nullptr;
    }
    return std::move(*Gate);
  }

  std::string fileNow() {
    sys::fs::file_status Status;
    EXPECT_FALSE(sys::fs::status(Path, Status));
    EXPECT_EQ(Status.type(), sys::fs::file_type::regular_file);
    ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(Path);
    return File ? (*File)->getBuffer().str() : std::string("<error>");
  }

  SmallString<128> Dir, Path;
  std::string Bytes;
};

TEST_F(InputGateTest, OpenGivesTheFile) {
  std::promise<bool> Decision;
  std::shared_future<bool> Decided = Decision.get_future().share();
  std::unique_ptr<InputGate> Gate = gate([Decided] { return Decided.get(); });
  ASSERT_TRUE(Gate);
  // A pipe while the gate stands: what reads it waits.
  sys::fs::file_status Status;
  ASSERT_FALSE(sys::fs::status(Path, Status));
  EXPECT_EQ(Status.type(), sys::fs::file_type::fifo_file);
  std::future<std::string> Read = readAsLLD();
  EXPECT_EQ(Read.wait_for(std::chrono::milliseconds(50)),
            std::future_status::timeout);
  Decision.set_value(true);
  EXPECT_EQ(Read.get(), Bytes);
  EXPECT_TRUE(Gate->finish());
  EXPECT_EQ(fileNow(), Bytes);
}

TEST_F(InputGateTest, ShutGivesALineLLDRefuses) {
  std::unique_ptr<InputGate> Gate = gate([] { return false; });
  ASSERT_TRUE(Gate);
  std::string Read = readAsLLD().get();
  EXPECT_EQ(Read.rfind("ld.lld-offload: ", 0), 0u) << Read;
  EXPECT_FALSE(Gate->finish());
  EXPECT_EQ(fileNow(), Bytes);
}

TEST_F(InputGateTest, UnreadGateEnds) {
  // LLD stopped before it opened the pipe: finishing does not wait for it.
  std::unique_ptr<InputGate> Gate = gate([] { return true; });
  ASSERT_TRUE(Gate);
  EXPECT_TRUE(Gate->finish());
  EXPECT_EQ(fileNow(), Bytes);
  // A second gate on the same file, dropped without finish().
  Gate = gate([] { return true; });
  ASSERT_TRUE(Gate);
  Gate.reset();
  EXPECT_EQ(fileNow(), Bytes);
}

TEST_F(InputGateTest, MissingFileIsAnError) {
  Expected<std::unique_ptr<InputGate>> Gate =
      InputGate::create((Path + ".missing").str(), [] { return true; });
  ASSERT_FALSE(bool(Gate));
  EXPECT_NE(toString(Gate.takeError()).find("registration.o.missing"),
            std::string::npos);
}

} // namespace

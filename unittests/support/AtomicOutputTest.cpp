//===- AtomicOutputTest.cpp - Outputs that appear whole or not at all -----===//
//
// Each test works in a fresh directory and lists it afterwards, so a
// temporary file left behind, or a destination touched on failure, shows.
//
//===----------------------------------------------------------------------===//

#include "support/AtomicOutput.h"

#include "unittests/ErrorMatchers.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace llvm;
using namespace offload;
using ::testing::HasSubstr;

namespace {

class AtomicOutputTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("atomic-output-test", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) const {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return std::string(P);
  }

  /// The names in the test directory, sorted.
  std::vector<std::string> list() const {
    std::vector<std::string> Names;
    std::error_code EC;
    for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
         I.increment(EC))
      Names.push_back(sys::path::filename(I->path()).str());
    EXPECT_FALSE(EC) << EC.message();
    llvm::sort(Names);
    return Names;
  }

  /// The contents of \p Path, or "<missing>".
  static std::string contents(StringRef Path) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
    if (!Buf)
      return "<missing>";
    return (*Buf)->getBuffer().str();
  }

  void writeFile(StringRef Path, StringRef Data) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << Data;
  }

  SmallString<128> Dir;
};

Error failingWriter(raw_ostream &OS) {
  OS << "partial output that must never appear";
  OS.flush();
  return createStringError(inconvertibleErrorCode(), "the writer gave up");
}

using Names = std::vector<std::string>;

// A successful writer produces the file with exactly what it wrote, and no
// temporary file remains.
TEST_F(AtomicOutputTest, WritesFile) {
  std::string Out = path("out.bin");
  ASSERT_TRUE(succeeded(writeFileAtomically(Out, [](raw_ostream &OS) {
    OS << "hello";
    OS.write("\0\1", 2);
    return Error::success();
  })));
  EXPECT_EQ(contents(Out), std::string("hello\0\1", 7));
  EXPECT_EQ(list(), Names({"out.bin"}));
}

// The bytes overload writes the bytes, and an empty file is a file.
TEST_F(AtomicOutputTest, WritesBytes) {
  ASSERT_TRUE(succeeded(writeFileAtomically(path("a"), "data")));
  ASSERT_TRUE(succeeded(writeFileAtomically(path("empty"), "")));
  EXPECT_EQ(contents(path("a")), "data");
  EXPECT_EQ(contents(path("empty")), "");
  EXPECT_EQ(list(), Names({"a", "empty"}));
}

// Output larger than any stream buffer arrives whole.
TEST_F(AtomicOutputTest, WritesLargeFile) {
  std::string Big(3 << 20, 'x');
  for (size_t I = 0; I < Big.size(); I += 4096)
    Big[I] = static_cast<char>(I / 4096);
  ASSERT_TRUE(succeeded(writeFileAtomically(path("big"), Big)));
  EXPECT_EQ(contents(path("big")), Big);
}

// Success replaces an existing destination.
TEST_F(AtomicOutputTest, ReplacesExistingFile) {
  std::string Out = path("out.bin");
  writeFile(Out, "old contents that are longer");
  ASSERT_TRUE(succeeded(writeFileAtomically(Out, "new")));
  EXPECT_EQ(contents(Out), "new");
  EXPECT_EQ(list(), Names({"out.bin"}));
}

// A writer's error is returned, and neither the destination nor a
// temporary file is left in the directory.
TEST_F(AtomicOutputTest, WriterErrorLeavesNoFile) {
  std::string Msg =
      errorMessage(writeFileAtomically(path("out.bin"), failingWriter));
  EXPECT_THAT(Msg, HasSubstr("the writer gave up"));
  EXPECT_EQ(list(), Names());
}

// A writer's error leaves an existing destination as it was.
TEST_F(AtomicOutputTest, WriterErrorKeepsExistingFile) {
  std::string Out = path("out.bin");
  writeFile(Out, "precious");
  std::string Msg = errorMessage(writeFileAtomically(Out, failingWriter));
  EXPECT_THAT(Msg, HasSubstr("the writer gave up"));
  EXPECT_EQ(contents(Out), "precious");
  EXPECT_EQ(list(), Names({"out.bin"}));
}

// A destination in a missing directory is an error naming the path; no
// directory is created.
TEST_F(AtomicOutputTest, MissingDirectory) {
  std::string Out = path("no-such-dir/out.bin");
  bool Called = false;
  std::string Msg = errorMessage(writeFileAtomically(Out, [&](raw_ostream &) {
    Called = true;
    return Error::success();
  }));
  EXPECT_THAT(Msg, HasSubstr("'" + Out + "': cannot create a temporary file"));
  EXPECT_FALSE(Called);
  EXPECT_EQ(list(), Names());
}

// When the final rename fails (the destination is a non-empty directory)
// the error names the path and the temporary file is removed.
TEST_F(AtomicOutputTest, RenameFailureRemovesTemporary) {
  std::string Out = path("taken");
  ASSERT_FALSE(sys::fs::create_directory(Out));
  writeFile(path("taken/file"), "x");
  std::string Msg = errorMessage(writeFileAtomically(Out, "data"));
  EXPECT_THAT(Msg, HasSubstr("'" + Out +
                             "': cannot rename the temporary file into "
                             "place"));
  EXPECT_EQ(list(), Names({"taken"}));
  EXPECT_EQ(contents(path("taken/file")), "x");
}

// "-" hands the writer a stream on standard output and passes its error
// through.
TEST_F(AtomicOutputTest, StandardOutput) {
  bool Called = false;
  ASSERT_TRUE(succeeded(writeFileAtomically("-", [&](OutputFileStream &OS) {
    Called = true;
    EXPECT_EQ(OS.fd(), 1);
    return Error::success();
  })));
  EXPECT_TRUE(Called);
  std::string Msg = errorMessage(writeFileAtomically("-", [](raw_ostream &) {
    return createStringError(inconvertibleErrorCode(), "stdout failed");
  }));
  EXPECT_THAT(Msg, HasSubstr("stdout failed"));
  EXPECT_EQ(list(), Names());
}

// While the writer runs, the file has no name: a process killed then leaves
// nothing behind (where the file system has anonymous files).
TEST_F(AtomicOutputTest, NothingNamedWhileWriting) {
  int Probe = ::open(Dir.c_str(), O_TMPFILE | O_WRONLY, 0600);
  if (Probe < 0)
    GTEST_SKIP() << "no O_TMPFILE in " << Dir.str().str();
  ::close(Probe);
  std::string Out = path("out.bin");
  writeFile(Out, "old");
  ASSERT_TRUE(succeeded(writeFileAtomically(Out, [&](raw_ostream &OS) {
    OS << "new";
    OS.flush();
    EXPECT_EQ(list(), Names({"out.bin"}));
    EXPECT_EQ(contents(Out), "old");
    return Error::success();
  })));
  EXPECT_EQ(contents(Out), "new");
  EXPECT_EQ(list(), Names({"out.bin"}));
}

// writeFileDirectly writes in place; a failure names the file.
TEST_F(AtomicOutputTest, WritesDirectly) {
  ASSERT_TRUE(succeeded(writeFileDirectly(path("scratch"), "bytes")));
  EXPECT_EQ(contents(path("scratch")), "bytes");
  std::string Missing = path("no-such-dir/scratch");
  EXPECT_THAT(errorMessage(writeFileDirectly(Missing, "bytes")),
              HasSubstr("cannot write '" + Missing + "': "));
}

// A full disk is an error, not "LLVM ERROR: IO failure" from the stream's
// destructor. /dev/full answers every write with ENOSPC.
TEST_F(AtomicOutputTest, WriteDirectlyToFullDevice) {
  if (!sys::fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full";
  EXPECT_THAT(errorMessage(writeFileDirectly("/dev/full", "bytes")),
              HasSubstr("cannot write '/dev/full': No space left on device"));
}

} // namespace

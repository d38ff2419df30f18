//===- unittests/lld-plugin/DependencyFileTest.cpp ------------------------===//
//
// The host link's Make rule without the files of the work directory.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DependencyFile.h"

#include "gtest/gtest.h"

using namespace offload;

namespace {

TEST(DependencyFileTest, WorkFilesLeaveTheRule) {
  // As LLD writes it; the work file last, as the host link names it.
  std::string Rule = "out: \\\n a.o \\\n /tmp/w\\ d/registration.o\n"
                     "\na.o:\n\n/tmp/w\\ d/registration.o:\n";
  EXPECT_EQ(dropPrerequisitesUnder(Rule, "/tmp/w d"),
            "out: \\\n a.o\n\na.o:\n");
  // A file in another directory whose name starts the same stays.
  std::string Other = "out: \\\n /tmp/w\\ dx/b.o\n\n/tmp/w\\ dx/b.o:\n";
  EXPECT_EQ(dropPrerequisitesUnder(Other, "/tmp/w d"), Other);
  // Nothing of it: the rule as it was; only work files: no prerequisites.
  EXPECT_EQ(dropPrerequisitesUnder("out:\n", "/tmp/w"), "out:\n");
  EXPECT_EQ(dropPrerequisitesUnder("out: \\\n /tmp/w/r.o\n\n/tmp/w/r.o:\n",
                                   "/tmp/w/"),
            "out:\n");
  // '$' and '#' as LLD escapes them.
  EXPECT_EQ(dropPrerequisitesUnder(
                "out: \\\n /t/$$x\\#/r.o \\\n b.o\n\n/t/$$x\\#/r.o:\n\nb.o:\n",
                "/t/$x#"),
            "out: \\\n b.o\n\nb.o:\n");
}

} // namespace

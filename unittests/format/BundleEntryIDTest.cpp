//===- BundleEntryIDTest.cpp - Target IDs, parsed and compared once -------===//

#include "format/BundleEntryID.h"

#include "gtest/gtest.h"

#include <string>

using namespace llvm;
using namespace offload;

namespace {

TargetID parsed(StringRef Text) { return cantFail(TargetID::parse(Text)); }

TEST(TargetIDTest, ParsesProcessorAndSortsFeatures) {
  TargetID ID = parsed("gfx90a:xnack-:sramecc+");
  EXPECT_EQ(ID.Processor, "gfx90a");
  EXPECT_EQ(ID.str(), "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(ID.feature("sramecc"), true);
  EXPECT_EQ(ID.feature("xnack"), false);
  EXPECT_EQ(ID.feature("other"), std::nullopt);
}

TEST(TargetIDTest, RejectsMalformedIDs) {
  for (StringRef Bad : {"", ":xnack+", "gfx90a:xnack", "gfx90a:+",
                        "gfx90a:xnack+:xnack-"}) {
    Expected<TargetID> ID = TargetID::parse(Bad);
    EXPECT_FALSE(static_cast<bool>(ID)) << Bad.str();
    consumeError(ID.takeError());
  }
}

TEST(TargetIDTest, SetsSameFeatures) {
  EXPECT_TRUE(
      parsed("gfx90a:xnack+").setsSameFeatures(parsed("gfx90a:xnack-")));
  EXPECT_TRUE(parsed("gfx90a").setsSameFeatures(parsed("gfx90a")));
  EXPECT_FALSE(parsed("gfx90a").setsSameFeatures(parsed("gfx90a:xnack+")));
  EXPECT_FALSE(parsed("gfx90a:sramecc+")
                   .setsSameFeatures(parsed("gfx90a:sramecc+:xnack+")));
  EXPECT_FALSE(
      parsed("gfx90a:sramecc+").setsSameFeatures(parsed("gfx90a:xnack+")));
}

TEST(TargetIDTest, FeatureSetOtherwise) {
  TargetID XnackOn = parsed("gfx90a:xnack+");
  EXPECT_EQ(XnackOn.featureSetOtherwise(parsed("gfx90a:xnack-")), "xnack");
  EXPECT_EQ(parsed("gfx90a:sramecc-:xnack+")
                .featureSetOtherwise(parsed("gfx90a:sramecc+:xnack-")),
            "sramecc");
  EXPECT_EQ(XnackOn.featureSetOtherwise(parsed("gfx90a")), std::nullopt);
  EXPECT_EQ(XnackOn.featureSetOtherwise(XnackOn), std::nullopt);
}

TEST(TargetIDTest, SetFeatureKeepsFeaturesSorted) {
  TargetID ID;
  ID.Processor = "gfx90a";
  ID.setFeature("xnack", false);
  ID.setFeature("sramecc", true);
  EXPECT_EQ(ID.str(), "gfx90a:sramecc+:xnack-");
  ID.setFeature("xnack", true);
  EXPECT_EQ(ID.str(), "gfx90a:sramecc+:xnack+");
  EXPECT_EQ(ID.str(), parsed("gfx90a:xnack+:sramecc+").str());
}

TEST(TargetIDTest, CompatibleWhenEveryFeatureSetAgrees) {
  EXPECT_TRUE(isTargetIDCompatible(parsed("gfx90a"), parsed("gfx90a:xnack+")));
  EXPECT_TRUE(
      isTargetIDCompatible(parsed("gfx90a:xnack+"), parsed("gfx90a:xnack+")));
  EXPECT_FALSE(
      isTargetIDCompatible(parsed("gfx90a:xnack+"), parsed("gfx90a:xnack-")));
  EXPECT_FALSE(isTargetIDCompatible(parsed("gfx90a:xnack+"), parsed("gfx90a")));
  EXPECT_FALSE(isTargetIDCompatible(parsed("gfx908"), parsed("gfx90a")));
}

TEST(TargetIDTest, ConflictsAsTheBundlerFindsThem) {
  using Pair = std::pair<std::string, std::string>;
  // Sorted, "gfx90a" comes first and leaves xnack unset.
  EXPECT_EQ(findConflictingTargetIDs({"gfx90a:xnack+", "gfx90a"}),
            Pair("gfx90a", "gfx90a:xnack+"));
  // Whole entry IDs: the processor is all before the first ':'.
  EXPECT_EQ(findConflictingTargetIDs({"hip-amdgcn-amd-amdhsa--gfx90a",
                                      "hip-amdgcn-amd-amdhsa--gfx90a:xnack-"}),
            Pair("hip-amdgcn-amd-amdhsa--gfx90a",
                 "hip-amdgcn-amd-amdhsa--gfx90a:xnack-"));
  // The first of a processor sets a feature the later one leaves unset, or
  // sets it the other way: no conflict.
  EXPECT_EQ(findConflictingTargetIDs({"gfx90a:xnack+", "gfx90a:xnack-"}),
            std::nullopt);
  EXPECT_EQ(findConflictingTargetIDs({"gfx90a:sramecc+:xnack+",
                                      "gfx90a:xnack-"}),
            std::nullopt);
  // Other processors, duplicates and malformed IDs (skipped) do not
  // conflict.
  EXPECT_EQ(findConflictingTargetIDs({"gfx908", "gfx90a:xnack+",
                                      "gfx90a:xnack+"}),
            std::nullopt);
  EXPECT_EQ(findConflictingTargetIDs({"gfx90a", "gfx90a:xnack"}),
            std::nullopt);
  EXPECT_EQ(findConflictingTargetIDs({"gfx90a", "gfx90a:xnack+:xnack-"}),
            std::nullopt);
}

} // namespace

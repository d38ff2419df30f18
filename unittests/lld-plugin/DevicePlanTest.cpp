//===- unittests/lld-plugin/DevicePlanTest.cpp ----------------------------===//
//
// Which device links planDeviceLinks makes of AMDGPU images of several target
// IDs of one processor, and which images each takes: a table of cases, each
// images in link order and the links (or the error) they give.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DevicePlan.h"

#include "unittests/ErrorMatchers.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

struct PlanCase {
  const char *Name;
  /// The images' archs (target IDs), in link order; every image is HIP
  /// bitcode for amdgcn-amd-amdhsa, named "i<N>.o".
  std::vector<const char *> Archs;
  /// Each link as "<arch>: <image numbers>", in plan order; or, when it
  /// starts with "error: ", a part of the error message.
  std::vector<std::string> Expected;
};

std::ostream &operator<<(std::ostream &OS, const PlanCase &C) {
  return OS << C.Name;
}

std::vector<DeviceImage> makeImages(ArrayRef<const char *> Archs) {
  std::vector<DeviceImage> Images;
  for (auto [N, Arch] : enumerate(Archs)) {
    DeviceImage Image;
    Image.Image.TheImageKind = ImageKind::Bitcode;
    Image.Image.TheOffloadKind = OffloadKind::HIP;
    Image.Image.Strings = {{"triple", "amdgcn-amd-amdhsa"}, {"arch", Arch}};
    Image.Input = "i" + std::to_string(N) + ".o";
    Image.Where = Image.Input + ":.llvm.offloading+0x0";
    Images.push_back(std::move(Image));
  }
  return Images;
}

class DevicePlanTest : public ::testing::TestWithParam<PlanCase> {};

TEST_P(DevicePlanTest, LinksPerCompleteTargetID) {
  const PlanCase &C = GetParam();
  std::vector<DeviceImage> Images = makeImages(C.Archs);
  Expected<std::vector<DeviceLinkJob>> Jobs = planDeviceLinks(Images);
  if (!C.Expected.empty() && StringRef(C.Expected[0]).starts_with("error: ")) {
    EXPECT_NE(errorMessage(std::move(Jobs))
                  .find(StringRef(C.Expected[0]).drop_front(7).str()),
              std::string::npos);
    return;
  }
  std::vector<std::string> Got;
  for (const DeviceLinkJob &Job : takeOrFail(std::move(Jobs))) {
    SmallVector<std::string, 4> Members;
    for (const DeviceImage *Image : Job.Images)
      Members.push_back(std::to_string(Image - Images.data()));
    Got.push_back(Job.Arch + ": " + join(Members, " "));
    EXPECT_TRUE(Job.NeedsLTO);
    EXPECT_EQ(Job.name(), "hip-amdgcn-amd-amdhsa-" + Job.Arch);
    // ':' and '+' are kept in work file names, as clang-linker-wrapper
    // keeps them.
    bool Changed = true;
    EXPECT_EQ(Job.fileName(&Changed), Job.name());
    EXPECT_FALSE(Changed);
  }
  EXPECT_EQ(Got, C.Expected);
}

const PlanCase Cases[] = {
    {"OneLinkPerTargetID",
     {"gfx90a:xnack+", "gfx90a:xnack-", "gfx942:sramecc+", "gfx90a:xnack+",
      "gfx90a:xnack-", "gfx942:sramecc+"},
     {"gfx90a:xnack+: 0 3", "gfx90a:xnack-: 1 4", "gfx942:sramecc+: 2 5"}},
    // A plain image joins both links of its processor and gets none of its
    // own: a "gfx90a" code object would serve the devices the other two
    // serve, without their code.
    {"PlainJoinsBoth",
     {"gfx90a", "gfx90a:xnack+", "gfx90a:xnack-"},
     {"gfx90a:xnack+: 0 1", "gfx90a:xnack-: 0 2"}},
    // Links come in the order of the first image that tells them apart.
    {"OrderOfTheSpecificImages",
     {"gfx90a", "gfx90a:xnack-", "gfx90a:xnack+"},
     {"gfx90a:xnack-: 0 1", "gfx90a:xnack+: 0 2"}},
    {"PlainLastJoinsBoth",
     {"gfx90a:xnack+", "gfx90a:xnack-", "gfx90a"},
     {"gfx90a:xnack+: 0 2", "gfx90a:xnack-: 1 2"}},
    // No image names xnack-: there is no link for it.
    {"PlainAndOneSetting", {"gfx90a", "gfx90a:xnack+"}, {"gfx90a:xnack+: 0 1"}},
    {"PlainOnly", {"gfx90a", "gfx90a"}, {"gfx90a: 0 1"}},
    {"ProcessorsApart",
     {"gfx90a", "gfx1100", "gfx942"},
     {"gfx90a: 0", "gfx1100: 1", "gfx942: 2"}},
    // Images that set different features go together.
    {"FeaturesMerge",
     {"gfx90a:xnack+", "gfx90a:sramecc+"},
     {"gfx90a:sramecc+:xnack+: 0 1"}},
    {"TwoFeaturesBothWays",
     {"gfx90a:sramecc+:xnack+", "gfx90a:sramecc-:xnack-", "gfx90a",
      "gfx90a:xnack-"},
     {"gfx90a:sramecc+:xnack+: 0 2", "gfx90a:sramecc-:xnack-: 1 2 3"}},
    {"OneFeatureUnderTheOther",
     {"gfx90a:sramecc+", "gfx90a:xnack+", "gfx90a:xnack-"},
     {"gfx90a:sramecc+:xnack+: 0 1", "gfx90a:sramecc+:xnack-: 0 2"}},
    // Written in another order, the same target ID and link.
    {"Canonical",
     {"gfx90a:xnack-:sramecc+", "gfx90a:sramecc+:xnack-"},
     {"gfx90a:sramecc+:xnack-: 0 1"}},
    // Image 0 leaves sramecc unset; the only image that sets it sets xnack
    // the other way.
    {"NeedsBothSettings",
     {"gfx90a:xnack+", "gfx90a:sramecc+:xnack-"},
     {"error: i0.o:.llvm.offloading+0x0: device image hip amdgcn-amd-amdhsa "
      "gfx90a:xnack+ (bc): no device link of gfx90a can take it: every link "
      "of gfx90a sets sramecc, which this image leaves unset, and the images "
      "that set sramecc (i1.o:.llvm.offloading+0x0 has hip amdgcn-amd-amdhsa "
      "gfx90a:sramecc+:xnack- (bc)) set xnack the other way; one link would "
      "need both settings of xnack"}},
    {"Malformed",
     {"gfx90a:xnack"},
     {"error: i0.o:.llvm.offloading+0x0: device image hip amdgcn-amd-amdhsa "
      "gfx90a:xnack (bc): target ID 'gfx90a:xnack': feature 'xnack' must end "
      "in '+' or '-'"}},
    {"Twice", {"gfx90a:xnack+:xnack-"}, {"error: 'xnack' appears twice"}},
    {"UnknownProcessor",
     {"gfx9999"},
     {"error: 'gfx9999' is not an AMDGPU processor LLVM knows"}},
    {"UnknownFeature",
     {"gfx90a:tgsplit+"},
     {"error: target ID feature 'tgsplit' is not one gfx90a has (it has "
      "sramecc, xnack)"}},
    {"FeatureTheProcessorLacks",
     {"gfx1100:xnack+"},
     {"error: target ID feature 'xnack' is not one gfx1100 has (it has "
      "none)"}},
};

INSTANTIATE_TEST_SUITE_P(TargetIDs, DevicePlanTest, ::testing::ValuesIn(Cases),
                         [](const ::testing::TestParamInfo<PlanCase> &Info) {
                           return std::string(Info.param.Name);
                         });

// Other triples keep one link per arch, a generic image joining each.
TEST(DevicePlan, CPUArchsAndGeneric) {
  std::vector<DeviceImage> Images = makeImages({"generic", "znver4"});
  for (DeviceImage &Image : Images) {
    Image.Image.TheOffloadKind = OffloadKind::OpenMP;
    Image.Image.Strings[0].second = "x86_64-pc-linux-gnu";
  }
  std::vector<DeviceLinkJob> Jobs = takeOrFail(planDeviceLinks(Images));
  ASSERT_EQ(Jobs.size(), 1u);
  EXPECT_EQ(Jobs[0].Arch, "znver4");
  EXPECT_EQ(Jobs[0].Images.size(), 2u);
}

// Which images archive extraction considers linked together.
TEST(DevicePlan, MayShareDeviceLink) {
  Triple AMD("amdgcn-amd-amdhsa"), X86("x86_64-pc-linux-gnu");
  EXPECT_TRUE(mayShareDeviceLink(AMD, "gfx90a", "gfx90a:xnack+"));
  EXPECT_TRUE(mayShareDeviceLink(AMD, "gfx90a:sramecc+", "gfx90a:xnack-"));
  EXPECT_FALSE(mayShareDeviceLink(AMD, "gfx90a:xnack+", "gfx90a:xnack-"));
  EXPECT_FALSE(mayShareDeviceLink(AMD, "gfx90a", "gfx942"));
  EXPECT_TRUE(mayShareDeviceLink(X86, "generic", "znver4"));
  EXPECT_FALSE(mayShareDeviceLink(X86, "znver3", "znver4"));
}

} // namespace

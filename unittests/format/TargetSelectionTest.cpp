//===- TargetSelectionTest.cpp - Which images a request keeps -------------===//
//
// The rule as one table: a request, a container's images, and which of them
// are kept.
//
//===----------------------------------------------------------------------===//

#include "format/TargetSelection.h"
#include "unittests/ErrorMatchers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/TargetParser.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace offload;

namespace {

constexpr const char *AMD = "amdgcn-amd-amdhsa";
constexpr const char *NV = "nvptx64-nvidia-cuda";
constexpr const char *X86 = "x86_64-unknown-linux-gnu";

/// An image: "<triple> <target ID>[ ptx]".
SelectableImage image(StringRef Spec) {
  SmallVector<StringRef, 3> Parts;
  Spec.split(Parts, ' ');
  SelectableImage Image;
  Image.TargetTriple = Triple(Parts[0]);
  Image.TargetIDText = Parts.size() > 1 ? Parts[1].str() : "";
  Image.Kind = Parts.size() > 2 && Parts[2] == "ptx" ? ImageKind::PTX
                                                     : ImageKind::Bitcode;
  return Image;
}

std::vector<std::string> split(StringRef List) {
  SmallVector<StringRef, 4> Parts;
  List.split(Parts, ',', -1, /*KeepEmpty=*/false);
  return {Parts.begin(), Parts.end()};
}

struct Case {
  const char *Archs;   // --offload-arch, comma-separated
  const char *Triples; // --offload-targets
  bool KeepPTX;
  std::vector<std::string> Images;
  /// The kept images, by index, as a string of digits.
  const char *Kept;
};

std::string amd(const char *ID) { return std::string(AMD) + " " + ID; }
std::string nv(const char *ID) { return std::string(NV) + " " + ID; }

TEST(TargetSelectionTest, Table) {
  // clang-format off
  const std::vector<Case> Cases = {
      // A processor without features keeps all of its images.
      {"gfx90a", "", false,
       {amd("gfx90a"), amd("gfx90a:xnack+"), amd("gfx90a:xnack-"),
        amd("gfx1030")},
       "012"},
      // With features: the bundler's compatible images, never a conflict.
      {"gfx90a:xnack+", "", false,
       {amd("gfx90a"), amd("gfx90a:xnack+"), amd("gfx90a:xnack-")},
       "01"},
      {"gfx90a:sramecc+:xnack+", "", false,
       {amd("gfx90a:xnack+"), amd("gfx90a:sramecc-"),
        amd("gfx90a:sramecc+:xnack+"), amd("gfx90a:xnack-")},
       "02"},
      {"gfx90a:xnack+", "", false, {amd("gfx90a:sramecc+:xnack+")}, ""},
      // Several archs.
      {"gfx90a,gfx1030", "", false,
       {amd("gfx90a"), amd("gfx1030"), amd("gfx1100")},
       "01"},
      // Generic images serve members without an image of their own.
      {"gfx906", "", false, {amd("gfx9-generic"), amd("gfx906")}, "1"},
      {"gfx906", "", false, {amd("gfx9-generic"), amd("gfx90a")}, "0"},
      {"gfx1101", "", false,
       {amd("gfx11-generic"), amd("gfx12-generic"), amd("gfx10-3-generic")},
       "0"},
      {"gfx942", "", false, {amd("gfx9-generic"), amd("gfx9-4-generic")}, "1"},
      {"gfx1031", "", false,
       {amd("gfx10-1-generic"), amd("gfx10-3-generic")}, "1"},
      {"gfx1012", "", false, {amd("gfx10-1-generic")}, "0"},
      {"gfx1201", "", false, {amd("gfx12-generic")}, "0"},
      // gfx90a and gfx908 are in no generic family.
      {"gfx90a", "", false, {amd("gfx9-generic")}, ""},
      // A conflicting specific image is no image for the request: the
      // generic one serves, with its features checked the same way.
      {"gfx906:xnack+", "", false,
       {amd("gfx906:xnack-"), amd("gfx9-generic:xnack+")},
       "1"},
      {"gfx906:xnack+", "", false, {amd("gfx9-generic:xnack-")}, ""},
      // The generic target named keeps the generic images only.
      {"gfx9-generic", "", false,
       {amd("gfx9-generic"), amd("gfx906"), amd("gfx9-generic:xnack-")},
       "02"},
      // CUDA: the arch's images; the newest PTX on request.
      {"sm_90", "", false,
       {nv("sm_90"), nv("sm_80"), nv("sm_90 ptx"), nv("sm_100 ptx")},
       "02"},
      {"sm_90", "", true,
       {nv("sm_90"), nv("sm_80"), nv("sm_80 ptx"), nv("sm_100 ptx"),
        nv("sm_75 ptx")},
       "03"},
      {"sm_80", "", true, {nv("sm_80"), nv("sm_90a ptx")}, "01"},
      // Triples alone keep everything of theirs.
      {"", "amdgcn-amd-amdhsa", false,
       {amd("gfx90a"), nv("sm_90"), std::string(X86)},
       "0"},
      {"", "x86_64-unknown-linux-gnu,nvptx64-nvidia-cuda", false,
       {amd("gfx90a"), nv("sm_90"), std::string(X86)},
       "12"},
      // Both: the archs speak for their triples, the others keep all.
      {"gfx90a", "amdgcn-amd-amdhsa,x86_64-unknown-linux-gnu", false,
       {amd("gfx90a"), amd("gfx1030"), std::string(X86), nv("sm_90")},
       "02"},
      {"sm_90", "amdgcn-amd-amdhsa", false, {amd("gfx90a"), nv("sm_90")},
       "0"},
      // Bundle entry triples (four fields, empty environment) match.
      {"", "amdgcn-amd-amdhsa", false, {"amdgcn-amd-amdhsa- gfx90a"}, "0"},
      // A target ID that does not parse matches nothing.
      {"gfx90a", "", false, {amd("gfx90a:xnack"), amd("")}, ""},
  };
  // clang-format on
  for (const Case &C : Cases) {
    Expected<TargetRequest> Request =
        TargetRequest::create(split(C.Archs), split(C.Triples), C.KeepPTX);
    ASSERT_TRUE(succeeded(Request.takeError()));
    std::vector<SelectableImage> Images;
    for (const std::string &Spec : C.Images)
      Images.push_back(image(Spec));
    ImageSelection Selection = selectImages(*Request, Images);
    std::string Kept;
    for (size_t I = 0; I < Images.size(); ++I)
      if (Selection.isKept(I))
        Kept += char('0' + I);
    EXPECT_EQ(Kept, C.Kept)
        << "archs '" << C.Archs << "', triples '" << C.Triples
        << "', images: " << join(C.Images, "; ");
    EXPECT_EQ(Selection.numKept(), Kept.size());
  }
}

TEST(TargetSelectionTest, TellsWhyAndWhichArchsWereUsed) {
  TargetRequest Request =
      cantFail(TargetRequest::create({"gfx906", "gfx1030"}, {}, true));
  std::vector<SelectableImage> Images = {image(amd("gfx9-generic")),
                                         image(nv("sm_90 ptx"))};
  ImageSelection Selection = selectImages(Request, Images);
  EXPECT_EQ(Selection.Reasons[0], SelectReason::GenericForMember);
  EXPECT_EQ(Selection.Reasons[1], SelectReason::NewestPTX);
  EXPECT_EQ(Selection.ArchUsed, (std::vector<bool>{true, false}));
  EXPECT_EQ(describeSelectReason(SelectReason::GenericForMember), "generic");
}

TEST(TargetSelectionTest, GenericTableMatchesLLVM) {
  // Every generic target is one LLVM knows, and so is every member but the
  // two LLVM 20 retired.
  for (StringRef Generic :
       {"gfx9-generic", "gfx9-4-generic", "gfx10-1-generic", "gfx10-3-generic",
        "gfx11-generic", "gfx12-generic"}) {
    EXPECT_NE(AMDGPU::parseArchAMDGCN(Generic), AMDGPU::GK_NONE)
        << Generic.str();
    std::vector<StringRef> Members = getAMDGPUGenericMembers(Generic);
    EXPECT_FALSE(Members.empty()) << Generic.str();
    for (StringRef Member : Members) {
      EXPECT_EQ(getAMDGPUGenericTarget(Member), Generic);
      if (Member != "gfx940" && Member != "gfx941") {
        EXPECT_NE(AMDGPU::parseArchAMDGCN(Member), AMDGPU::GK_NONE)
            << Member.str();
      }
    }
  }
  EXPECT_EQ(getAMDGPUGenericTarget("gfx90a"), "");
  EXPECT_EQ(getAMDGPUGenericTarget("gfx908"), "");
  EXPECT_TRUE(getAMDGPUGenericMembers("gfx906").empty());
}

TEST(TargetSelectionTest, RejectsBadRequests) {
  EXPECT_EQ(errorMessage(TargetRequest::create({}, {}).takeError()),
            "no target requested: give --offload-arch= or --offload-targets=");
  EXPECT_EQ(
      errorMessage(TargetRequest::create({"gfx90a:xnack"}, {}).takeError()),
      "target ID 'gfx90a:xnack': feature 'xnack' must end in '+' or '-'");
  EXPECT_EQ(
      errorMessage(TargetRequest::create({}, {"foo-bar-baz"}).takeError()),
      "'foo-bar-baz' in --offload-targets is not a target triple LLVM "
      "knows");
}

} // namespace

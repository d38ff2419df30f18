//===- unittests/lld-plugin/NVPTXLinkRequestTest.cpp ----------------------===//
//
// The request file an NVPTX link worker reads: what is written is read back
// field for field, paths byte for byte; a file that is not a whole request
// is an error naming it.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/NVPTXLinkRequest.h"

#include "unittests/ErrorMatchers.h"
#include "unittests/TestDirectory.h"

#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace offload;

namespace {

/// Each test's files in a directory of their own.
class NVPTXLinkRequestTest : public ::testing::Test {
protected:
  std::string path(StringRef Name) const { return Dir.path(Name); }
  std::string write(StringRef Name, StringRef Data) const {
    return Dir.write(Name, Data);
  }
  static std::string read(StringRef Path) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(Path);
    EXPECT_TRUE(bool(File));
    return File ? (*File)->getBuffer().str() : "";
  }

  static NVPTXLinkRequest example() {
    NVPTXLinkRequest R;
    R.CudaPath = "/opt/cuda 12";
    R.Arch = "sm_90";
    R.Output = "/tmp/w/cuda-nvptx64-nvidia-cuda-sm_90.cubin";
    // Not UTF-8, and what a command line would have taken for an option.
    R.Inputs = {"/tmp/w/a.0.bc", std::string("/tmp/w/\xff\xfe.1.cubin"), "-o"};
    R.Libraries = {"/lib/libdevice.10.bc", "/lib/libompdevice.a"};
    R.NVLinkArgs = {"--verbose", ""};
    return R;
  }

  TestDirectory Dir{"nvptx-request-test"};
};

void expectSame(const NVPTXLinkRequest &A, const NVPTXLinkRequest &B) {
  EXPECT_EQ(A.CudaPath, B.CudaPath);
  EXPECT_EQ(A.Arch, B.Arch);
  EXPECT_EQ(A.Output, B.Output);
  EXPECT_EQ(A.Inputs, B.Inputs);
  EXPECT_EQ(A.Libraries, B.Libraries);
  EXPECT_EQ(A.NVLinkArgs, B.NVLinkArgs);
  EXPECT_EQ(A.Given, B.Given);
}

TEST_F(NVPTXLinkRequestTest, RoundTrip) {
  NVPTXLinkRequest R = example();
  std::string File = path("r.nvptx-request");
  ASSERT_TRUE(succeeded(writeNVPTXLinkRequest(R, File)));
  expectSame(takeOrFail(readNVPTXLinkRequest(File)), R);

  // Empty lists and an empty CUDA path go through too.
  R.CudaPath.clear();
  R.Libraries.clear();
  R.NVLinkArgs.clear();
  ASSERT_TRUE(succeeded(writeNVPTXLinkRequest(R, File)));
  expectSame(takeOrFail(readNVPTXLinkRequest(File)), R);

  // How far a distributor took it goes through too.
  for (NVPTXLinkRequest::Stage Given :
       {NVPTXLinkRequest::Stage::PTX, NVPTXLinkRequest::Stage::Cubin}) {
    R.Given = Given;
    ASSERT_TRUE(succeeded(writeNVPTXLinkRequest(R, File)));
    expectSame(takeOrFail(readNVPTXLinkRequest(File)), R);
  }
}

TEST_F(NVPTXLinkRequestTest, CutShortIsAnErrorNamingTheFile) {
  std::string Whole = path("whole");
  ASSERT_TRUE(succeeded(writeNVPTXLinkRequest(example(), Whole)));
  std::string Data = read(Whole);
  ASSERT_GT(Data.size(), 2u);
  // Every cut, down to an empty file.
  for (size_t Size = 0; Size < Data.size(); ++Size) {
    std::string File = write("cut", StringRef(Data).take_front(Size));
    std::string Msg = errorMessage(readNVPTXLinkRequest(File));
    EXPECT_NE(Msg.find(File + ": malformed NVPTX link request"),
              std::string::npos)
        << "at " << Size << " bytes: " << Msg;
  }
}

TEST_F(NVPTXLinkRequestTest, OtherFilesAreErrors) {
  std::string Missing = path("missing");
  std::string Msg = errorMessage(readNVPTXLinkRequest(Missing));
  EXPECT_NE(Msg.find(Missing + ": cannot read the NVPTX link request"),
            std::string::npos)
      << Msg;

  std::string Text = write("text", "--arch=sm_90 -o out a.bc\n");
  Msg = errorMessage(readNVPTXLinkRequest(Text));
  EXPECT_NE(Msg.find(Text + ": malformed NVPTX link request"),
            std::string::npos)
      << Msg;

  // MessagePack, but not a request: another map, a request of another
  // version, one with a field of the wrong type, one without inputs.
  auto Doc =
      [&](StringRef Name,
          function_ref<void(msgpack::Document &, msgpack::MapDocNode &)> Edit) {
        std::string File = path(Name);
        EXPECT_TRUE(succeeded(writeNVPTXLinkRequest(example(), File)));
        std::string Blob = read(File);
        msgpack::Document D;
        EXPECT_TRUE(D.readFromBlob(Blob, /*Multi=*/false));
        msgpack::MapDocNode Map = D.getRoot().getMap();
        Edit(D, Map);
        std::string Out;
        D.writeToBlob(Out);
        write(Name, Out);
        return errorMessage(readNVPTXLinkRequest(File));
      };
  Msg = Doc("kind", [](msgpack::Document &D, msgpack::MapDocNode &M) {
    M["request"] = D.getNode("something else");
  });
  EXPECT_NE(Msg.find(path("kind") + ": malformed NVPTX link request: not a "
                                    "version 2 request"),
            std::string::npos)
      << Msg;
  Msg = Doc("version", [](msgpack::Document &D, msgpack::MapDocNode &M) {
    M["version"] = D.getNode(uint64_t(1));
  });
  EXPECT_NE(Msg.find("not a version 2 request"), std::string::npos) << Msg;
  Msg = Doc("arch", [](msgpack::Document &D, msgpack::MapDocNode &M) {
    M["arch"] = D.getNode(uint64_t(90));
  });
  EXPECT_NE(Msg.find(path("arch") + ": malformed NVPTX link request: 'arch' "
                                    "is missing or not a string"),
            std::string::npos)
      << Msg;
  Msg = Doc("libs", [](msgpack::Document &D, msgpack::MapDocNode &M) {
    msgpack::ArrayDocNode A = D.getArrayNode();
    A.push_back(D.getNode(true));
    M["libraries"] = A;
  });
  EXPECT_NE(Msg.find("'libraries' holds something other than strings"),
            std::string::npos)
      << Msg;
  Msg = Doc("given", [](msgpack::Document &D, msgpack::MapDocNode &M) {
    M["given"] = D.getNode(uint64_t(3));
  });
  EXPECT_NE(Msg.find("'given' is not a stage of an NVPTX link"),
            std::string::npos)
      << Msg;
  Msg = Doc("inputs", [](msgpack::Document &D, msgpack::MapDocNode &M) {
    M["inputs"] = D.getArrayNode();
  });
  EXPECT_NE(Msg.find("needs an arch, an output and inputs"), std::string::npos)
      << Msg;
}

TEST_F(NVPTXLinkRequestTest, StepsAreTheCommandsRun) {
  NVPTXLinkRequest R;
  R.CudaPath = "/cuda";
  R.Arch = "sm_80";
  R.Output = path("out.cubin");
  // Bitcode goes to LTO, the cubin to nvlink, after LTO's.
  R.Inputs = {write("a.bc", StringRef("BC\xC0\xDE\x35\x14\x00\x00", 8)),
              write("b.cubin", "\x7f"
                               "ELF")};
  R.Libraries = {"/lib/libdevice.bc"};
  R.NVLinkArgs = {"--verbose"};
  std::vector<NVPTXLinkRequest::Step> Steps = R.steps();
  ASSERT_EQ(Steps.size(), 3u);
  EXPECT_EQ(Steps[0].Program, "LTO");
  EXPECT_EQ(Steps[0].Args,
            (std::vector<std::string>{"-mcpu=sm_80", "-o", R.ptxFile(),
                                      R.Inputs[0], "--lib=/lib/libdevice.bc"}));
  EXPECT_EQ(Steps[1].Program, "/cuda/bin/ptxas");
  EXPECT_EQ(Steps[1].Args, R.ptxasArgs());
  EXPECT_EQ(Steps[2].Program, "/cuda/bin/nvlink");
  EXPECT_EQ(Steps[2].Args, (std::vector<std::string>{
                               "-arch=sm_80", "-o", R.Output, R.ltoCubinFile(),
                               R.Inputs[1], "--verbose"}));

  // What a distributor's machines did is not run again: after the PTX,
  // ptxas and nvlink; after the cubin, nvlink.
  R.Given = NVPTXLinkRequest::Stage::PTX;
  Steps = R.steps();
  ASSERT_EQ(Steps.size(), 2u);
  EXPECT_EQ(Steps[0].Program, "/cuda/bin/ptxas");
  EXPECT_EQ(Steps[1].Program, "/cuda/bin/nvlink");
  R.Given = NVPTXLinkRequest::Stage::Cubin;
  Steps = R.steps();
  ASSERT_EQ(Steps.size(), 1u);
  EXPECT_EQ(Steps[0].Program, "/cuda/bin/nvlink");
  EXPECT_EQ(Steps[0].Args[3], R.ltoCubinFile());
}

} // namespace

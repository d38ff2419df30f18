//===- CubinResourcesPtxasTest.cpp - Cubin resources against ptxas -v -----===//
//
// Assembles PTX kernels with the CUDA toolkit's ptxas (from $CUDA_PATH, else
// /usr/local/cuda; skipped without it) for several SMs, as executables and as
// relocatable cubins (-c), and checks that readCubinResources() finds what
// `ptxas -v` reports for every kernel: registers, barriers, smem, cmem[0],
// stack frame and cumulative stack size. The toolkit this was written with
// (CUDA 13.0) has no cuobjdump or nvdisasm, so ptxas's own report is the
// reference.
//
//===----------------------------------------------------------------------===//

#include "format/CubinResources.h"

#include "../ErrorMatchers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;
using namespace offload;

namespace {

/// Values a kernel of heavy register pressure loads before using any.
constexpr unsigned PressureValues = 64;

/// A kernel that loads PressureValues floats and only then combines them,
/// so that all are live at once: 60-odd registers, or spills under a limit.
std::string pressureKernel(StringRef Name, StringRef Directives) {
  std::string S;
  raw_string_ostream OS(S);
  unsigned Sum = 2 * PressureValues;
  OS << ".visible .entry " << Name << "(.param .u64 out, .param .u64 in) "
     << Directives << "\n{\n"
     << "  .reg .f32 %f<" << Sum + 1 << ">;\n"
     << "  .reg .b64 %rd<3>;\n"
     << "  ld.param.u64 %rd1, [in];\n"
     << "  cvta.to.global.u64 %rd1, %rd1;\n"
     << "  ld.param.u64 %rd2, [out];\n"
     << "  cvta.to.global.u64 %rd2, %rd2;\n";
  for (unsigned I = 0; I < PressureValues; ++I)
    OS << "  ld.global.volatile.f32 %f" << I << ", [%rd1+" << 4 * I << "];\n";
  OS << "  mov.f32 %f" << Sum << ", 0f00000000;\n";
  for (unsigned I = 0; I < PressureValues; ++I)
    OS << "  fma.rn.f32 %f" << Sum << ", %f" << I << ", %f"
       << PressureValues - 1 - I << ", %f" << Sum << ";\n";
  for (unsigned I = 0; I < PressureValues; ++I)
    OS << "  add.f32 %f" << Sum << ", %f" << Sum << ", %f" << I << ";\n";
  OS << "  st.global.f32 [%rd2], %f" << Sum << ";\n  ret;\n}\n\n";
  return S;
}

/// The kernels: a 16 KiB shared array with a barrier; register pressure
/// under __launch_bounds__(128) (.maxntid); the same under a 32-register
/// limit, so that it spills; a dynamically indexed 1 KiB local array (a
/// stack frame); a call to a function with a frame of its own (a cumulative
/// stack) under .reqntid; and a trivial kernel with a mangled name.
std::string testPTX() {
  return R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry shared_big(.param .u64 out)
{
  .shared .align 4 .b8 buf[16384];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  bar.sync 0;
  ld.shared.u32 %r1, [%r3+4];
  cvt.u64.u32 %rd2, %r2;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}

)" + pressureKernel("bounded", ".maxntid 128, 1, 1") +
         pressureKernel("spills", ".maxnreg 32") + R"(
.visible .entry local_frame(.param .u64 out, .param .u32 k)
{
  .local .align 4 .b8 arr[1024];
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  .reg .pred %p;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r1, [k];
  mov.u64 %rd2, arr;
  mov.u32 %r2, 0;
fill:
  mul.lo.u32 %r3, %r2, %r1;
  mul.wide.u32 %rd3, %r2, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.local.u32 [%rd4], %r3;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p, %r2, 256;
  @%p bra fill;
  mov.u32 %r4, %tid.x;
  mul.lo.u32 %r4, %r4, %r1;
  and.b32 %r4, %r4, 255;
  mul.wide.u32 %rd3, %r4, 4;
  add.u64 %rd4, %rd2, %rd3;
  ld.local.u32 %r5, [%rd4];
  st.global.u32 [%rd1], %r5;
  ret;
}

.func (.param .b32 ret) helper(.param .b32 k)
{
  .local .align 4 .b8 tmp[256];
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [k];
  mov.u64 %rd1, tmp;
  and.b32 %r2, %r1, 63;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.local.u32 [%rd3], %r1;
  xor.b32 %r3, %r2, 7;
  mul.wide.u32 %rd2, %r3, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.local.u32 %r4, [%rd3];
  st.param.b32 [ret], %r4;
  ret;
}

.visible .entry calls(.param .u64 out, .param .u32 k) .reqntid 64, 2, 1
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r1, [k];
  {
    .param .b32 a;
    .param .b32 r;
    st.param.b32 [a], %r1;
    call.uni (r), helper, (a);
    ld.param.b32 %r2, [r];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}

.visible .entry _Z4tinyPi(.param .u64 p)
{
  ret;
}
)";
}

/// What `ptxas -v` says about one function.
struct PtxasFigures {
  std::optional<uint64_t> Registers, Barriers, Smem, Cmem0, Cumulative;
  std::optional<uint64_t> StackFrame, SpillStores, SpillLoads;
};

/// "N what" -> N, if \p Piece is that.
std::optional<uint64_t> figure(StringRef Piece, StringRef What) {
  uint64_t N;
  Piece = Piece.trim();
  if (Piece.consume_back(What) && !Piece.trim().getAsInteger(10, N))
    return N;
  return std::nullopt;
}

/// Parses ptxas -v's report: the entry functions it compiled, in order, and
/// the figures of every function.
std::map<std::string, PtxasFigures>
parsePtxasReport(StringRef Log, std::vector<std::string> &Entries) {
  std::map<std::string, PtxasFigures> Out;
  std::string Entry, Function;
  SmallVector<StringRef, 0> Lines;
  Log.split(Lines, '\n');
  for (StringRef Line : Lines) {
    Line = Line.trim();
    StringRef Rest = Line;
    if (Rest.consume_front("ptxas info    : Compiling entry function '")) {
      Entry = Rest.take_until([](char C) { return C == '\''; }).str();
      Entries.push_back(Entry);
    } else if (Rest.consume_front("ptxas info    : Function properties for ")) {
      Function = Rest.str();
    } else if (Line.contains("bytes stack frame")) {
      SmallVector<StringRef, 3> Pieces;
      Line.split(Pieces, ',');
      for (StringRef P : Pieces) {
        PtxasFigures &F = Out[Function];
        if (auto N = figure(P, "bytes stack frame"))
          F.StackFrame = N;
        else if (auto N = figure(P, "bytes spill stores"))
          F.SpillStores = N;
        else if (auto N = figure(P, "bytes spill loads"))
          F.SpillLoads = N;
      }
    } else if (Rest.consume_front("ptxas info    : Used ")) {
      SmallVector<StringRef, 6> Pieces;
      Rest.split(Pieces, ',');
      PtxasFigures &F = Out[Entry];
      for (StringRef P : Pieces) {
        P = P.trim();
        if (auto N = figure(P, "registers"))
          F.Registers = N;
        else if (P.starts_with("used "))
          F.Barriers = figure(P.drop_front(5), "barriers");
        else if (auto N = figure(P, "bytes smem"))
          F.Smem = N;
        else if (auto N = figure(P, "bytes cmem[0]"))
          F.Cmem0 = N;
        else if (auto N = figure(P, "bytes cumulative stack size"))
          F.Cumulative = N;
      }
    }
  }
  return Out;
}

class CubinResourcesPtxasTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Cuda =
        sys::Process::GetEnv("CUDA_PATH").value_or("/usr/local/cuda");
    SmallString<128> P(Cuda);
    sys::path::append(P, "bin", "ptxas");
    if (!sys::fs::can_execute(P))
      GTEST_SKIP() << "no ptxas at " << P.str().str()
                   << " (set CUDA_PATH to a CUDA toolkit)";
    Ptxas = std::string(P);
    ASSERT_FALSE(sys::fs::createUniqueDirectory("cubin-resources", Dir));
    PTXPath = path("kernels.ptx");
    std::error_code EC;
    raw_fd_ostream OS(PTXPath, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << testPTX();
  }

  void TearDown() override {
    if (!Dir.empty())
      sys::fs::remove_directories(Dir);
  }

  std::string path(StringRef File) const {
    SmallString<128> P(Dir);
    sys::path::append(P, File);
    return std::string(P);
  }

  /// Runs ptxas -v for \p Arch (-c if \p Relocatable) and checks the cubin
  /// against its report. False (and a message) if ptxas does not know the
  /// SM.
  bool check(StringRef Arch, bool Relocatable);

  std::string Ptxas;
  SmallString<128> Dir;
  std::string PTXPath;
};

bool CubinResourcesPtxasTest::check(StringRef Arch, bool Relocatable) {
  std::string Mode = Relocatable ? "relocatable" : "executable";
  SCOPED_TRACE(Arch.str() + " " + Mode);
  std::string Cubin = path((Arch + "-" + Mode + ".cubin").str());
  std::string Log = path((Arch + "-" + Mode + ".log").str());
  std::string ArchArg = ("-arch=" + Arch).str();
  SmallVector<StringRef, 8> Args = {Ptxas, ArchArg, "-v"};
  if (Relocatable)
    Args.push_back("-c");
  Args.append({"-o", Cubin, PTXPath});
  std::string ErrMsg;
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Log),
                                          StringRef(Log)};
  int RC = sys::ExecuteAndWait(Ptxas, Args, std::nullopt, Redirects,
                               /*SecondsToWait=*/300, 0, &ErrMsg);
  auto LogBuf = MemoryBuffer::getFile(Log);
  std::string Report = LogBuf ? (*LogBuf)->getBuffer().str() : "";
  if (RC != 0 && StringRef(Report).contains("is not defined for option")) {
    outs() << "note: this ptxas does not know " << Arch << ", not checked\n";
    return false;
  }
  EXPECT_EQ(RC, 0) << ErrMsg << "\n" << Report;
  if (RC != 0)
    return true;

  std::vector<std::string> Entries;
  std::map<std::string, PtxasFigures> Figures =
      parsePtxasReport(Report, Entries);
  auto Buf = MemoryBuffer::getFile(Cubin);
  EXPECT_TRUE(bool(Buf)) << Cubin;
  if (!Buf)
    return true;
  EXPECT_TRUE(isCubin((*Buf)->getBuffer()));
  std::vector<CubinKernelResources> Kernels =
      takeOrFail(readCubinResources((*Buf)->getMemBufferRef()));

  // The same kernels, each with ptxas's figures.
  std::vector<std::string> Names;
  for (const CubinKernelResources &K : Kernels)
    Names.push_back(K.Name);
  llvm::sort(Names);
  llvm::sort(Entries);
  EXPECT_EQ(Names, Entries) << Report;
  std::map<std::string, const CubinKernelResources *> ByName;
  for (const CubinKernelResources &K : Kernels) {
    ByName[K.Name] = &K;
    SCOPED_TRACE(K.Name);
    const PtxasFigures &F = Figures[K.Name];
    EXPECT_EQ(K.Arch, Arch);
    EXPECT_TRUE(F.Registers && F.StackFrame) << Report;
    if (!F.Registers || !F.StackFrame)
      continue;
    EXPECT_EQ(K.Registers, *F.Registers);
    EXPECT_EQ(K.LocalBytes, *F.StackFrame);
    // ptxas leaves out the figures that are 0 (and CUDA 13 cmem[0] from
    // sm_90 on, and older ptxas barriers).
    if (F.Barriers) {
      EXPECT_EQ(K.Barriers, *F.Barriers);
    }
    EXPECT_EQ(K.SharedBytes, F.Smem.value_or(0));
    EXPECT_EQ(K.StackBytes, F.Cumulative.value_or(0));
    if (F.Cmem0) {
      EXPECT_EQ(K.ConstantBytes, *F.Cmem0);
    }
  }

  // The kernels do what they are there for.
  if (ByName.size() != 6)
    return true;
  EXPECT_EQ(ByName["shared_big"]->SharedBytes, 16384u);
  EXPECT_EQ(ByName["shared_big"]->Barriers, 1u);
  const CubinKernelResources &Bounded = *ByName["bounded"];
  EXPECT_EQ(Bounded.MaxThreadsPerBlock, std::optional<uint32_t>(128));
  EXPECT_GT(Bounded.Registers, 32u);
  const CubinKernelResources &Spills = *ByName["spills"];
  EXPECT_GT(Figures["spills"].SpillStores.value_or(0), 0u) << Report;
  EXPECT_GT(Spills.LocalBytes, 0u);
  EXPECT_EQ(Spills.MaxRegisters, std::optional<uint32_t>(32));
  EXPECT_LE(Spills.Registers, 32u);
  EXPECT_FALSE(Spills.MaxThreadsPerBlock);
  EXPECT_GE(ByName["local_frame"]->LocalBytes, 1024u);
  EXPECT_EQ(ByName["calls"]->MaxThreadsPerBlock, std::optional<uint32_t>(128));
  if (!Relocatable) {
    EXPECT_GE(ByName["calls"]->StackBytes, 256u);
  }
  EXPECT_EQ(ByName["_Z4tinyPi"]->SharedBytes, 0u);
  return true;
}

TEST_F(CubinResourcesPtxasTest, FiguresMatchPtxas) {
  // sm_75 and sm_80 keep the old shared memory layout and print cmem[0];
  // sm_90 on reserve 1 KiB of shared memory in executables.
  unsigned Checked = 0;
  for (StringRef Arch : {"sm_75", "sm_80", "sm_90", "sm_100", "sm_120"})
    for (bool Relocatable : {false, true})
      Checked += check(Arch, Relocatable);
  EXPECT_GT(Checked, 0u) << "ptxas knows none of the SMs";
}

} // namespace

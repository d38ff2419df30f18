//===- unittests/format/NvccModuleTest.cpp --------------------------------===//
//
// readCudaFatbinSequence(): the fat binaries of an `ld -r` output's
// __nv_relfatbin, back to back with zero padding to 8 bytes between them.
//
//===----------------------------------------------------------------------===//

#include "format/NvccModule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "gtest/gtest.h"

#include <string>

using namespace llvm;
using namespace offload;

namespace {

template <typename T> void put(std::string &Out, T Value) {
  char Bytes[sizeof(T)];
  support::endian::write<T, llvm::endianness::little>(Bytes, Value);
  Out.append(Bytes, sizeof(T));
}

/// A fat binary of one uncompressed entry of \p Kind for sm_\p Arch holding
/// \p Payload (padded to 8 bytes), as `fatbinary` lays it out.
std::string fatbin(uint16_t Kind, uint32_t Arch, std::string Payload) {
  Payload.resize(alignTo(Payload.size(), 8), '\0');
  std::string Entry;
  put<uint16_t>(Entry, Kind);
  put<uint16_t>(Entry, 0x101);
  put<uint32_t>(Entry, 64);             // header size
  put<uint64_t>(Entry, Payload.size()); // payload size
  put<uint32_t>(Entry, 0);              // compressed size
  put<uint32_t>(Entry, 0);
  put<uint16_t>(Entry, 0); // minor
  put<uint16_t>(Entry, 8); // major
  put<uint32_t>(Entry, Arch);
  put<uint32_t>(Entry, 0); // name offset
  put<uint32_t>(Entry, 0); // name size
  put<uint64_t>(Entry, 0); // flags
  put<uint64_t>(Entry, 0);
  put<uint64_t>(Entry, 0); // uncompressed size
  std::string Out;
  put<uint32_t>(Out, CudaFatbinMagic);
  put<uint16_t>(Out, 1);
  put<uint16_t>(Out, 16);
  put<uint64_t>(Out, Entry.size() + Payload.size());
  return Out + Entry + Payload;
}

TEST(NvccModuleTest, FatbinsBackToBack) {
  std::string A = fatbin(2, 90, std::string(12, 'a'));
  std::string B = fatbin(1, 75, "ptx");
  // A is a multiple of 8 long; pad B's start past a gap of 8 zero bytes.
  std::string Section = A + std::string(8, '\0') + B + std::string(5, '\0');
  Expected<std::vector<CudaFatbin>> Fatbins =
      readCudaFatbinSequence(Section, "x.o:__nv_relfatbin");
  ASSERT_TRUE(bool(Fatbins)) << toString(Fatbins.takeError());
  ASSERT_EQ(Fatbins->size(), 2u);
  EXPECT_EQ((*Fatbins)[0].Entries[0].Arch, 90u);
  EXPECT_EQ((*Fatbins)[1].Entries[0].Arch, 75u);
  // Offsets from the start of the section.
  EXPECT_EQ((*Fatbins)[1].Entries[0].Offset, A.size() + 8 + 16);
}

TEST(NvccModuleTest, BytesBetweenFatbins) {
  std::string A = fatbin(2, 90, "cubin");
  std::string Section = A + std::string("\0\0x", 3);
  Expected<std::vector<CudaFatbin>> Fatbins =
      readCudaFatbinSequence(Section, "x.o:__nv_relfatbin");
  ASSERT_FALSE(bool(Fatbins));
  EXPECT_EQ(toString(Fatbins.takeError()), "x.o:__nv_relfatbin: offset 0x" +
                                               utohexstr(A.size()) +
                                               ": bytes between fat binaries");
}

TEST(NvccModuleTest, TruncatedSecondFatbinNamesItsOffset) {
  std::string A = fatbin(2, 90, "cubin");
  std::string B = fatbin(2, 75, "cubin");
  std::string Section = A + B.substr(0, B.size() - 8);
  Expected<std::vector<CudaFatbin>> Fatbins =
      readCudaFatbinSequence(Section, "x.o:__nv_relfatbin");
  ASSERT_FALSE(bool(Fatbins));
  std::string Message = toString(Fatbins.takeError());
  EXPECT_NE(Message.find("x.o:__nv_relfatbin+0x" + utohexstr(A.size())),
            std::string::npos)
      << Message;
}

} // namespace

// The device runtime is told by its file name, wherever the toolkit is.
TEST(NvccModuleTest, CudaDeviceRuntimeByName) {
  EXPECT_TRUE(isCudaDeviceRuntime("/usr/local/cuda/lib64/libcudadevrt.a"));
  EXPECT_TRUE(isCudaDeviceRuntime("libcudadevrt.a"));
  EXPECT_FALSE(isCudaDeviceRuntime("/usr/local/cuda/lib64/libcudart_static.a"));
  EXPECT_FALSE(isCudaDeviceRuntime("/work/libcudadevrt.a.d/libmine.a"));
  EXPECT_FALSE(isCudaDeviceRuntime("libcudadevrt.so"));
}

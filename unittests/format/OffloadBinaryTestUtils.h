//===- OffloadBinaryTestUtils.h - Helpers for the format units --*- C++ -*-===//
//
// Writing small binaries, patching their fields in place and reading them
// back: what the reader, writer and finder tests share.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_UNITTESTS_FORMAT_OFFLOADBINARYTESTUTILS_H
#define LLD_OFFLOAD_UNITTESTS_FORMAT_OFFLOADBINARYTESTUTILS_H

#include "format/OffloadBinary.h"
#include "format/OffloadBinaryWriter.h"

#include "unittests/ErrorMatchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <string>

namespace offload {
namespace testutil {

/// Byte offsets of the fields the tests patch, from the start of a binary.
namespace field {
constexpr uint64_t Version = 4;
constexpr uint64_t Size = 8;
constexpr uint64_t EntriesOffset = 16;
constexpr uint64_t EntrySizeOrCount = 24;
constexpr uint64_t InflatedSize = 32;
// Within an entry.
constexpr uint64_t StringOffset = 8;
constexpr uint64_t NumStrings = 16;
constexpr uint64_t ImageOffset = 24;
constexpr uint64_t ImageSize = 32;
} // namespace field

/// An OpenMP object image with a triple and an arch.
inline ImageToWrite makeImage(llvm::StringRef Bytes,
                              llvm::StringRef Triple = "x86_64-pc-linux-gnu",
                              llvm::StringRef Arch = "generic") {
  ImageToWrite Image;
  Image.TheImageKind = ImageKind::Object;
  Image.TheOffloadKind = OffloadKind::OpenMP;
  Image.Strings = {{"triple", Triple.str()}, {"arch", Arch.str()}};
  Image.Image = Bytes;
  return Image;
}

inline WriteOptions version(uint32_t V, bool Compress = false,
                            bool UseZstd = true) {
  WriteOptions Options;
  Options.Version = V;
  Options.Compress = Compress;
  Options.UseZstd = UseZstd;
  return Options;
}

/// The bytes writeOffloadBinaries() produces; fails the test on an error.
inline std::string write(llvm::ArrayRef<ImageToWrite> Images,
                         const WriteOptions &Options = {}) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  if (llvm::Error E = writeOffloadBinaries(OS, Images, Options))
    ADD_FAILURE() << "write failed: " << llvm::toString(std::move(E));
  return Out;
}

/// One binary holding one small image, written as \p Options say.
inline std::string writeOne(const WriteOptions &Options = {}) {
  ImageToWrite Image = makeImage("IMAGE-BYTES");
  return write(Image, Options);
}

inline uint16_t get16(llvm::StringRef Data, uint64_t Offset) {
  return llvm::support::endian::read16le(Data.data() + Offset);
}
inline uint32_t get32(llvm::StringRef Data, uint64_t Offset) {
  return llvm::support::endian::read32le(Data.data() + Offset);
}
inline uint64_t get64(llvm::StringRef Data, uint64_t Offset) {
  return llvm::support::endian::read64le(Data.data() + Offset);
}
inline void put32(std::string &Data, uint64_t Offset, uint32_t Value) {
  llvm::support::endian::write32le(&Data[Offset], Value);
}
inline void put64(std::string &Data, uint64_t Offset, uint64_t Value) {
  llvm::support::endian::write64le(&Data[Offset], Value);
}

/// The error readOffloadBinaries() reports for \p Data, named "bin" at
/// \p Base; fails the test if the data reads fine.
inline std::string readError(llvm::StringRef Data, uint64_t Base = 0x1000) {
  ByteStore Store;
  return errorMessage(readOffloadBinaries(Data, Store, "bin", Base));
}

} // namespace testutil
} // namespace offload

#endif // LLD_OFFLOAD_UNITTESTS_FORMAT_OFFLOADBINARYTESTUTILS_H

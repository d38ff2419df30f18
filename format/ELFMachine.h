//===- format/ELFMachine.h - Which processor an ELF file is for -*- C++ -*-===//
//
// Readers that take GPU code objects tell AMD's from NVIDIA's from a host's
// by e_machine before they parse anything else.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_ELFMACHINE_H
#define LLD_OFFLOAD_FORMAT_ELFMACHINE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

#include <cstdint>
#include <optional>

namespace offload {

/// Where e_machine is, in both ELF classes.
constexpr uint64_t ELFMachineOffset = 18;

/// The e_machine of the ELF file \p Data, in the file's byte order; none if
/// \p Data is not ELF or too short to say.
inline std::optional<uint16_t> readELFMachine(llvm::StringRef Data) {
  if (Data.size() < ELFMachineOffset + 2 ||
      !Data.starts_with(llvm::ELF::ElfMagic))
    return std::nullopt;
  switch (Data[llvm::ELF::EI_DATA]) {
  case llvm::ELF::ELFDATA2LSB:
    return llvm::support::endian::read16le(Data.data() + ELFMachineOffset);
  case llvm::ELF::ELFDATA2MSB:
    return llvm::support::endian::read16be(Data.data() + ELFMachineOffset);
  default:
    return std::nullopt;
  }
}

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_ELFMACHINE_H

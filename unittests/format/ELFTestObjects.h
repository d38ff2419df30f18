//===- ELFTestObjects.h - Small ELF objects from YAML -----------*- C++ -*-===//
//
// x86-64 relocatable ELF objects made in memory with yaml2obj's library: what
// the object bundle, device archive and finder tests share.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_UNITTESTS_FORMAT_ELFTESTOBJECTS_H
#define LLD_OFFLOAD_UNITTESTS_FORMAT_ELFTESTOBJECTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/ObjectYAML/yaml2obj.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <string>

namespace offload {
namespace testutil {

/// The object file yaml2obj makes of \p Yaml; a YAML error fails the test.
inline std::string yamlToObject(llvm::StringRef Yaml) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::yaml::Input In(Yaml);
  if (!llvm::yaml::convertYAML(In, OS, [](const llvm::Twine &Msg) {
        ADD_FAILURE() << "yaml2obj: " << Msg.str();
      }))
    ADD_FAILURE() << "yaml2obj failed";
  return Out;
}

/// The file header of an x86-64 relocatable ELF object, up to the "Sections:"
/// key: the section list items (and then "Symbols:") follow it.
inline constexpr llvm::StringLiteral X86ELFHeaderYaml = "--- !ELF\n"
                                                        "FileHeader:\n"
                                                        "  Class: ELFCLASS64\n"
                                                        "  Data: ELFDATA2LSB\n"
                                                        "  Type: ET_REL\n"
                                                        "  Machine: EM_X86_64\n"
                                                        "Sections:\n";

/// A .text section holding one `ret` (a YAML section list item).
inline constexpr llvm::StringLiteral RetTextSectionYaml =
    "  - Name: .text\n"
    "    Type: SHT_PROGBITS\n"
    "    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]\n"
    "    Content: \"C3\"\n";

/// An x86-64 relocatable ELF object whose section list (and whatever follows
/// it, such as "Symbols:") is the YAML \p Body.
inline std::string makeX86ELF(llvm::StringRef Body) {
  return yamlToObject((llvm::Twine(X86ELFHeaderYaml) + Body).str());
}

} // namespace testutil
} // namespace offload

#endif // LLD_OFFLOAD_UNITTESTS_FORMAT_ELFTESTOBJECTS_H

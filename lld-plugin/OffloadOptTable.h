//===- lld-plugin/OffloadOptTable.h - Our option table ----------*- C++ -*-===//
//
// The option table made from OffloadOptions.td: the options' IDs, the table
// that parses them (LinkOptions.cpp), and the options --help lists.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_OFFLOADOPTTABLE_H
#define LLD_OFFLOAD_LLDPLUGIN_OFFLOADOPTTABLE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Option/OptTable.h"

#include <string>
#include <vector>

namespace offload {

/// OPT_no_offload, OPT_offload_jobs, ...: an option's ID in the table. An
/// alias (the joined spelling of an option with a value) parses as the
/// option it stands for.
enum OffloadOptionID {
  OPT_INVALID = 0,
#define OPTION(...) LLVM_MAKE_OPT_ID(__VA_ARGS__),
#include "OffloadOptions.inc"
#undef OPTION
};

const llvm::opt::OptTable &offloadOptTable();

/// An option --help lists: one with a help text.
struct ListedOption {
  /// Without dashes or '=': "offload-jobs".
  llvm::StringRef Name;
  /// As --help shows it, with its value: "--offload-jobs=<n>|jobserver".
  std::string Spelling;
  llvm::StringRef Help;
};

/// The options --help lists, by name.
std::vector<ListedOption> listedOptions();

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_OFFLOADOPTTABLE_H

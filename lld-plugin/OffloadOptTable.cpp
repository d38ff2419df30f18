//===- lld-plugin/OffloadOptTable.cpp - Our option table ------------------===//

#include "lld-plugin/OffloadOptTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Option/Option.h"

using namespace llvm;

namespace offload {
namespace {

#define OPTTABLE_STR_TABLE_CODE
#include "OffloadOptions.inc"
#undef OPTTABLE_STR_TABLE_CODE

#define OPTTABLE_PREFIXES_TABLE_CODE
#include "OffloadOptions.inc"
#undef OPTTABLE_PREFIXES_TABLE_CODE

// The names of flags and visibilities the table uses.
using opt::DefaultVis;
using opt::HelpHidden;

constexpr opt::OptTable::Info InfoTable[] = {
#define OPTION(...) LLVM_CONSTRUCT_OPT_INFO(__VA_ARGS__),
#include "OffloadOptions.inc"
#undef OPTION
};

class OffloadOptTable : public opt::GenericOptTable {
public:
  OffloadOptTable()
      : GenericOptTable(OptionStrTable, OptionPrefixesTable, InfoTable) {}
};

} // namespace

const opt::OptTable &offloadOptTable() {
  static const OffloadOptTable Table;
  return Table;
}

std::vector<ListedOption> listedOptions() {
  const opt::OptTable &Table = offloadOptTable();
  std::vector<ListedOption> Listed;
  for (unsigned ID = 1; ID <= Table.getNumOptions(); ++ID) {
    const char *Help = Table.getOptionHelpText(ID);
    opt::Option O = Table.getOption(ID);
    if (!Help || O.hasFlag(opt::HelpHidden))
      continue;
    // MetaVarName is the value's syntax, also for an option whose value is
    // optional ("[=<level>]"), which OptTable::printHelp would leave out.
    const char *MetaVar = Table.getOptionMetaVar(ID);
    Listed.push_back({O.getName().rtrim('='),
                      (O.getPrefixedName() + (MetaVar ? MetaVar : "")).str(),
                      Help});
  }
  llvm::sort(Listed, [](const ListedOption &A, const ListedOption &B) {
    return A.Name < B.Name;
  });
  return Listed;
}

} // namespace offload

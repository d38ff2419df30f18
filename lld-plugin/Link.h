//===- lld-plugin/Link.h - A link, host and device code -----------*- C++ -*-===//
//
// ld.lld-offload's link: ld.lld's command line, and the link it asks for,
// plus the device code its inputs carry (as lld::elf::link is ld.lld's).
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_LINK_H
#define LLD_OFFLOAD_LLDPLUGIN_LINK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace offload {

class LLDSession;

/// Links as \p Args (argv without argv[0]) ask: our --offload-* options and
/// ld.lld's, running LLD in \p Session. \p Self is this executable, which
/// parallel device links run as workers. Says what went wrong, and returns
/// the status to exit with.
int link(llvm::ArrayRef<const char *> Args, llvm::StringRef Self,
         LLDSession &Session);

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_LINK_H

//===- format/ObjectBundle.h - Offload bundles inside objects ---*- C++ -*-===//
//
// clang-offload-bundler -type=o keeps the host object and adds one section
// per bundle entry, named __CLANG_OFFLOAD_BUNDLE__<entry ID>, flagged
// read-only and excluded from links; the host entry's section holds a single
// zero byte (the host code is the object itself). LLVM 22 runs llvm-objcopy
// for this; here it is done in-process with LLVM's ObjCopy library.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_OBJECTBUNDLE_H
#define LLD_OFFLOAD_FORMAT_OBJECTBUNDLE_H

#include "format/OffloadBundle.h"

#include "format/BundleEntryID.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBufferRef.h"

namespace llvm {
namespace objcopy {
class ConfigManager;
} // namespace objcopy
namespace object {
class ObjectFile;
} // namespace object
} // namespace llvm

namespace offload {

/// True if \p Object (any object file) has bundle sections.
llvm::Expected<bool> hasBundleSections(llvm::MemoryBufferRef Object);

/// The entries of an object bundle, in section order: each entry's ID (the
/// section name after the magic) and the section's contents. The host
/// entry's contents are the one-byte placeholder.
llvm::Expected<std::vector<BundleEntry>>
readObjectBundle(llvm::MemoryBufferRef Object);

/// One bundle section, for readers that walk an object's sections
/// themselves (a link's inputs, read once for everything they hold):
/// readObjectBundle() reads each section with these two. Their errors say
/// what is wrong, not with which section.
///
/// The entry ID of the section named \p Name, which starts with BundleMagic.
llvm::Expected<BundleEntryID> readBundleSectionID(llvm::StringRef Name);
/// The contents of the bundle section \p Section of \p Object, checked to
/// lie within it.
llvm::Expected<llvm::StringRef>
readBundleSectionContents(const llvm::object::SectionRef &Section,
                          llvm::MemoryBufferRef Object);

/// What unbundling the host entry gives: \p Object without any bundle
/// section, as clang-offload-bundler makes it.
llvm::Expected<llvm::SmallVector<char, 0>>
getHostObject(llvm::MemoryBufferRef Object);

/// Bundles: a copy of \p Host with a section per entry of \p Entries, in
/// order; the entry whose ID is \p HostID gets the one-byte placeholder.
/// Section names, flags and contents are those clang-offload-bundler 22
/// gives.
llvm::Expected<llvm::SmallVector<char, 0>>
writeObjectBundle(llvm::MemoryBufferRef Host, llvm::StringRef HostID,
                  llvm::ArrayRef<BundleEntryToWrite> Entries);

/// Runs LLVM's objcopy, configured by \p Config, in-process over \p Obj
/// (the object in \p Object), after checking what objcopy trusts in it: no
/// section alignment of 4 GiB or more (objcopy would pad the output to it),
/// a program header table within the file, COFF relocation tables within
/// the file. Errors name the file.
llvm::Expected<llvm::SmallVector<char, 0>>
runObjcopy(const llvm::objcopy::ConfigManager &Config,
           llvm::object::ObjectFile &Obj, llvm::MemoryBufferRef Object);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_OBJECTBUNDLE_H

//===- format/SafeFileName.h - File names from image metadata ---*- C++ -*-===//
//
// Tools name the files they write after what an image says of itself (its
// triple, its arch): "<input>-<triple>-<arch>.<n>.<ext>". Those strings come
// from whoever built the object, so they may hold "/", "..", NUL or control
// characters, or be thousands of bytes long. safeFileNamePart() turns such a
// string into a piece of a file name that stays inside its directory, and
// leaves every clean string (every real triple and arch) as it is, so that
// names keep matching LLVM's tools.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_SAFEFILENAME_H
#define LLD_OFFLOAD_FORMAT_SAFEFILENAME_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>

namespace offload {

/// The longest file name (one path component) Linux file systems take.
constexpr size_t MaxFileNameSize = 255;

/// \p Part, a piece of a file name taken from untrusted metadata, made safe
/// to be used in (or as) one path component:
/// - each path separator ('/' and '\\'), NUL and other control character
///   (0x01-0x1f, 0x7f) becomes '_';
/// - each dot of a run of two or more dots becomes '_', and so does a part
///   that is exactly ".";
/// - a result longer than \p MaxSize bytes (at least 17) is cut to
///   MaxSize - 17 bytes followed by '-' and 16 hexadecimal digits of a hash
///   of the whole of \p Part, so that long parts that differ stay apart.
/// Anything else (letters, digits, '-', '_', '+', ':', single dots, bytes
/// of UTF-8) is kept; a clean part is returned unchanged. \p Changed, where
/// given, is set to whether the result differs from \p Part.
std::string safeFileNamePart(llvm::StringRef Part, bool *Changed = nullptr,
                             size_t MaxSize = MaxFileNameSize);

/// Variants of safeFileNamePart for names whose exact spelling other tools
/// or users rely on. Use safeFileNamePart unless a name must match one of
/// these.

/// \p Part with every byte other than an ASCII letter or digit, '.', '_',
/// '+' and '-' made '_' (so ':' becomes '_'): the names offload-inspect
/// --extract documents, portable to any file system. Not cut to a length.
std::string portableFileNamePart(llvm::StringRef Part);

/// \p Name with every ':' made '_' and nothing else changed: how
/// clang-offload-bundler spells a target ID in the names of the archive
/// members it writes ("lib-hip-amdgcn-amd-amdhsa--gfx90a_xnack+lib.bc"),
/// which ours must match. Not a sanitizer: the rest of \p Name is trusted
/// to be one component already.
std::string bundlerFileName(llvm::StringRef Name);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_SAFEFILENAME_H

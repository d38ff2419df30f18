//===- format/OffloadBundle.h - clang-offload-bundler's bundles -*- C++ -*-===//
//
// The files clang-offload-bundler makes, by file type:
// * binary (bc, gch, ast, and o/a inputs that are not objects):
//   "__CLANG_OFFLOAD_BUNDLE__", u64 count, then per entry {u64 offset,
//   u64 size, u64 ID length, ID}, then the payloads, each at an offset
//   aligned to the bundle alignment; all little-endian;
// * text (i, ii, cui, hipi, d, ll, s): each entry between the lines
//   "\n<comment> __CLANG_OFFLOAD_BUNDLE____START__ <ID>\n" and
//   "\n<comment> __CLANG_OFFLOAD_BUNDLE____END__ <ID>\n".
// Readers are views over the caller's buffer and check every offset and
// size; writers stream.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_FORMAT_OFFLOADBUNDLE_H
#define LLD_OFFLOAD_FORMAT_OFFLOADBUNDLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace offload {

/// The magic that starts a binary bundle and every object-bundle section
/// name.
constexpr llvm::StringLiteral BundleMagic = "__CLANG_OFFLOAD_BUNDLE__";

/// How a -type stores its bundles.
enum class BundleLayout { Text, Binary, Object, Archive };

/// A -type of clang-offload-bundler and how its files are bundled.
struct BundleType {
  llvm::StringRef Name;
  BundleLayout Layout;
  /// The line-comment string of text types.
  llvm::StringRef Comment;
};

/// The type named by -type=\p Name, or an error naming the valid ones.
llvm::Expected<BundleType> getBundleType(llvm::StringRef Name);

/// One entry of a bundle: its ID as stored and a view of its payload.
struct BundleEntry {
  llvm::StringRef ID;
  llvm::StringRef Data;
};

/// An entry to write: the normalized ID and the payload.
struct BundleEntryToWrite {
  std::string ID;
  llvm::StringRef Data;
};

/// True if \p Data starts with the binary bundle magic.
bool isBinaryBundle(llvm::StringRef Data);

/// Reads the entries of a binary bundle in header order. Errors name \p Name,
/// the offset and the problem (truncated header, entry past the end,
/// overlapping entries, counts and ID lengths that cannot fit).
llvm::Expected<std::vector<BundleEntry>>
readBinaryBundle(llvm::StringRef Data, llvm::StringRef Name);

/// Succeeds unless \p Data starts with the binary bundle magic and ends
/// inside the bundle's header: in its entry count, or in the offset, size,
/// ID length or ID of one of the entries the count announces. Such a file is
/// no bundle to clang-offload-bundler 22 (it lists nothing and unbundles the
/// file as the host's). The error names \p Name, the offset of what is cut
/// and says "truncated bundle header".
llvm::Error checkBinaryBundleHeaderComplete(llvm::StringRef Data,
                                            llvm::StringRef Name);

/// Where an entry of a binary bundle lies, as its header says.
struct BundleEntryLocation {
  std::string ID;
  /// Where the ID is stored, from the start of the bundle.
  uint64_t IDOffset = 0;
  /// Where the payload is, from the start of the bundle, and its size.
  uint64_t Offset = 0;
  uint64_t Size = 0;
};

/// The header of a binary bundle: its size and the entries in header order.
struct BinaryBundleHeader {
  uint64_t HeaderSize = 0;
  std::vector<BundleEntryLocation> Entries;
  /// Where the last payload ends (the header's end if there is none).
  uint64_t payloadEnd() const;
};

/// Gives exactly the first \p Size bytes of a bundle; asked only for sizes
/// within the bundle.
using BundlePrefix =
    llvm::function_ref<llvm::Expected<llvm::StringRef>(uint64_t Size)>;

/// Reads the header of a binary bundle of \p BundleSize bytes, asking
/// \p Prefix for more of the bundle only as far as the header goes (so a
/// compressed bundle is inflated no further than its header). Errors name
/// \p Name, the offset and the problem, as readBinaryBundle()'s; sizes and
/// offsets are checked against \p BundleSize, and a repeated ID is an error
/// as soon as it is read.
llvm::Expected<BinaryBundleHeader> readBinaryBundleHeader(BundlePrefix Prefix,
                                                          uint64_t BundleSize,
                                                          llvm::StringRef Name);

/// The size of the binary bundle writeBinaryBundle() writes.
uint64_t getBinaryBundleSize(llvm::ArrayRef<BundleEntryToWrite> Entries,
                             uint64_t Alignment);

/// Writes a binary bundle: payloads in entry order, each aligned to
/// \p Alignment (at least 1) from the start of the bundle.
void writeBinaryBundle(llvm::raw_ostream &OS,
                       llvm::ArrayRef<BundleEntryToWrite> Entries,
                       uint64_t Alignment);

/// Writes the payload of entry \p Index where the stream is; the entry's
/// Data gives only its size. Lets a caller copy payloads from files without
/// reading them into memory.
using PayloadWriter = llvm::function_ref<llvm::Error(size_t Index)>;

/// writeBinaryBundle() with the payloads written by \p WritePayload.
llvm::Error writeBinaryBundle(llvm::raw_ostream &OS,
                              llvm::ArrayRef<BundleEntryToWrite> Entries,
                              uint64_t Alignment, PayloadWriter WritePayload);

/// Reads the entries of a text bundle with line comment \p Comment, in file
/// order. An entry without its END marker is an error.
llvm::Expected<std::vector<BundleEntry>>
readTextBundle(llvm::StringRef Data, llvm::StringRef Comment,
               llvm::StringRef Name);

/// The line comment of the text bundle that starts \p Data, if it is one:
/// "\n<comment> __CLANG_OFFLOAD_BUNDLE____START__ <ID>\n".
std::optional<llvm::StringRef> getTextBundleComment(llvm::StringRef Data);

/// Writes a text bundle with line comment \p Comment.
void writeTextBundle(llvm::raw_ostream &OS,
                     llvm::ArrayRef<BundleEntryToWrite> Entries,
                     llvm::StringRef Comment);

/// The size of the text bundle writeTextBundle() writes.
uint64_t getTextBundleSize(llvm::ArrayRef<BundleEntryToWrite> Entries,
                           llvm::StringRef Comment);

/// writeTextBundle() with the payloads written by \p WritePayload.
llvm::Error writeTextBundle(llvm::raw_ostream &OS,
                            llvm::ArrayRef<BundleEntryToWrite> Entries,
                            llvm::StringRef Comment,
                            PayloadWriter WritePayload);

/// The order in which clang-offload-bundler 22 visits (and lists) the
/// entries of a binary bundle: that of an llvm::StringMap filled in header
/// order, which our tool reproduces to print the same.
std::vector<BundleEntry> inBundlerOrder(llvm::ArrayRef<BundleEntry> Entries);

/// inBundlerOrder() for entries known by their location: the indices of
/// \p Entries in the order clang-offload-bundler 22 visits them.
std::vector<size_t> inBundlerOrder(llvm::ArrayRef<BundleEntryLocation> Entries);

} // namespace offload

#endif // LLD_OFFLOAD_FORMAT_OFFLOADBUNDLE_H

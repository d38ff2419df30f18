//===- unittests/lld-plugin/BuildIDNotesTest.cpp --------------------------===//
//
// findGNUBuildID(): the build ID among a loaded object's notes, in segments
// aligned to 4 and to 8 (GNU property notes), and nothing where a note is
// cut short.
//
//===----------------------------------------------------------------------===//

#include "lld-plugin/DeviceLinkCache.h"

#include "llvm/Support/MathExtras.h"

#include "gtest/gtest.h"

#include <elf.h>

using namespace llvm;
using namespace offload;

namespace {

/// One note as a linker lays it out: a 12-byte header, the name, then the
/// descriptor at the segment's alignment from the note's start, padded to
/// it.
std::string note(uint32_t Type, StringRef Name, StringRef Desc,
                 unsigned Align) {
  std::string N;
  auto Word = [&](uint32_t V) {
    N.append(reinterpret_cast<const char *>(&V), sizeof(V));
  };
  Word(Name.size());
  Word(Desc.size());
  Word(Type);
  N += Name;
  N.resize(alignTo(N.size(), Align), '\0');
  N += Desc;
  N.resize(alignTo(N.size(), Align), '\0');
  return N;
}

const StringRef GNU("GNU\0", 4);
const StringRef ID("\x01\x23\x45\x67\x89\xab\xcd\xef\x10\x32"
                   "\x54\x76\x98\xba\xdc\xfe\x00\x11\x22\x33",
                   20);

TEST(BuildIDNotes, AfterAnotherNoteAlignedTo4) {
  std::string Notes = note(NT_GNU_ABI_TAG, GNU, StringRef("\0\0\0\0\3\0\0\0\2\0\0\0\0\0\0\0", 16), 4) +
                      note(NT_GNU_BUILD_ID, GNU, ID, 4);
  std::optional<StringRef> Found = findGNUBuildID(Notes, 4);
  ASSERT_TRUE(Found);
  EXPECT_EQ(*Found, ID);
}

TEST(BuildIDNotes, AlignedTo8) {
  // The descriptor is at 16 from the note's start (12 + 4, aligned to 8),
  // not at 12 + 8: a walker that pads the name alone reads 4 bytes off.
  std::string Notes =
      note(NT_GNU_PROPERTY_TYPE_0, GNU, StringRef("\2\0\0\xc0\4\0\0\0\3\0\0\0\0\0\0\0", 16), 8) +
      note(NT_GNU_BUILD_ID, GNU, ID, 8);
  std::optional<StringRef> Found = findGNUBuildID(Notes, 8);
  ASSERT_TRUE(Found);
  EXPECT_EQ(*Found, ID);
}

TEST(BuildIDNotes, NoneOrCutShort) {
  // Another owner's note of the same type is not a build ID.
  EXPECT_FALSE(findGNUBuildID(note(NT_GNU_BUILD_ID, StringRef("LLVM\0", 5), ID, 4), 4));
  EXPECT_FALSE(findGNUBuildID(note(NT_GNU_ABI_TAG, GNU, ID, 4), 4));
  // A descriptor that runs past the segment is no build ID, and nothing
  // past the segment is read.
  std::string Cut = note(NT_GNU_BUILD_ID, GNU, ID, 4);
  EXPECT_FALSE(findGNUBuildID(StringRef(Cut).drop_back(1), 4));
  EXPECT_FALSE(findGNUBuildID(StringRef(Cut).take_front(11), 4));
  EXPECT_FALSE(findGNUBuildID("", 4));
}

} // namespace

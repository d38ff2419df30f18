#!/usr/bin/env python3
"""Usage: cmp-except-section.py A B SECTION

Compares two ELF files (64-bit little-endian: cubins) as their bytes would be
compared if SECTION held the same: the ELF header, every section's header and
contents in order, and every program header, but for file offsets and the
sizes of segments in the file and in memory (both follow SECTION's size, by
the padding before aligned sections) and SECTION's size and contents. For cubins, whose
.note.nv.tkinfo holds nvlink's command line, temporary file names included,
which no two pipelines share. Prints one line; exits non-zero at the first
difference."""
import struct
import sys


def read(path, skip):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not a 64-bit little-endian ELF file")
    # The ELF header, without e_phoff and e_shoff.
    facts = [("ELF header", data[:0x20] + data[0x30:0x40])]
    phoff, shoff = struct.unpack_from("<QQ", data, 0x20)
    phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from(
        "<HHHHH", data, 0x36)
    for i in range(phnum):
        p_type, p_flags, _, vaddr, paddr, filesz, memsz, align = \
            struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
        facts.append((f"program header {i}", (p_type, p_flags, vaddr, paddr,
                                              align)))
    str_off, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        (name_off, sh_type, flags, addr, off, size, link, info, align,
         entsize) = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        end = data.index(b"\0", str_off + name_off)
        name = data[str_off + name_off:end].decode()
        if name == skip:
            facts.append((f"section {name}", (sh_type, flags, addr, link, info)))
            continue
        contents = b"" if sh_type == 8 else data[off:off + size]  # SHT_NOBITS
        facts.append((f"section {name}", (sh_type, flags, addr, size, link,
                                          info, align, entsize, contents)))
    return facts


a, b = read(sys.argv[1], sys.argv[3]), read(sys.argv[2], sys.argv[3])
for (what, x), (other, y) in zip(a, b):
    if what != other or x != y:
        sys.exit(f"differ: {what} in {sys.argv[1]}, {other} in {sys.argv[2]}")
if len(a) != len(b):
    sys.exit(f"differ: {len(a)} and {len(b)} headers")
print(f"same but {sys.argv[3]}: {len(a)} headers")

"""Checks that a linked file was pruned in place, and dumps its fat binaries.

  in-place.py OLD NEW [DUMP-PREFIX]

Finds .hip_fatbin in OLD (ELF64 little-endian section headers) and the fat
binaries in it, as the HIP runtime's loader would see them one after the
other: a binary bundle runs to where its last-ending payload ends, a CCOB
v2/v3 to its total size; zeros between them are padding. Prints the fat
binaries' extents, then checks that NEW has the same size, that every
byte outside those extents is the same, and that each fat binary of NEW
starts where the old one did and is followed by zeros to the old end. With DUMP-PREFIX, writes each fat
binary of NEW (the bytes of its old extent) to DUMP-PREFIX.<n>.hipfb, for
clang-offload-bundler to read.
"""
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from elf_section import section  # noqa: E402


def extents(data, start, size):
    pos, end, found = start, start + size, []
    while pos < end:
        if data[pos] == 0:
            pos += 1
            continue
        if data[pos:pos + 24] == b"__CLANG_OFFLOAD_BUNDLE__":
            count, = struct.unpack_from("<Q", data, pos + 24)
            p, last = pos + 32, pos + 32
            for _ in range(count):
                off, sz, n = struct.unpack_from("<QQQ", data, p)
                p += 24 + n
                last = max(last, p, pos + off + sz)
            found.append((pos, last))
        elif data[pos:pos + 4] == b"CCOB":
            version, = struct.unpack_from("<H", data, pos + 4)
            if version == 2:
                total, = struct.unpack_from("<I", data, pos + 8)
            elif version == 3:
                total, = struct.unpack_from("<Q", data, pos + 8)
            else:
                sys.exit("CCOB v%d at %#x has no total size" % (version, pos))
            found.append((pos, pos + total))
        else:
            sys.exit("no fat binary at %#x" % pos)
        pos = found[-1][1]
    return found


old = open(sys.argv[1], "rb").read()
new = open(sys.argv[2], "rb").read()
ranges = extents(old, *section(old, b".hip_fatbin"))
print("%d fat binaries" % len(ranges))
if len(old) != len(new):
    sys.exit("size changed: %d -> %d" % (len(old), len(new)))
print("same size")
inside = bytearray(len(old))
for begin, end in ranges:
    inside[begin:end] = b"\1" * (end - begin)
outside = [i for i in range(len(old)) if not inside[i] and old[i] != new[i]]
if outside:
    sys.exit("%d bytes differ outside the fat binaries, the first at %#x"
             % (len(outside), outside[0]))
print("same bytes outside the fat binaries")
# Each pruned fat binary at its old start, the rest of its old extent zero.
for n, (begin, end) in enumerate(ranges):
    (_, now), = extents(new, begin, end - begin)[:1]
    if any(new[now:end]):
        sys.exit("fat binary %d: bytes after its new end %#x not zeroed"
                 % (n, now))
    print("fat binary %d: %d -> %d bytes, the rest zeroed"
          % (n, end - begin, now - begin))
if len(sys.argv) > 3:
    for n, (begin, end) in enumerate(ranges):
        with open("%s.%d.hipfb" % (sys.argv[3], n), "wb") as f:
            f.write(new[begin:end])

#!/usr/bin/env python3
"""Writes a version 1 OffloadBinary (the layout LLVM 22 writes) whose image
has the given triple and arch, to test the names tools make from them.

    make-named.py OUT TRIPLE ARCH [IMAGE-KIND]

TRIPLE and ARCH take Python escapes ("\\x00", "\\n"); a leading "@N*c" makes
N copies of the character c (very long names). IMAGE-KIND: 1 object (default).
"""

import struct
import sys


def value(s):
    if s.startswith("@") and "*" in s:
        n, c = s[1:].split("*", 1)
        return c.encode() * int(n)
    return s.encode().decode("unicode_escape").encode("latin-1")


def main():
    out, triple, arch = sys.argv[1], value(sys.argv[2]), value(sys.argv[3])
    image_kind = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    image = b"IMAGE-BYTES\n"
    strings = [(b"triple", triple), (b"arch", arch)]
    header_size, entry_size = 32, 40
    string_entries = header_size + entry_size
    table = bytearray(b"\0")
    offsets = []
    base = string_entries + 16 * len(strings)
    for k, v in strings:
        ko = base + len(table)
        table += k + b"\0"
        vo = base + len(table)
        table += v + b"\0"
        offsets.append((ko, vo))
    while (base + len(table)) % 8:
        table += b"\0"
    image_offset = base + len(table)
    size = image_offset + len(image)
    size += (8 - size % 8) % 8
    data = bytearray()
    data += b"\x10\xff\x10\xad" + struct.pack("<IQQQ", 1, size, header_size,
                                              entry_size)
    data += struct.pack("<HHIQQQQ", image_kind, 1, 0, string_entries,
                        len(strings), image_offset, len(image))
    for ko, vo in offsets:
        data += struct.pack("<QQ", ko, vo)
    data += table + image
    data += b"\0" * (size - len(data))
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()

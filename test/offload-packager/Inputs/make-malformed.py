#!/usr/bin/env python3
"""Writes well-formed and deliberately broken OffloadBinary files for the
malformed-input tests (and a few valid ones LLVM 22's tool cannot make).

usage: make-malformed.py CASE OUTPUT [SOURCE [MEMBER]]

Every case starts from one version-1 binary laid out as LLVM writes it
(header, entry, string entries, string table, padding, image, padding;
160 bytes with the image at offset 152), or from SOURCE (an ELF object, a
compressed v3 binary or an archive, as the case says), and breaks one
thing. The comment on each case says which field and at which offset, so
that the tests can check the offset the error message names.
"""

import struct
import sys

MAGIC = b"\x10\xff\x10\xad"
HEADER = 32  # v1/v2 header
ENTRY = 40
STRING_ENTRY = 16  # v1


def v1_binary(image=b"IMAGE!!", strings=(("triple", "x86_64-unknown-linux-gnu"),
                                         ("arch", "gfx90a")),
              image_kind=1, offload_kind=1):
    """A valid v1 binary; returns (bytes, dict of field offsets)."""
    table = b"\x00"
    offsets = {}
    for key, value in strings:
        for s in (key, value):
            if s not in offsets:
                offsets[s] = len(table)
                table += s.encode() + b"\x00"
    string_entries_at = HEADER + ENTRY
    table_at = string_entries_at + STRING_ENTRY * len(strings)
    image_at = (table_at + len(table) + 7) & ~7
    size = (image_at + len(image) + 7) & ~7
    out = bytearray()
    out += MAGIC + struct.pack("<IQQQ", 1, size, HEADER, ENTRY)
    out += struct.pack("<HHIQQQQ", image_kind, offload_kind, 0,
                       string_entries_at, len(strings), image_at, len(image))
    for key, value in strings:
        out += struct.pack("<QQ", table_at + offsets[key],
                           table_at + offsets[value])
    out += table
    out += b"\x00" * (image_at - len(out))
    out += image
    out += b"\x00" * (size - len(out))
    fields = {
        "size": 8, "entry_offset": 16, "entry_size": 24,
        "string_offset": HEADER + 8, "num_strings": HEADER + 16,
        "image_offset": HEADER + 24, "image_size": HEADER + 32,
        "string_entries": string_entries_at, "table": table_at,
        "image": image_at,
    }
    return out, fields


def put64(buf, at, value):
    buf[at:at + 8] = struct.pack("<Q", value)


def put32(buf, at, value):
    buf[at:at + 4] = struct.pack("<I", value)


def main():
    case, output = sys.argv[1], sys.argv[2]
    good, f = v1_binary()
    buf = bytearray(good)

    if case == "good":
        pass
    elif case == "spirv-image":
        # A valid binary whose entry says image kind 6 (IMG_SPIRV), as a
        # producer other than LLVM 22's packager may write it.
        buf, _ = v1_binary(image=b"\x03\x02\x23\x07", image_kind=6,
                           offload_kind=8,
                           strings=(("triple", "spirv64-intel"),
                                    ("arch", "pvc")))
        buf = bytearray(buf)
    elif case == "trailing-garbage":
        # A valid binary, then 32 bytes that do not start with the magic at
        # the next 8-aligned offset (len(good)).
        buf += b"GARBAGE!" * 4
    elif case == "truncated-header":
        # Magic and version, then the file ends: 12 of the 32 header bytes.
        buf = buf[:12]
    elif case == "version-0":
        put32(buf, 4, 0)
    elif case == "version-99":
        put32(buf, 4, 99)
    elif case == "size-past-end":
        # Header size field (offset 8) says 4096; the file is shorter.
        put64(buf, f["size"], 4096)
    elif case == "size-too-small":
        # Header size field smaller than the header itself.
        put64(buf, f["size"], 8)
    elif case == "image-past-end":
        # Image size (file offset 0x40) runs past the end; the image offset
        # field it goes with is at 0x38.
        put64(buf, f["image_size"], 1000)
    elif case == "image-offset-overflow":
        # image_offset + image_size wraps around 2^64.
        put64(buf, f["image_offset"], 0xFFFFFFFFFFFFFFF8)
        put64(buf, f["image_size"], 0x10)
    elif case == "string-no-nul":
        # The arch value moves to the last 4 bytes of the binary, which
        # become "AAAA": no NUL follows it before the end. The value offset
        # of the second string entry points there.
        value_at = len(buf) - 4
        buf[value_at:] = b"AAAA"
        put64(buf, f["string_entries"] + STRING_ENTRY + 8, value_at)
    elif case == "string-offset-past-end":
        # Key offset of the first string entry points past the binary.
        put64(buf, f["string_entries"], 0x100000)
    elif case == "string-table-past-end":
        # String entries start (entry field at 0x28) past the binary's end.
        put64(buf, f["string_offset"], 0x10000)
    elif case == "huge-num-strings":
        # num_strings * 16 overflows 64 bits.
        put64(buf, f["num_strings"], 0x1000000000000001)
    elif case == "huge-num-strings-max":
        put64(buf, f["num_strings"], 0xFFFFFFFFFFFFFFFF)
    elif case == "v2-huge-entries":
        # A v2 header whose entry count (offset 24) is absurd.
        put32(buf, 4, 2)
        put64(buf, f["entry_size"], 0x0800000000000000)
    elif case == "huge-size":
        # Size field 2^64-8: far past the end, and offset + size overflows.
        put64(buf, f["size"], 0xFFFFFFFFFFFFFFF8)
    elif case == "entry-offset-past-end":
        put64(buf, f["entry_offset"], 0x100000)
    elif case == "truncated-elf":
        # The first 100 bytes of an ELF object: ELF magic, nothing else.
        with open(sys.argv[3], "rb") as src:
            buf = bytearray(src.read()[:100])
    elif case == "corrupt-compressed":
        # SOURCE is a compressed v3 binary; flip bytes 48..79, inside its
        # zstd frame (header 40 bytes, then the frame's magic and header).
        with open(sys.argv[3], "rb") as src:
            buf = bytearray(src.read())
        for i in range(48, min(len(buf), 80)):
            buf[i] ^= 0x5A
    elif case == "implausible-inflated":
        # SOURCE is a compressed v3 binary; its inflated size (offset 32)
        # becomes 2^40, far beyond what the few compressed bytes could hold.
        with open(sys.argv[3], "rb") as src:
            buf = bytearray(src.read())
        put64(buf, 32, 1 << 40)
    elif case == "corrupt-archive-header":
        # SOURCE is a GNU archive; the size field (48..58 of the member
        # header) of the member named by argv[4] becomes 9999999999.
        with open(sys.argv[3], "rb") as src:
            buf = bytearray(src.read())
        at = buf.find((sys.argv[4] + "/").encode())
        if at < 0:
            sys.exit("member not found")
        buf[at + 48:at + 58] = b"9999999999"
    else:
        sys.exit("unknown case " + case)

    with open(output, "wb") as out:
        out.write(bytes(buf))


if __name__ == "__main__":
    main()

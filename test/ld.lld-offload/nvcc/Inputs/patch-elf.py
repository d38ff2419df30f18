#!/usr/bin/env python3
"""Usage: patch-elf.py IN OUT EDIT...

Copies the 64-bit little-endian ELF object IN to OUT with EDITs applied in
place, so that everything else (the symbol table, relocations, other
sections) stays byte for byte as it was, as llvm-objcopy --update-section
would not promise:

  size:SECTION:N            set SECTION's sh_size to N (a truncated section)
  bytes:SECTION:OFFSET:HEX  overwrite SECTION's bytes at OFFSET with HEX

N and OFFSET are decimal or 0x-prefixed hexadecimal.
"""
import struct
import sys


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [shoff + i * shentsize for i in range(shnum)]
    names_off, = struct.unpack_from("<Q", data, headers[shstrndx] + 0x18)
    result = {}
    for h in headers:
        name, = struct.unpack_from("<I", data, h)
        end = data.index(b"\0", names_off + name)
        result[data[names_off + name:end].decode()] = h
    return result


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    data = bytearray(open(sys.argv[1], "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit("patch-elf.py: %s: not a 64-bit little-endian ELF file" %
                 sys.argv[1])
    headers = sections(data)
    for edit in sys.argv[3:]:
        kind, name, *rest = edit.split(":")
        if name not in headers:
            sys.exit("patch-elf.py: %s: no section '%s'" % (sys.argv[1], name))
        h = headers[name]
        offset, size = struct.unpack_from("<QQ", data, h + 0x18)
        if kind == "size" and len(rest) == 1:
            struct.pack_into("<Q", data, h + 0x20, int(rest[0], 0))
        elif kind == "bytes" and len(rest) == 2:
            at, new = int(rest[0], 0), bytes.fromhex(rest[1])
            if at + len(new) > size:
                sys.exit("patch-elf.py: %s: past the end of section '%s'" %
                         (edit, name))
            data[offset + at:offset + at + len(new)] = new
        else:
            sys.exit("patch-elf.py: bad edit '%s'\n%s" % (edit, __doc__))
    open(sys.argv[2], "wb").write(data)


if __name__ == "__main__":
    main()

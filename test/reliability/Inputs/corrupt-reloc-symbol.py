"""Gives the first relocation of an ELF64 little-endian object's SHT_RELA
section SECTION a symbol index past the end of its symbol table (a corrupt
r_info).

Usage: corrupt-reloc-symbol.py IN OUT SECTION
"""
import struct
import sys

from elf64 import section_header, section_headers

src, dst, wanted = sys.argv[1], sys.argv[2], sys.argv[3].encode()
data = bytearray(open(src, "rb").read())
for name, h in section_headers(data):
    if name != wanted:
        continue
    assert h[1] == 4, "not SHT_RELA"
    symbols = section_header(data, h[6])[5] // 24  # sh_link: the symtab
    info_at = h[4] + 8  # Elf64_Rela: r_offset, then r_info
    info, = struct.unpack_from("<Q", data, info_at)
    struct.pack_into("<Q", data, info_at,
                     ((symbols + 1000) << 32) | (info & 0xFFFFFFFF))
    open(dst, "wb").write(data)
    sys.exit(0)
sys.exit("no section " + wanted.decode())

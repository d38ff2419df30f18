# Sets the ch_size of an ELF64 little-endian object's compressed section:
#   set-chdr-size.py <object> <section name> <size>
# (For tests of compressed sections whose header claims more than they hold.)
import struct
import sys

from elf64 import section_headers

path, name, size = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
data = bytearray(open(path, "rb").read())
for n, h in section_headers(data):
    if n == name:
        struct.pack_into("<Q", data, h[4] + 8, size)  # Elf64_Chdr.ch_size
        open(path, "wb").write(data)
        sys.exit(0)
sys.exit("no section " + sys.argv[2])

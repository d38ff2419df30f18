# Sets the ch_size of an ELF64 little-endian object's compressed section:
#   set-chdr-size.py <object> <section name> <size>
# (For tests of compressed sections whose header claims more than they hold.)
import struct
import sys

path, name, size = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
data = bytearray(open(path, "rb").read())
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
def shdr(i):
    return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
strtab_off = shdr(shstrndx)[4]
for i in range(shnum):
    h = shdr(i)
    n = data[strtab_off + h[0]:data.index(b"\0", strtab_off + h[0])]
    if n == name:
        struct.pack_into("<Q", data, h[4] + 8, size)  # Elf64_Chdr.ch_size
        open(path, "wb").write(data)
        sys.exit(0)
sys.exit("no section " + sys.argv[2])

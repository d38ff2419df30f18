"""Where a section of an ELF64 little-endian file is, for the test scripts."""
import struct
import sys


def section(data, wanted):
    """The file offset and size of the section named WANTED (bytes)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    strtab = header(shstrndx)[4]
    for i in range(shnum):
        h = header(i)
        name = data[strtab + h[0]:data.index(b"\0", strtab + h[0])]
        if name == wanted:
            return h[4], h[5]
    sys.exit("no section " + wanted.decode())

"""The section headers of an ELF64 little-endian file, for the scripts here
that corrupt one field of an object."""
import struct


def section_headers(data):
    """Yields (name, header) for each section of DATA, where header is
    (sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link,
    sh_info, sh_addralign, sh_entsize)."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, \
        "ELF64 little-endian only"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    strtab = headers[shstrndx][4]
    for h in headers:
        start = strtab + h[0]
        yield bytes(data[start:data.index(b"\0", start)]), h


def section_header(data, index):
    """The header of the section at INDEX, as section_headers() gives it."""
    return list(section_headers(data))[index][1]

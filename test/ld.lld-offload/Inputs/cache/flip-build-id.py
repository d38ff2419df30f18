"""Flips one bit of the GNU build ID of the ELF file argv[1], in place: the
same file as another build would be to the device-link cache."""
import struct
import sys

path = sys.argv[1]
data = bytearray(open(path, "rb").read())
assert data[:4] == b"\x7fELF" and data[4] == 2, "a 64-bit ELF file"
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
for i in range(phnum):
    p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
        "<IIQQQQ", data, phoff + i * phentsize)
    if p_type != 4:  # PT_NOTE
        continue
    at, end = p_offset, p_offset + p_filesz
    while at + 12 <= end:
        namesz, descsz, ntype = struct.unpack_from("<III", data, at)
        name_at = at + 12
        desc_at = name_at + ((namesz + 3) & ~3)
        if ntype == 3 and data[name_at:name_at + 4] == b"GNU\0":  # NT_GNU_BUILD_ID
            data[desc_at] ^= 1
            open(path, "wb").write(bytes(data))
            sys.exit(0)
        at = desc_at + ((descsz + 3) & ~3)
sys.exit("no GNU build ID in " + path)

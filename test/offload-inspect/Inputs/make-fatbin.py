# Writes CUDA fat binaries in the layout NVIDIA's fatbinary uses, for tests
# that run without the toolkit: make-fatbin.py <out> <entry>... where an
# entry is kind:arch:flags:payload-file[:uncompressed-size] (kind 1 PTX,
# 2 ELF). A compressed entry's payload is stored as given, padded to 8.
import struct
import sys

entries = b""
for spec in sys.argv[2:]:
    fields = spec.split(":")
    kind, arch, flags = int(fields[0]), int(fields[1]), int(fields[2], 0)
    payload = open(fields[3], "rb").read()
    inflated = int(fields[4]) if len(fields) > 4 else 0
    compressed = len(payload) if inflated else 0
    padded = payload + b"\0" * (-len(payload) % 8)
    entries += struct.pack("<HHIQIIHHIIIQQQ", kind, 0x101, 64, len(padded),
                           compressed, 0, 0, 8, arch, 0, 0, flags, 0, inflated)
    entries += padded
header = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entries))
open(sys.argv[1], "wb").write(header + entries)

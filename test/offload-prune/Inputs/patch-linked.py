"""Damages a linked HIP program (a non-PIE executable), for error tests.

  patch-linked.py FILE wrapper-outside|garbage|ccob-v1

wrapper-outside: the first __hip_fatbin_wrapper's pointer (its stored value,
  which a non-PIE executable has no relocation for) points at address 0x10;
garbage: .hip_fatbin starts with "garbage!";
ccob-v1: the CCOB v3 at the start of .hip_fatbin written as a CCOB v1 (a
  20-byte header without a total size) in its place, the rest zero.
"""
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from elf_section import section  # noqa: E402


path, mode = sys.argv[1:]
data = bytearray(open(path, "rb").read())
if mode == "wrapper-outside":
    off, _ = section(data, b".hipFatBinSegment")
    struct.pack_into("<Q", data, off + 8, 0x10)
elif mode == "garbage":
    off, _ = section(data, b".hip_fatbin")
    data[off:off + 8] = b"garbage!"
elif mode == "ccob-v1":
    off, _ = section(data, b".hip_fatbin")
    assert data[off:off + 6] == b"CCOB\3\0"
    method, = struct.unpack_from("<H", data, off + 6)
    total, size, digest = struct.unpack_from("<QQQ", data, off + 8)
    body = bytes(data[off + 32:off + total])
    v1 = b"CCOB" + struct.pack("<HHIQ", 1, method, size, digest) + body
    data[off:off + total] = v1 + bytes(total - len(v1))
else:
    sys.exit("unknown mode " + mode)
open(path, "wb").write(data)

#!/usr/bin/env python3
"""Writes malformed offload bundles for the error tests:
make-bad.py KIND OUT, KIND one of truncated-header, entry-past-end,
overlapping, huge-count, huge-id, ccob-size, ccob-hash, ccob-huge."""
import hashlib
import struct
import sys
import zlib

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
HOST = b"host-x86_64-unknown-linux-gnu-"
DEV = b"hip-amdgcn-amd-amdhsa--gfx90a"


def bundle(entries):
    """entries: (offset, size, id), offsets from the start of the bundle."""
    out = MAGIC + struct.pack("<Q", len(entries))
    for off, size, ident in entries:
        out += struct.pack("<QQQ", off, size, len(ident)) + ident
    return out


def ccob(data, total=None, size=None, digest=None):
    body = zlib.compress(data)
    h = digest if digest is not None else struct.unpack(
        "<Q", hashlib.md5(data).digest()[:8])[0]
    total = 32 + len(body) if total is None else total
    size = len(data) if size is None else size
    return b"CCOB" + struct.pack("<HHQQQ", 3, 0, total, size, h) + body


kind, out = sys.argv[1], sys.argv[2]
good = bundle([(200, 4, HOST), (204, 2, DEV)]).ljust(200, b"\0") + b"HOSTD1"
if kind == "truncated-header":
    data = good[:28]
elif kind == "entry-past-end":
    data = bundle([(200, 4, HOST), (204, 1000, DEV)]).ljust(200, b"\0") + b"HOSTD1"
elif kind == "overlapping":
    data = bundle([(200, 4, HOST), (202, 4, DEV)]).ljust(200, b"\0") + b"HOSTD1"
elif kind == "huge-count":
    data = MAGIC + struct.pack("<Q", 1 << 60) + b"\0" * 64
elif kind == "huge-id":
    data = MAGIC + struct.pack("<QQQQ", 1, 200, 4, 1 << 62) + b"\0" * 200
elif kind == "ccob-size":
    data = ccob(good, total=100000)
elif kind == "ccob-hash":
    data = ccob(good, digest=12345)
elif kind == "ccob-huge":
    data = ccob(good, size=1 << 50)
else:
    sys.exit("unknown kind " + kind)
open(out, "wb").write(data)

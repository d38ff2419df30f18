"""Compresses a bundle into a CCOB v3 that offload-prune cannot reproduce.

  make-ccob.py BUNDLE OUT

OUT gets "CCOB", version 3, method 0 (zlib), the total and uncompressed
sizes, the first 8 bytes of BUNDLE's MD5, then BUNDLE deflated at level 9
with memory level 9: no level of zlib's defaults gives those bytes, so
offload-prune compresses a pruned bundle at level 3, which may be larger.
"""
import hashlib
import struct
import sys
import zlib

bundle = open(sys.argv[1], "rb").read()
z = zlib.compressobj(9, zlib.DEFLATED, 15, 9)
body = z.compress(bundle) + z.flush()
header = b"CCOB" + struct.pack("<HHQQ", 3, 0, 32 + len(body), len(bundle))
with open(sys.argv[2], "wb") as f:
    f.write(header + hashlib.md5(bundle).digest()[:8] + body)

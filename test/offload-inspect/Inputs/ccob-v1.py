# Rewrites a version 2 compressed bundle (CCOB) as version 1, which LLVM
# still reads but no longer writes: the header loses its total size.
import struct
import sys

data = open(sys.argv[1], "rb").read()
magic, version, method, total, size = struct.unpack_from("<4sHHII", data)
assert magic == b"CCOB" and version == 2, "not a version 2 CCOB"
header = struct.pack("<4sHHI", magic, 1, method, size) + data[16:24]
open(sys.argv[2], "wb").write(header + data[24:total])

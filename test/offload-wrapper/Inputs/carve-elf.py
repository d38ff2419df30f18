#!/usr/bin/env python3
"""Writes the first ELF file found inside a CUDA fat binary to a file. The ELF
header gives the size: section headers come last in what nvlink writes."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
start = data.find(b"\x7fELF")
if start < 0:
    sys.exit("no ELF in " + sys.argv[1])
elf = data[start:]
shoff, = struct.unpack_from("<Q", elf, 0x28)
shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
open(sys.argv[2], "wb").write(elf[:shoff + shentsize * shnum])

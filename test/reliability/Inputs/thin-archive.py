#!/usr/bin/env python3
"""Writes the malformed archives of thin-archive-members.test.

  thin-archive.py table-past-end OUT   a thin archive whose last member LLVM
                                       22 takes for the symbol table "/" (its
                                       name field reads "/ X"): its 5000
                                       bytes run past the end, and the 60
                                       bytes left start like a COFF object
                                       whose section table runs past the end
                                       too (docs/fuzzing.md, finding 10)
  thin-archive.py long-name OUT        a thin archive whose last member has a
                                       BSD long name ("#1/64") past the end
  thin-archive.py nest N OUT           a regular archive nested N deep
"""
import struct
import sys


def header(name, size):
    h = (name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) +
         b"644".ljust(8) + str(size).encode().ljust(10) + b"`\n")
    assert len(h) == 60
    return h


def table_past_end():
    # Read as a member header, these 60 bytes name a thin member; read as
    # the data of "/ X", they are an x86-64 COFF header with 3 sections,
    # whose table starts at 20: the first section header fits, the others
    # lie past the end of the archive.
    coff = struct.pack("<HHIIIHH", 0x8664, 3, 0, 0, 0, 0, 0)
    fake = coff.ljust(48, b"\0") + b"0".ljust(10) + b"`\n"
    return b"!<thin>\n" + header(b"//", 0) + header(b"/ X", 5000) + fake


def long_name():
    return b"!<thin>\n" + header(b"#1/64", 64)


def nest(depth):
    data = b"abc"
    for _ in range(depth):
        pad = b"\n" if len(data) % 2 else b""
        data = b"!<arch>\n" + header(b"a/", len(data)) + data + pad
    return data


def main():
    kind = sys.argv[1]
    if kind == "table-past-end":
        data, out = table_past_end(), sys.argv[2]
    elif kind == "long-name":
        data, out = long_name(), sys.argv[2]
    elif kind == "nest":
        data, out = nest(int(sys.argv[2])), sys.argv[3]
    else:
        sys.exit("unknown kind " + kind)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()

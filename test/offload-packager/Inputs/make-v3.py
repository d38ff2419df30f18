#!/usr/bin/env python3
"""Writes a compressed version 3 OffloadBinary, for tests of large inflated
sizes made from a few KB: the body (everything after the 40-byte header) is
a zstd frame in which zeros are RLE blocks, as make-ccob.py makes them.

  make-v3.py OUT IMAGE... [--method zstd|zlib] [--claim N] [--cut N]
             [--extra-zeros N] [--string-after-images]

IMAGE is KEY=VALUE,...:SPEC, SPEC zeros:N (N zero bytes) or text:STRING;
the key `kind` gives the offload kind (openmp, cuda, hip, sycl) and `image`
the image kind (a number), the other keys are stored as strings. Images are
laid out after the strings, each 8-byte aligned. --claim stores N as the
inflated size instead of the true one; --cut ends the data after N inflated
bytes of the binary (the header still claims them all); --extra-zeros adds
N zero bytes after the body (not claimed); --string-after-images stores the
strings after the images instead of before them.
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "offload-bundler", "Inputs"))
import importlib
ccob = importlib.import_module("make-ccob")

KINDS = {"openmp": 1, "cuda": 2, "hip": 4, "sycl": 8}


def align8(n):
    return (n + 7) // 8 * 8


def parse_image(arg):
    keys, kind, value = arg.rsplit(":", 2)
    payload = int(value) if kind == "zeros" else value.encode()
    strings, offload, image = [], 0, 0
    for pair in keys.split(","):
        k, v = pair.split("=", 1)
        if k == "kind":
            offload = KINDS[v]
        elif k == "image":
            image = int(v)
        else:
            strings.append((k.encode(), v.encode()))
    return offload, image, strings, payload


def size_of(p):
    return p if isinstance(p, int) else len(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("images", nargs="+")
    ap.add_argument("--method", choices=("zstd", "zlib"), default="zstd")
    ap.add_argument("--claim", type=int)
    ap.add_argument("--cut", type=int)
    ap.add_argument("--extra-zeros", type=int, default=0)
    ap.add_argument("--string-after-images", action="store_true")
    args = ap.parse_args()
    images = [parse_image(a) for a in args.images]

    header_size = 40
    entries_at = header_size
    string_entries_at = entries_at + 40 * len(images)
    nstrings = sum(len(s) for _, _, s, _ in images)
    table_at = string_entries_at + 24 * nstrings
    table = b"\0"
    offsets = {}
    for _, _, strings, _ in images:
        for k, v in strings:
            for s in (k, v):
                if s not in offsets:
                    offsets[s] = len(table)
                    table += s + b"\0"
    def place(at):
        offsets = []
        for _, _, _, payload in images:
            offsets.append(at)
            at = align8(at + size_of(payload))
        return offsets, at

    if args.string_after_images:
        image_offsets, table_at = place(align8(table_at))
        at = align8(table_at + len(table))
    else:
        image_offsets, at = place(align8(table_at + len(table)))
    total = at

    body = b""
    strs = b""
    for (offload, image, strings, payload), off in zip(images, image_offsets):
        body += struct.pack("<HHIQQQQ", image, offload, 0,
                            string_entries_at + 24 * (len(strs) // 24),
                            len(strings), off, size_of(payload))
        for k, v in strings:
            strs += struct.pack("<QQQ", table_at + offsets[k],
                                table_at + offsets[v], len(v))
    body += strs
    pieces = [body]
    pos = header_size + len(body)
    layout = [(table_at, table)] + [
        (off, payload) for (_, _, _, payload), off in zip(images,
                                                          image_offsets)]
    for off, payload in sorted(layout, key=lambda x: x[0]):
        if off > pos:
            pieces.append(off - pos)
        pieces.append(payload)
        pos = off + size_of(payload)
    if total > pos:
        pieces.append(total - pos)
    if args.cut is not None:
        pieces = ccob.cut(pieces, args.cut - header_size)
    if args.extra_zeros:
        pieces.append(args.extra_zeros)
    if args.method == "zstd":
        compressed = ccob.zstd_frame(pieces, 20)
    else:
        compressed = ccob.zlib_stream(pieces)
    claim = total if args.claim is None else args.claim
    head = b"\x10\xff\x10\xad" + struct.pack(
        "<IQQQQ", 3, header_size + len(compressed), entries_at, len(images),
        claim)
    with open(args.out, "wb") as f:
        f.write(head + compressed)


if __name__ == "__main__":
    main()

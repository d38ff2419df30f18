#!/usr/bin/env python3
"""Writes a compressed bundle (CCOB) holding a binary bundle, for tests of
large inflated sizes made from a few KB: zeros become zstd RLE blocks (4
bytes per 128 KiB), everything else raw blocks, in a frame with a small
window. Then the header can be made to disagree with the data.

  make-ccob.py OUT ID=SPEC... [--align N] [--method zstd|zlib] [--version 2|3]
               [--claim N] [--cut N] [--extra-zeros N] [--drop-compressed N]
               [--window-log N] [--hash N]

SPEC is zeros:N (N zero bytes) or text:STRING. --claim puts N in the
header's uncompressed size instead of the true size; --cut ends the data
after N inflated bytes (the header still claims them all); --extra-zeros
adds N zero bytes to the data after the bundle (not claimed); --drop-compressed
cuts N bytes off the end of the compressed stream; --window-log sets the
zstd frame's window; --hash stores N as the hash (otherwise the true one
when the bundle is at most 64 MiB, else 0).
"""
import argparse
import hashlib
import struct
import sys
import zlib

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
BLOCK = 128 << 10


def layout(entries, align):
    """The bundle as a list of pieces: bytes, or an int for that many
    zeros."""
    header = MAGIC + struct.pack("<Q", len(entries))
    size = len(header) + sum(24 + len(i) for i, _ in entries)
    offsets, at = [], size
    for _, payload in entries:
        at = (at + align - 1) // align * align
        offsets.append(at)
        at += payload if isinstance(payload, int) else len(payload)
    for (ident, payload), off in zip(entries, offsets):
        n = payload if isinstance(payload, int) else len(payload)
        header += struct.pack("<QQQ", off, n, len(ident)) + ident
    pieces, at = [header], len(header)
    for (_, payload), off in zip(entries, offsets):
        if off > at:
            pieces.append(off - at)
        pieces.append(payload)
        at = off + (payload if isinstance(payload, int) else len(payload))
    return pieces


def cut(pieces, limit):
    out, at = [], 0
    for p in pieces:
        n = p if isinstance(p, int) else len(p)
        if at + n > limit:
            p = (limit - at) if isinstance(p, int) else p[:limit - at]
            n = limit - at
        if n:
            out.append(p)
        at += n
        if at >= limit:
            break
    return out


def zstd_frame(pieces, window_log):
    blocks = []
    for p in pieces:
        if isinstance(p, int):
            while p:
                n = min(p, BLOCK)
                blocks.append((1, n, b"\0"))
                p -= n
        else:
            for i in range(0, len(p), BLOCK):
                chunk = p[i:i + BLOCK]
                blocks.append((0, len(chunk), chunk))
    if not blocks:
        blocks.append((0, 0, b""))
    # No content size, no checksum; the window from its exponent.
    out = [struct.pack("<IBB", 0xFD2FB528, 0, (window_log - 10) << 3)]
    for i, (kind, n, body) in enumerate(blocks):
        last = 1 if i == len(blocks) - 1 else 0
        out.append(struct.pack("<I", last | kind << 1 | n << 3)[:3] + body)
    return b"".join(out)


def zlib_stream(pieces):
    c = zlib.compressobj()
    out = []
    for p in pieces:
        if isinstance(p, int):
            zeros = bytes(min(p, 1 << 20))
            while p:
                n = min(p, len(zeros))
                out.append(c.compress(zeros[:n]))
                p -= n
        else:
            out.append(c.compress(p))
    out.append(c.flush())
    return b"".join(out)


def md5_of(pieces):
    h = hashlib.md5()
    for p in pieces:
        if isinstance(p, int):
            zeros = bytes(min(p, 1 << 20))
            while p:
                n = min(p, len(zeros))
                h.update(zeros[:n])
                p -= n
        else:
            h.update(p)
    return struct.unpack("<Q", h.digest()[:8])[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("entries", nargs="+")
    ap.add_argument("--align", type=int, default=1)
    ap.add_argument("--method", choices=("zstd", "zlib"), default="zstd")
    ap.add_argument("--version", type=int, choices=(2, 3), default=3)
    ap.add_argument("--claim", type=int)
    ap.add_argument("--cut", type=int)
    ap.add_argument("--extra-zeros", type=int, default=0)
    ap.add_argument("--drop-compressed", type=int, default=0)
    ap.add_argument("--window-log", type=int, default=20)
    ap.add_argument("--hash", type=int)
    args = ap.parse_args()
    entries = []
    for e in args.entries:
        ident, spec = e.split("=", 1)
        kind, value = spec.split(":", 1)
        if kind == "zeros":
            entries.append((ident.encode(), int(value)))
        elif kind == "text":
            entries.append((ident.encode(), value.encode()))
        else:
            sys.exit("unknown payload kind " + kind)
    pieces = layout(entries, args.align)
    size = sum(p if isinstance(p, int) else len(p) for p in pieces)
    if args.cut is not None:
        pieces = cut(pieces, args.cut)
    if args.hash is not None:
        digest = args.hash
    else:
        digest = md5_of(pieces) if size <= 64 << 20 else 0
    if args.extra_zeros:
        pieces.append(args.extra_zeros)
    if args.method == "zstd":
        body = zstd_frame(pieces, args.window_log)
    else:
        body = zlib_stream(pieces)
    if args.drop_compressed:
        body = body[:-args.drop_compressed]
    claim = size if args.claim is None else args.claim
    method = 1 if args.method == "zstd" else 0
    if args.version == 3:
        head = b"CCOB" + struct.pack("<HHQQQ", 3, method, 32 + len(body),
                                     claim, digest)
    else:
        head = b"CCOB" + struct.pack("<HHIIQ", 2, method, 24 + len(body),
                                     claim, digest)
    with open(args.out, "wb") as f:
        f.write(head + body)


if __name__ == "__main__":
    main()

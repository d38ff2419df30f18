#!/usr/bin/env python3
"""An independent reader of the OffloadBinary format (versions 1, 2 and 3),
written from the format description, so that the tests check our tool's
output against something other than our own library.

usage:
  offload-binary.py dump FILE           print every binary and entry
  offload-binary.py image FILE N OUT    write the N-th image (counting over
                                        all binaries in FILE) to OUT
  offload-binary.py inflate FILE OUT    write FILE's single compressed v3
                                        binary as the uncompressed v3 binary
                                        it stands for (needs the zstd CLI)
  offload-binary.py check-list          read `offload-packager --list` lines
                                        on stdin; for each origin that names
                                        a plain file (not an archive member
                                        or bitcode global), parse the binary
                                        at that file offset and print "OK" if
                                        version, triple, arch and image size
                                        agree, "MISMATCH" otherwise

Binaries lie back to back in FILE, each at an 8-byte aligned offset. `dump`
also checks the layout invariants LLVM's writer keeps and prints "BAD: ..."
lines when one does not hold.
"""

import shutil
import struct
import subprocess
import sys

MAGIC = b"\x10\xff\x10\xad"


def cstring(data, offset):
    end = data.index(b"\x00", offset)
    return data[offset:end].decode("utf-8", "replace")


def inflate(binary):
    """The uncompressed form of a compressed v3 binary."""
    _, size, entries_offset, _, inflated = struct.unpack_from("<IQQQQ",
                                                              binary, 4)
    body = binary[entries_offset:size]
    zstd = shutil.which("zstd")
    if not zstd:
        sys.exit("offload-binary.py: the zstd command is needed to inflate")
    out = subprocess.run([zstd, "-d", "-c", "-q"], input=body,
                         stdout=subprocess.PIPE, check=True).stdout
    if len(out) != inflated - entries_offset:
        sys.exit("offload-binary.py: inflated to %d bytes, header says %d" %
                 (len(out), inflated - entries_offset))
    header = bytearray(binary[:entries_offset])
    struct.pack_into("<Q", header, 8, inflated)
    struct.pack_into("<Q", header, 32, 0)
    return bytes(header) + out


def parse(data):
    """Yields (offset, version, compressed, stored size, inflated size,
    [entries]) per binary."""
    offset = 0
    while offset < len(data):
        if data[offset:offset + 4] != MAGIC:
            sys.exit("offload-binary.py: no magic at offset %#x" % offset)
        version, size = struct.unpack_from("<IQ", data, offset + 4)
        binary = data[offset:offset + size]
        compressed = False
        if version >= 3 and struct.unpack_from("<Q", binary, 32)[0] != 0:
            compressed = True
            binary = inflate(binary)
        entries_offset, field = struct.unpack_from("<QQ", binary, 16)
        count = 1 if version == 1 else field
        string_entry = 16 if version == 1 else 24
        entries = []
        for i in range(count):
            (image_kind, offload_kind, flags, string_offset, num_strings,
             image_offset, image_size) = struct.unpack_from(
                 "<HHIQQQQ", binary, entries_offset + 40 * i)
            strings = []
            for s in range(num_strings):
                at = string_offset + string_entry * s
                key_offset, value_offset = struct.unpack_from("<QQ", binary, at)
                key = cstring(binary, key_offset)
                if version == 1:
                    value = cstring(binary, value_offset)
                else:
                    value_size = struct.unpack_from("<Q", binary, at + 16)[0]
                    value = binary[value_offset:value_offset +
                                   value_size].decode("utf-8", "replace")
                strings.append((key, value))
            image = binary[image_offset:image_offset + image_size]
            entries.append(dict(image_kind=image_kind,
                                offload_kind=offload_kind, flags=flags,
                                strings=strings, image=image,
                                image_offset=image_offset,
                                entry_size=field if version == 1 else None))
        yield offset, version, compressed, size, len(binary), entries
        offset = (offset + size + 7) & ~7


def dump(path):
    data = open(path, "rb").read()
    for offset, version, compressed, size, real_size, entries in parse(data):
        print("binary at 0x%X: version %d%s size %d entries %d" %
              (offset, version, " compressed" if compressed else "", size,
               len(entries)))
        if not compressed and size % 8:
            print("BAD: size %d is not a multiple of 8" % size)
        if version == 1 and entries[0]["entry_size"] != 40:
            print("BAD: v1 entry size %d" % entries[0]["entry_size"])
        if entries and entries[0]["image_offset"] % 8:
            print("BAD: first image at unaligned offset %d" %
                  entries[0]["image_offset"])
        for i, e in enumerate(entries):
            print("  entry %d: image_kind %d offload_kind %d flags %d "
                  "image_size %d" % (i, e["image_kind"], e["offload_kind"],
                                     e["flags"], len(e["image"])))
            for key, value in e["strings"]:
                print("    %s=%s" % (key, value))


def parse_one(data, offset):
    """The binary at `offset` of `data`: (version, compressed, entries)."""
    size = struct.unpack_from("<Q", data, offset + 8)[0]
    for _, version, compressed, _, _, entries in parse(
            data[offset:offset + size]):
        return version, compressed, entries
    return None


def check_list():
    seen = {}
    for line in sys.stdin:
        origin, rest = line.split(": ", 1)
        fields = rest.split()
        path_part, offset = origin.rsplit("+0x", 1)
        offset = int(offset, 16)
        if "(" in path_part or ":@" in path_part:
            print("SKIP " + origin)
            continue
        path = path_part.split(":", 1)[0]
        key = (path, offset)
        index = seen.get(key, 0)
        seen[key] = index + 1
        data = open(path, "rb").read()
        if data[offset:offset + 4] != MAGIC:
            print("MISMATCH %s: no magic at that offset" % origin)
            continue
        version, compressed, entries = parse_one(data, offset)
        entry = entries[index]
        strings = dict(entry["strings"])
        expect = "v%d%s" % (version, "-compressed" if compressed else "")
        got = (fields[0], fields[3], fields[4], fields[5])
        want = (expect, strings.get("triple") or "-",
                strings.get("arch") or "-", str(len(entry["image"])))
        print(("OK %s" if got == want else "MISMATCH %s: %s != %s") %
              ((origin,) if got == want else (origin, got, want)))


def main():
    cmd = sys.argv[1]
    if cmd == "dump":
        dump(sys.argv[2])
    elif cmd == "image":
        data = open(sys.argv[2], "rb").read()
        images = [e["image"] for b in parse(data) for e in b[5]]
        open(sys.argv[4], "wb").write(images[int(sys.argv[3])])
    elif cmd == "check-list":
        check_list()
    elif cmd == "inflate":
        data = open(sys.argv[2], "rb").read()
        open(sys.argv[3], "wb").write(inflate(data))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()

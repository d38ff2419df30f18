#!/usr/bin/env python3
"""Inputs and references for spirv.test.

  spirv-inputs.py kernels N OUT.hip   HIP (no headers) with N kernels
  spirv-inputs.py summary             spirv-dis output (stdin) as the lines
                                      offload-inspect prints for the module
  spirv-inputs.py json-summary        the same lines from the "spirv" object
                                      of each image offload-inspect --json
                                      (stdin) lists
  spirv-inputs.py big-endian IN OUT   the module with every word byte-swapped
  spirv-inputs.py cut-entry IN OUT    the module cut 8 bytes into its first
                                      OpEntryPoint; prints that instruction's
                                      offset and word count
  spirv-inputs.py image-kind IN OUT K a v1 OffloadBinary with its first
                                      entry's image kind set to K
"""

import struct
import sys


def kernels(n, out):
    with open(out, "w") as f:
        f.write("struct dim3 { unsigned x, y, z; };\n"
                "typedef struct ihipStream_t *hipStream_t;\n"
                'extern "C" int hipLaunchKernel(const void *, dim3, dim3, '
                "void **, unsigned long, hipStream_t);\n")
        for i in range(n):
            f.write("__attribute__((global)) void k%d(long *P, double X) "
                    "{ P[%d] += (long)(X * %d); }\n" % (i, i, i))


def summary():
    """The header, OpMemoryModel, OpCapability, OpExtension and OpEntryPoint
    of spirv-dis's listing, in offload-inspect's words."""
    version = bound = memory = None
    caps, exts, entries = [], [], []
    for line in sys.stdin:
        words = line.split()
        if line.startswith("; Version: "):
            version = words[2]
        elif line.startswith("; Bound: "):
            bound = words[2]
        elif words[:1] == ["OpMemoryModel"]:
            memory = " ".join(words[1:3])
        elif words[:1] == ["OpCapability"]:
            caps.append(words[1])
        elif words[:1] == ["OpExtension"]:
            exts.append(words[1].strip('"'))
        elif words[:1] == ["OpEntryPoint"]:
            # OpEntryPoint <model> %<id> "<name>" <interface>...
            entries.append((words[1], words[3].strip('"')))
    print("SPIR-V %s, bound %s" % (version, bound))
    print("memory model: %s" % (memory or "-"))
    print("capabilities: %s" % (" ".join(caps) or "-"))
    print("extensions: %s" % (" ".join(exts) or "-"))
    for model, name in entries:
        print("entry point: %s %s" % (model, name))
    if not entries:
        print("entry points: -")


def json_summary():
    import json
    for image in json.load(sys.stdin)["images"]:
        m = image.get("spirv")
        if not m:
            continue
        print("SPIR-V %s, bound %d" % (m["version"], m["bound"]))
        print("memory model: %s" % (
            "%s %s" % (m["addressing_model"], m["memory_model"])
            if m["memory_model"] else "-"))
        print("capabilities: %s" % (" ".join(m["capabilities"]) or "-"))
        print("extensions: %s" % (" ".join(m["extensions"]) or "-"))
        for e in m["entry_points"]:
            print("entry point: %s %s" % (e["execution_model"], e["name"]))
        if not m["entry_points"]:
            print("entry points: -")


def big_endian(src, dst):
    data = open(src, "rb").read()
    words = struct.unpack("<%dI" % (len(data) // 4), data)
    open(dst, "wb").write(struct.pack(">%dI" % len(words), *words))


def cut_entry(src, dst):
    data = open(src, "rb").read()
    at = 20
    while at < len(data):
        (first,) = struct.unpack_from("<I", data, at)
        count, opcode = first >> 16, first & 0xFFFF
        if opcode == 15:
            open(dst, "wb").write(data[:at + 8])
            print("OpEntryPoint at 0x%X, %d words" % (at, count))
            return
        at += 4 * count
    sys.exit("no OpEntryPoint")


def image_kind(src, dst, kind):
    data = bytearray(open(src, "rb").read())
    (entries,) = struct.unpack_from("<Q", data, 16)
    struct.pack_into("<H", data, entries, kind)
    open(dst, "wb").write(data)


def main():
    cmd = sys.argv[1]
    if cmd == "kernels":
        kernels(int(sys.argv[2]), sys.argv[3])
    elif cmd == "summary":
        summary()
    elif cmd == "json-summary":
        json_summary()
    elif cmd == "big-endian":
        big_endian(sys.argv[2], sys.argv[3])
    elif cmd == "cut-entry":
        cut_entry(sys.argv[2], sys.argv[3])
    elif cmd == "image-kind":
        image_kind(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()

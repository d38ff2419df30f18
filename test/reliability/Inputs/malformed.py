#!/usr/bin/env python3
"""Generates malformed inputs from valid seeds and runs our tools on them.

    malformed.py SEEDS OUT --packager P --bundler B --wrapper W --ld L
                 --inspect I --prune R

SEEDS holds valid files made by the test's RUN lines (names below); OUT gets
one file per malformed input and the outputs the tools are asked to write.
Every tool run on a malformed input must print "error:", exit with code 1
(not a signal, not a crash) and leave no output file (and no temporary file
next to it). Prints one line per failure and a summary.
"""

import argparse
import os
import shutil
import struct
import subprocess
import sys

HOST_ID = "host-x86_64-unknown-linux-gnu-"
OMP_ID = "openmp-x86_64-unknown-linux-gnu-"


def u32(b, off, v):
    b[off:off + 4] = struct.pack("<I", v & 0xFFFFFFFF)


def u64(b, off, v):
    b[off:off + 8] = struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def r64(b, off):
    return struct.unpack_from("<Q", b, off)[0]


def elf_sections(b):
    """(name, header offset, sh_offset, sh_size) of an ELF64 LE object."""
    shoff = r64(b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    hdrs = [shoff + i * shentsize for i in range(shnum)]
    stroff = r64(b, hdrs[shstrndx] + 0x18)
    out = []
    for h in hdrs:
        nameoff = struct.unpack_from("<I", b, h)[0]
        end = b.index(b"\0", stroff + nameoff)
        name = b[stroff + nameoff:end].decode()
        out.append((name, h, r64(b, h + 0x18), r64(b, h + 0x20)))
    return out


def section(b, prefix):
    for s in elf_sections(b):
        if s[0].startswith(prefix):
            return s
    raise SystemExit("no section %s in seed" % prefix)


def ar(members):
    """A GNU archive of (name, bytes) members, no symbol table."""
    out = bytearray(b"!<arch>\n")
    for name, data in members:
        hdr = "%-16s%-12s%-6s%-6s%-8s%-10d`\n" % (name + "/", "0", "0", "0",
                                                 "644", len(data))
        out += hdr.encode() + data
        if len(data) % 2:
            out += b"\n"
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--known", action="append", default=[],
                    help="NAME:KIND:INDEX of a run known to fail (a bug "
                    "reported elsewhere): reported as KNOWN, not FAIL")
    ap.add_argument("seeds")
    ap.add_argument("out")
    for t in ("packager", "bundler", "wrapper", "ld", "inspect", "prune"):
        ap.add_argument("--" + t)
    a = ap.parse_args()
    S = lambda n: bytearray(open(os.path.join(a.seeds, n), "rb").read())
    os.makedirs(a.out, exist_ok=True)
    cases = []  # (name, bytes, kinds)

    def add(name, data, *kinds):
        cases.append((name, bytes(data), kinds))

    # --- OffloadBinaries, raw (v1 from llvm-offload-binary, v2/v3 ours) ----
    for v in ("v1", "v2", "v3", "v3z"):
        seed = S(v + ".bin")
        kinds = ("bin",)
        add(v + "-truncated-header", seed[:20], *kinds)
        add(v + "-truncated-half", seed[:len(seed) // 2], *kinds)
        # One byte short of the size the header gives (what follows it is
        # padding, which may go).
        add(v + "-truncated-last-byte", seed[:r64(seed, 8) - 1], *kinds)
        b = seed[:]; u32(b, 4, 9); add(v + "-bad-version", b, *kinds)
        b = seed[:]; u32(b, 4, 0); add(v + "-version-0", b, *kinds)
        b = seed[:]; u64(b, 8, 16); add(v + "-size-below-header", b, *kinds)
        b = seed[:]; u64(b, 8, 1 << 62); add(v + "-size-huge", b, *kinds)
        b = seed[:]; u64(b, 16, 8); add(v + "-entries-in-header", b, *kinds)
        b = seed[:]; u64(b, 16, 1 << 63); add(v + "-entries-offset-huge", b,
                                              *kinds)
        if v == "v3z":
            b = seed[:]; u64(b, 32, 1 << 50)
            add(v + "-inflated-size-huge", b, *kinds)
            # Claiming more than the data holds, past the last image: only
            # readers that inflate whole get there (listing and extracting
            # stop after what they show or write).
            b = seed[:]; u64(b, 32, r64(b, 32) + 8)
            add(v + "-inflated-size-wrong", b, "binwhole")
            # Claiming less: the last image runs past the claimed end.
            b = seed[:]; u64(b, 32, r64(b, 32) - 8)
            add(v + "-inflated-size-short", b, *kinds)
            b = seed[:]; eo = r64(b, 16)
            for i in range(eo + 4, min(eo + 40, len(b))):
                b[i] ^= 0x5A
            add(v + "-corrupt-zstd-body", b, *kinds)
            continue
        eo = r64(seed, 16)
        b = seed[:]
        if v == "v1":
            u64(b, 24, 8); add(v + "-entry-size-small", b, *kinds)
        else:
            u64(b, 24, 1 << 40); add(v + "-entry-count-huge", b, *kinds)
        b = seed[:]; u64(b, eo + 24, len(seed) - 4)  # image offset
        add(v + "-image-past-end", b, *kinds)
        b = seed[:]; u64(b, eo + 32, 1 << 63)  # image size
        add(v + "-image-size-huge", b, *kinds)
        b = seed[:]; u64(b, eo + 16, 1 << 40)  # num strings
        add(v + "-strings-count-huge", b, *kinds)
        b = seed[:]; so = r64(b, eo + 8); u64(b, so, len(seed) + 100)
        add(v + "-key-offset-past-end", b, *kinds)
        b = seed[:]; so = r64(b, eo + 8); u64(b, eo + 8, len(seed) - 8)
        add(v + "-string-table-past-end", b, *kinds)
        # Valid binary followed by garbage that is not a binary.
        add(v + "-trailing-garbage", seed + b"\x10\xff\x10\xadJUNKJUNK", *kinds)

    # --- binary bundles ----------------------------------------------------
    bb = S("bundle.bc")
    add("bundle-truncated-count", bb[:28], "bundle")
    b = bb[:]; u64(b, 24, 1 << 40); add("bundle-count-huge", b, "bundle")
    b = bb[:]; u64(b, 32, len(bb) + 1); add("bundle-offset-past-end", b,
                                            "bundle")
    b = bb[:]; u64(b, 40, 1 << 63); add("bundle-size-huge", b, "bundle")
    b = bb[:]; u64(b, 48, 1 << 40); add("bundle-id-length-huge", b, "bundle")
    b = bb[:]; u64(b, 32, 0); add("bundle-overlaps-header", b, "bundle")
    add("bundle-truncated-payload", bb[:len(bb) - 10], "bundle")

    # --- text bundles -------------------------------------------------------
    tb = S("bundle.ll")
    end = tb.rindex(b"__END__")
    add("text-no-end-marker", tb[:end - 10], "text")
    add("text-start-without-id", b"\n; __CLANG_OFFLOAD_BUNDLE____START__ ",
        "text")
    add("text-no-bundles", b"; just IR, no markers\n", "text")

    # --- compressed bundles -------------------------------------------------
    for v in ("2", "3"):
        cc = S("ccob-v%s.bc" % v)
        add("ccob%s-truncated" % v, cc[:len(cc) // 2], "ccob")
        add("ccob%s-header-only" % v, cc[:12], "ccob")
        b = cc[:]; b[4:6] = b"\x07\x00"; add("ccob%s-bad-version" % v, b,
                                             "ccob")
        b = cc[:]; b[6:8] = b"\x05\x00"; add("ccob%s-bad-method" % v, b, "ccob")
        b = cc[:]
        if v == "3":
            u64(b, 16, 1 << 50)
        else:
            u32(b, 12, 0xFFFFFFF0)
        add("ccob%s-uncompressed-size-huge" % v, b, "ccob")
        b = cc[:]; hs = 24 if v == "2" else 32
        for i in range(hs + 4, min(hs + 40, len(b))):
            b[i] ^= 0xA5
        add("ccob%s-corrupt-body" % v, b, "ccob")
        # Like clang-offload-bundler, ours checks the hash under -verbose.
        b = cc[:]; b[hs - 8] ^= 0xFF; add("ccob%s-bad-hash" % v, b, "ccobhash")
        add("ccob%s-then-garbage" % v, cc + b"\x01garbage", "ccob")

    # --- ELF objects with bad .llvm.offloading ------------------------------
    o = S("omp.o")
    name, hdr, off, size = section(o, ".llvm.offloading")
    b = o[:]; b[off:off + 4] = b"XXXX"; add("elf-offloading-bad-magic", b,
                                            "elf")
    b = o[:]; u64(b, off + 8, 1 << 40); add("elf-offloading-size-huge", b,
                                            "elf")
    b = o[:]; u64(b, hdr + 0x20, 20); add("elf-offloading-section-truncated",
                                          b, "elf")
    b = o[:]; u64(b, hdr + 0x20, 1 << 40)
    add("elf-offloading-section-past-eof", b, "elf")
    b = o[:]; u64(b, hdr + 0x18, len(o) - 8)
    add("elf-offloading-section-offset-past-eof", b, "elf")
    b = o[:]; u32(b, off + 4, 77); add("elf-offloading-bad-version", b, "elf")
    b = o[:]; eo = r64(o, off + 16); u64(b, off + eo + 32, 1 << 62)
    add("elf-offloading-image-size-huge", b, "elf")
    b = o[:]; u64(b, 0x28, len(o) + 64)  # e_shoff
    add("elf-section-table-past-eof", b, "elf")
    add("elf-truncated", o[:len(o) // 3], "elf")

    # --- ELF object bundles with bad __CLANG_OFFLOAD_BUNDLE__ sections ------
    ob = S("bundle.o")
    name, hdr, off, size = section(ob, "__CLANG_OFFLOAD_BUNDLE__openmp")
    b = ob[:]; u64(b, hdr + 0x20, 1 << 40)
    add("objbundle-section-past-eof", b, "objbundle")
    b = ob[:]; u64(b, hdr + 0x18, len(ob) + 16)
    add("objbundle-section-offset-past-eof", b, "objbundle")
    # A section name that is not an entry ID: "...BUNDLE__openmp-x86_64-un..."
    # becomes "...BUNDLE__openmpXx86_64Xun...".
    b = ob[:]
    i = b.index(b"__CLANG_OFFLOAD_BUNDLE__openmp-x86_64")
    j = b.index(b"\0", i)
    b[i + 24:j] = bytes(b[i + 24:j]).replace(b"-", b"X")
    add("objbundle-bad-entry-id", b, "objbundle")
    add("objbundle-truncated", ob[:len(ob) // 2], "objbundle")

    # --- archives with corrupt members --------------------------------------
    good = bytes(S("omp.o"))
    bad = [c for c in cases if c[0] == "elf-offloading-size-huge"][0][1]
    add("archive-member-bad-offloading", ar([("good.o", good), ("bad.o", bad)]),
        "archive")
    a1 = ar([("good.o", good)])
    add("archive-member-truncated", a1[:len(a1) - 100], "archive")
    b = bytearray(a1); b[8 + 48:8 + 58] = b"99999999  "  # member size
    add("archive-member-size-past-eof", b, "archive")
    b = bytearray(a1); b[8 + 58:8 + 60] = b"XX"  # header terminator
    add("archive-member-bad-terminator", b, "archive")
    rawbad = [c for c in cases if c[0] == "v1-image-past-end"][0][1]
    add("archive-member-raw-binary-bad", ar([("img.bin", rawbad)]), "archive")
    inner = ar([("bad.o", bad)])
    add("archive-nested-bad", ar([("inner.a", inner)]), "archive")

    # --- AMDGPU code objects, for offload-inspect --resources ----------------
    co = S("gfx90a.co")
    name, hdr, off, size = section(co, ".note")
    # The first note: namesz, descsz, type, "AMDGPU\0" padded to 8, desc.
    desc = off + 12 + 8
    descsz = struct.unpack_from("<I", co, off + 4)[0]
    b = co[:]; b[desc:desc + 16] = b"\xc1" * 16
    add("co-note-not-msgpack", b, "codeobject")
    b = co[:]; u32(b, off + 4, 0x7FFFFFF0); add("co-note-size-huge", b,
                                                 "codeobject")
    b = co[:]; u32(b, off + 8, 31); add("co-note-no-metadata", b, "codeobject")
    b = co[:]; u64(b, hdr + 0x18, len(co) + 64)
    add("co-note-section-past-eof", b, "codeobject")
    # An entry of the wrong type: a small count (a positive fixint) made
    # `true`.
    b = co[:]
    i = b.index(b"\xab.vgpr_count", desc, desc + descsz) + 12
    assert b[i] < 0x80
    b[i] = 0xC3
    add("co-note-vgpr-count-bool", b, "codeobject")
    # A kernel whose descriptor symbol the note names wrong.
    b = co[:]
    i = b.index(b"big_lds.kd", desc, desc + descsz)
    b[i + 9:i + 10] = b"X"
    add("co-note-descriptor-unknown", b, "codeobject")
    # The descriptor symbol, in every symbol table, moved out of its section
    # or given the wrong group segment size.
    sections = elf_sections(co)
    kd_offset = None
    bad_value = co[:]
    for sname, shdr, soff, ssize in sections:
        stype = struct.unpack_from("<I", co, shdr + 4)[0]
        if stype not in (2, 11):  # SHT_SYMTAB, SHT_DYNSYM
            continue
        link = struct.unpack_from("<I", co, shdr + 0x28)[0]
        stroff = sections[link][2]
        for e in range(soff, soff + ssize, 24):
            nameoff = struct.unpack_from("<I", co, e)[0]
            end = co.index(b"\0", stroff + nameoff)
            if co[stroff + nameoff:end] != b"big_lds.kd":
                continue
            shndx = struct.unpack_from("<H", co, e + 6)[0]
            value = r64(co, e + 8)
            target = sections[shndx][1]
            kd_offset = (value - r64(co, target + 0x10)
                         + r64(co, target + 0x18))
            u64(bad_value, e + 8, 1 << 62)
    add("co-descriptor-past-section", bad_value, "codeobject")
    b = co[:]; u32(b, kd_offset, struct.unpack_from("<I", co, kd_offset)[0] + 4)
    add("co-descriptor-lds-disagrees", b, "codeobject")
    b = co[:]; b[7] = 65; add("co-os-abi-pal", b, "codeobject")
    b = co[:]; b[8] = 0; add("co-code-object-v2", b, "codeobject")
    add("co-truncated", co[:len(co) // 2], "codeobject")

    # --- commands per kind ---------------------------------------------------
    T = "x86_64-pc-linux-gnu"

    # A text file without bundle markers is malformed only for -unbundle:
    # to offload-inspect and offload-prune it is plain data without device
    # images.
    plain_data = {"text-no-bundles"}
    # A binary bundle cut inside its header is no bundle to
    # clang-offload-bundler 22, nor to ours: -list succeeds with a warning
    # (checked by offload-bundler/clang-parity.test), -unbundle finds nothing.
    header_cut = {"bundle-truncated-count", "bundle-count-huge",
                  "bundle-id-length-huge"}

    def cmds(name, kind, f, out):
        pk, bd, wr, ld = a.packager, a.bundler, a.wrapper, a.ld
        # offload-inspect reads every kind of input; --extract must write
        # nothing when there was an error.
        inspect = [] if name in plain_data else [
            [a.inspect, f], [a.inspect, "--json", f],
            [a.inspect, "--extract=" + out, f]]
        extract = [pk, f, "--image=triple=%s,file=%s" % (T, out)]
        extract_ar = [pk, f, "--image=triple=%s,file=%s" % (T, out),
                      "--archive"]
        lst = [pk, "--list", f]
        wrap = [wr, "--kind=openmp", "--triple=" + T, f, "-o", out]
        link = [ld, f, "-o", out, "-e", "main", "--unresolved-symbols=ignore-all"]
        blist = lambda t: [bd, "-list", "-type=" + t, "-input=" + f]
        prune = [a.prune, "--offload-arch=gfx90a", "--offload-targets=" + T,
                 f, "-o", out]
        unb = lambda t: [bd, "-unbundle", "-type=" + t, "-input=" + f,
                         "-targets=" + HOST_ID + "," + OMP_ID,
                         "-output=" + out, "-output=" + out + ".2"]
        # offload-inspect inflates only what it shows; the hash is checked
        # on request, as clang-offload-bundler checks it under -verbose.
        if kind == "ccobhash":
            inspect = [c[:1] + ["--verify-hashes"] + c[1:] for c in inspect]
        if kind == "binwhole":
            return [wrap]
        # Only --resources reads a code object's notes and descriptors.
        if kind == "codeobject":
            return [[a.inspect, "--resources", f],
                    [a.inspect, "--resources", "--json", f],
                    [a.inspect, "--resources", "--no-demangle", f]]
        return inspect + {
            "bin": [lst, extract, extract_ar, wrap, prune],
            "bundle": ([] if name in header_cut else [blist("bc")]) +
                      [unb("bc"), prune],
            "text": [unb("ll")] + ([] if name in plain_data else [prune]),
            "ccob": [blist("bc"), unb("bc"), prune],
            "ccobhash": [blist("bc") + ["-verbose"], unb("bc") + ["-verbose"],
                         prune],
            "elf": [lst, extract, link, prune],
            "objbundle": [blist("o"), unb("o"), link, prune],
            "archive": [lst, extract, extract_ar, link,
                        [bd, "-unbundle", "-type=a", "-input=" + f,
                         "-targets=" + OMP_ID, "-output=" + out], prune],
        }[kind]

    failures = 0
    runs = 0
    for name, data, kinds in cases:
        f = os.path.join(a.out, name)
        with open(f, "wb") as fh:
            fh.write(data)
        for kind in kinds:
            for i, cmd in enumerate(cmds(name, kind, f, f + ".out")):
                out = f + ".out"
                runs += 1
                p = subprocess.run(cmd, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=120)
                text = p.stdout.decode(errors="replace")
                problems = []
                if p.returncode != 1:
                    problems.append("exit code %d" % p.returncode)
                if "error:" not in text:
                    problems.append("no 'error:'")
                left = [n for n in os.listdir(a.out)
                        if n.startswith(name + ".out")]
                if left:
                    problems.append("left " + ", ".join(left))
                for n in left:  # offload-inspect --extract makes a folder
                    path = os.path.join(a.out, n)
                    if os.path.isdir(path):
                        shutil.rmtree(path)
                    else:
                        os.remove(path)
                key = "%s:%s:%d" % (name, kind, i)
                if problems and key in a.known:
                    print("KNOWN %s: %s" % (key, "; ".join(problems)))
                elif key in a.known:
                    print("KNOWN-NOW-PASSES %s" % key)
                elif problems:
                    failures += 1
                    print("FAIL %s [%s #%d]: %s\n  $ %s\n  %s" % (
                        name, kind, i, "; ".join(problems), " ".join(cmd),
                        text.strip().replace("\n", "\n  ")[:600]))
    print("malformed inputs: %d" % len(cases))
    print("tool runs: %d" % runs)
    print("failures: %d" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

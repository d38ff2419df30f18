#!/usr/bin/env python3
"""Shipping only the archs you need (#27), each against its floor, the same
code built for the kept target alone, in one run:

  link     the HIP program of gpu_link.py built for N AMDGPU archs, linked
           with --offload-arch=<the first> (a fat static library of its two
           units), against the link of the one-target library, and against
           the link of every arch; medians of interleaved rounds
  archive  the fat library pruned by offload-prune to that arch, against the
           one-target library's size
  in place a shared library linked from the fat objects, pruned in place by
           offload-prune, zstd -19, against the one-target shared library
           compressed the same way (and the fat one compressed)

  bench/prune.py [--build BUILD] [--archs 10] [--repeat 3] [--quick]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import gpu_link
from benchlib import timed

CLANG = gpu_link.CLANG
LLVM_BIN = gpu_link.LLVM_BIN


def zstd_size(path):
    data = subprocess.check_output(["zstd", "-19", "-q", "-c", path])
    return len(data)


def library(work, archs, funcs, kernels, linker):
    """A static and a shared library of the two units for `archs`."""
    os.makedirs(work)
    gpu_link.make_program(work, archs, funcs, kernels)
    subprocess.check_call([os.path.join(LLVM_BIN, "llvm-ar"), "rcs",
                           "libk.a", "a.o", "b.o"], cwd=work)
    subprocess.check_call([CLANG, "-shared", "a.o", "b.o", "-fuse-ld=lld",
                           "--ld-path=" + linker, "-o", "libk.so"], cwd=work)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--archs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="smaller device code, 2 archs")
    args = parser.parse_args()
    bin_dir = os.path.join(os.path.abspath(args.build), "bin")
    linker = os.path.join(bin_dir, "ld.lld-offload")
    prune = os.path.join(bin_dir, "offload-prune")
    funcs, kernels = (10, 5) if args.quick else (40, 20)
    archs = gpu_link.ARCHS[:2 if args.quick else args.archs]
    keep = archs[0]
    root = tempfile.mkdtemp(prefix="lld-offload-prune-bench-")
    try:
        fat, one = os.path.join(root, "fat"), os.path.join(root, "one")
        library(fat, archs, funcs, kernels, linker)
        library(one, [keep], funcs, kernels, linker)

        def link(cwd, extra, out):
            # The archive, not libk.so beside it.
            return [CLANG, "main.o", "stub.o", "-L.", "-Wl,--whole-archive",
                    "-l:libk.a", "-Wl,--no-whole-archive", "-fuse-ld=lld",
                    "--ld-path=" + linker, "-o", out] + extra
        runs = {"selected": (fat, link(fat, ["-Wl,--offload-arch=" + keep],
                                       "sel")),
                "one": (one, link(one, [], "one")),
                "all": (fat, link(fat, [], "all"))}
        times = {k: [] for k in runs}
        for r in range(args.repeat):
            order = list(runs) if r % 2 == 0 else list(runs)[::-1]
            for k in order:
                times[k].append(timed(runs[k][1], runs[k][0], quiet=True))
        t = {k: statistics.median(v) for k, v in times.items()}

        subprocess.check_call([prune, "--offload-arch=" + keep, "-o",
                               "libk-pruned.a", "libk.a"], cwd=fat)
        subprocess.check_call([prune, "--offload-arch=" + keep, "-o",
                               "libk-pruned.so", "libk.so"], cwd=fat)
        size = lambda d, f: os.path.getsize(os.path.join(d, f))
        a_pruned, a_one, a_fat = (size(fat, "libk-pruned.a"),
                                  size(one, "libk.a"), size(fat, "libk.a"))
        so = {name: zstd_size(os.path.join(d, f)) for name, d, f in (
            ("pruned", fat, "libk-pruned.so"), ("one", one, "libk.so"),
            ("fat", fat, "libk.so"))}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d archs, keeping %s" % (len(archs), keep))
    print("link:     --offload-arch %.3f s, one-target %.3f s, all %.3f s;"
          " selected/one %.3f, selected/all %.3f" % (
              t["selected"], t["one"], t["all"], t["selected"] / t["one"],
              t["selected"] / t["all"]))
    print("archive:  pruned %d B, one-target %d B, fat %d B; pruned/one %.3f"
          % (a_pruned, a_one, a_fat, a_pruned / a_one))
    print("in place: zstd -19 pruned %d B, one-target %d B, fat %d B;"
          " pruned/one %.3f, pruned/fat %.3f" % (
              so["pruned"], so["one"], so["fat"], so["pruned"] / so["one"],
              so["pruned"] / so["fat"]))


if __name__ == "__main__":
    sys.exit(main())

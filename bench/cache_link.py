#!/usr/bin/env python3
"""The device-link cache (--offload-cache-dir=) against clang's pipeline,
which has none, on the same work, in one run:

  relink   the HIP program of gpu_link.py for 10 AMDGPU archs, relinked
           after a change to a host-only unit (main.c): ours with a warm
           cache, upstream (clang --offload-link) as it is
  suite    20 executables without device code of their own, each linking
           the same fat static library: HIP for 4 archs, and OpenMP to
           x86_64; ours with a cache that starts empty, upstream as it is
           (with --whole-archive around the library, without which
           clang-linker-wrapper leaves its device code out); the total of
           the 20 links
  cold     the 10-arch HIP link with an empty cache against the same link
           without one (what turning the cache on costs)
  warm     the OpenMP suite relinked, the cache warm, against the floor:
           plain `clang -fopenmp main.o -L. -lfat -lomptarget -fuse-ld=lld`
           (ld.lld alone, registering nothing) on the same objects; the
           median of --repeat passes' totals

Times are medians of interleaved rounds (`relink`, `cold`) or totals
(`suite`); ratios are ours / upstream (or cache on / off): below 1 is
faster.

  bench/cache_link.py [--build BUILD] [--repeat 3] [--quick]
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
TARGETS = "-fopenmp-targets=x86_64-pc-linux-gnu"

OPENMP_LIB = """
int lib_scale(int n) {
  int x = 0;
#pragma omp target map(tofrom : x)
  for (int i = 0; i < n; ++i)
    x += i * %d;
  return x;
}
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def relink(work, linker, archs, repeat, funcs, kernels):
    objects = gpu_link.make_program(work, archs, funcs, kernels)
    cache = os.path.join(work, "cache")
    ours = [CLANG] + objects + ["-fuse-ld=lld", "--ld-path=" + linker,
                                "-Wl,--offload-cache-dir=" + cache,
                                "-o", "ours"]
    upstream = [CLANG, "--offload-link"] + objects + ["-fuse-ld=lld", "-o",
                                                      "up"]
    timed(ours, work)  # fills the cache
    t_ours, t_up = [], []
    for r in range(repeat):
        # A host-only change: main.c, compiled again (not timed).
        write(os.path.join(work, "main.c"),
              "int main(void) { return %d; }\n" % (r + 1))
        subprocess.check_call([CLANG, "-O2", "-c", "main.c"], cwd=work)
        pair = [(t_ours, ours), (t_up, upstream)]
        for times, cmd in (pair if r % 2 == 0 else pair[::-1]):
            times.append(timed(cmd, work))
    return statistics.median(t_ours), statistics.median(t_up)


def cold(work, linker, archs, repeat, funcs, kernels):
    objects = gpu_link.make_program(work, archs, funcs, kernels)
    off = [CLANG] + objects + ["-fuse-ld=lld", "--ld-path=" + linker,
                               "-o", "off"]
    t_on, t_off = [], []
    for r in range(repeat):
        cache = os.path.join(work, "cache%d" % r)
        on = off[:-2] + ["-Wl,--offload-cache-dir=" + cache, "-o", "on"]
        pair = [(t_on, on), (t_off, off)]
        for times, cmd in (pair if r % 2 == 0 else pair[::-1]):
            times.append(timed(cmd, work))
    return statistics.median(t_on), statistics.median(t_off)


def suite(work, linker, kind, archs, count, funcs, kernels, repeat=0):
    """`count` programs, each a main of its own and the fat library; for
    OpenMP, then `repeat` passes of relinks with the cache warm against
    plain ld.lld (the medians of the passes' totals, or None)."""
    if kind == "hip":
        gpu_link.make_program(work, archs, funcs, kernels)
        members = ["a.o", "b.o"]
        # The host stub of a kernel of a.hip: taking its address takes the
        # member, whose device code needs b.o's.
        stub_name = "_Z4a_k0PfPKfi"
        decl = "extern char %s;\n" % stub_name
        use = "(void *)&%s" % stub_name
        extra = ["stub.o"]
        up_flags = ["--offload-link"]
        our_flags = []
    else:
        write(os.path.join(work, "lib.c"), OPENMP_LIB % 3)
        subprocess.check_call([CLANG, "-O2", "-fopenmp", TARGETS, "-c",
                               "lib.c"], cwd=work)
        members = ["lib.o"]
        decl = "int lib_scale(int);\n"
        use = "(void *)&lib_scale"
        extra = []
        up_flags = ["-fopenmp", TARGETS]
        our_flags = ["-fopenmp"]
    subprocess.check_call([os.path.join(LLVM_BIN, "llvm-ar"), "rcs",
                           "libfat.a"] + members, cwd=work)
    mains = []
    for i in range(count):
        src = "main%d.c" % i
        # Through a volatile pointer, which no compiler folds away.
        write(os.path.join(work, src),
              "%sint main(void) {\n  void *volatile p = %s;\n"
              "  return p == 0 ? 1 : %d;\n}\n" % (decl, use, i % 2))
        subprocess.check_call([CLANG, "-O2", "-c", src], cwd=work)
        mains.append("main%d.o" % i)
    cache = os.path.join(work, "cache")
    total_ours = total_up = 0.0
    for i, main in enumerate(mains):
        ours = [CLANG] + our_flags + [main, "-L.", "-lfat"] + extra + [
            "-fuse-ld=lld", "--ld-path=" + linker,
            "-Wl,--offload-cache-dir=" + cache, "-o", "ours%d" % i]
        # clang-linker-wrapper takes an archive member's device code only
        # for other device code (not for the host link's use of it):
        # --whole-archive makes it link the same device code as ours.
        up = [CLANG] + up_flags + [
            main, "-L.", "-Wl,--whole-archive", "-lfat",
            "-Wl,--no-whole-archive"] + extra + [
            "-fuse-ld=lld", "-o", "up%d" % i]
        pair = [("ours", ours), ("up", up)]
        for name, cmd in (pair if i % 2 == 0 else pair[::-1]):
            t = timed(cmd, work)
            if name == "ours":
                total_ours += t
            else:
                total_up += t
    warm = None
    if kind == "openmp" and repeat:
        passes_ours, passes_plain = [], []
        for r in range(repeat):
            t_ours = t_plain = 0.0
            for i, main in enumerate(mains):
                ours = [CLANG] + our_flags + [main, "-L.", "-lfat"] + [
                    "-fuse-ld=lld", "--ld-path=" + linker,
                    "-Wl,--offload-cache-dir=" + cache, "-o", "ours%d" % i]
                plain = [CLANG, "-fopenmp", main, "-L.", "-lfat",
                         "-lomptarget", "-fuse-ld=lld", "-o", "plain%d" % i]
                pair = [("ours", ours), ("plain", plain)]
                for name, cmd in (pair if (i + r) % 2 == 0 else pair[::-1]):
                    t = timed(cmd, work)
                    if name == "ours":
                        t_ours += t
                    else:
                        t_plain += t
            passes_ours.append(t_ours)
            passes_plain.append(t_plain)
        warm = (statistics.median(passes_ours),
                statistics.median(passes_plain))
    # Both programs carry the library's device code.
    for exe in ("ours0", "up0"):
        sections = subprocess.check_output(
            [os.path.join(LLVM_BIN, "llvm-readelf"), "-S", exe], cwd=work,
            text=True)
        want = ".hip_fatbin" if kind == "hip" else ".llvm.offloading"
        if want not in sections:
            sys.exit("%s has no %s: the library's device code is missing" %
                     (exe, want))
    return total_ours, total_up, warm


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="smaller device code, 2 and 1 archs, 5 programs")
    args = parser.parse_args()
    linker = os.path.join(os.path.abspath(args.build), "bin", "ld.lld-offload")
    funcs, kernels = (10, 5) if args.quick else (40, 20)
    many = gpu_link.ARCHS[:2] if args.quick else gpu_link.ARCHS[:10]
    four = gpu_link.ARCHS[:1] if args.quick else gpu_link.ARCHS[:4]
    count = 5 if args.quick else 20

    def fresh():
        return tempfile.mkdtemp(prefix="lld-offload-cache-bench-")

    rows = []
    warm = None
    work = fresh()
    try:
        o, u = relink(work, linker, many, args.repeat, funcs, kernels)
        rows.append(("relink, HIP %d archs" % len(many), o, u))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for kind, archs in (("hip", four), ("openmp", None)):
        work = fresh()
        try:
            o, u, w = suite(work, linker, kind, archs, count, funcs, kernels,
                            args.repeat)
            warm = warm or w
            label = ("suite of %d, HIP %d archs" % (count, len(four))
                     if kind == "hip" else "suite of %d, OpenMP x86_64" % count)
            rows.append((label, o, u))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("%-28s %10s %12s %8s" % ("case", "ours s", "upstream s",
                                   "ours/up"))
    for label, o, u in rows:
        print("%-28s %10.3f %12.3f %8.3f" % (label, o, u, o / u))
    if warm:
        print("%-28s %10.3f %12.3f %8.3f   (ours warm / plain ld.lld)" % (
            "warm suite, OpenMP x86_64", warm[0], warm[1],
            warm[0] / warm[1]))
    work = fresh()
    try:
        on, off = cold(work, linker, many, args.repeat, funcs, kernels)
        print("%-28s %10.3f %12.3f %8.3f   (cache on / off)" % (
            "cold, HIP %d archs" % len(many), on, off, on / off))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

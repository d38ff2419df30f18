#!/usr/bin/env python3
"""Links OpenMP offload programs of 1, 10 and 100 translation units both
ways, in one run, and prints wall time and peak RSS with the ratios:

  upstream: clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fuse-ld=lld
            (clang -> clang-linker-wrapper -> clang -> ld.lld, wrapper, ld)
  ours:     clang -fopenmp *.o -fuse-ld=lld --ld-path=ld.lld-offload

Objects are compiled once, before timing. Each link runs --repeat times; the
best wall time and the largest peak RSS (of the whole process tree) count.
Ratios are upstream / ours: above 1 means we are faster or smaller.

A second table is the floor: ours relinking with a warm device-link cache
(--offload-cache-dir) against plain ld.lld on the same objects
(clang -fopenmp *.o -lomptarget -fuse-ld=lld: links, registers nothing),
interleaved, medians of --repeat pairs; ours/plain, below 1.15 is the aim.
With --baseline BUILD, a third table: ours against another build of ours
(a change's parent), no cache, interleaved medians; ours/baseline.

  bench/link.py [--build BUILD] [--units 1,10,100] [--repeat 5]
                [--baseline BUILD]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchlib import best_of, run

LLVM_BIN = "/usr/lib/llvm-22/bin"
CLANG = os.path.join(LLVM_BIN, "clang")
TARGETS = "-fopenmp-targets=x86_64-pc-linux-gnu"

UNIT = """
#pragma omp declare target
int helper_%(n)d(int x) { return x * %(n)d + 1; }
#pragma omp end declare target
int unit_%(n)d(const int *data, int count) {
  int sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) \\
    map(to : data[0 : count])
  for (int i = 0; i < count; ++i)
    sum += helper_%(n)d(data[i]);
  return sum;
}
"""


def make_program(work, units):
    """Writes and compiles a program of `units` translation units."""
    objects = []
    for n in range(units):
        src = os.path.join(work, "unit%d.c" % n)
        with open(src, "w") as f:
            f.write(UNIT % {"n": n})
        objects.append(src[:-2] + ".o")
    calls = "".join("  total += unit_%d(data, 64);\n" % n for n in range(units))
    decls = "".join("int unit_%d(const int *, int);\n" % n for n in range(units))
    with open(os.path.join(work, "main.c"), "w") as f:
        f.write("#include <stdio.h>\n%sint main(void) {\n  int data[64];\n"
                "  for (int i = 0; i < 64; ++i) data[i] = i;\n  long total = 0;\n"
                "%s  printf(\"%%ld\\n\", total);\n  return 0;\n}\n"
                % (decls, calls))
    objects.append(os.path.join(work, "main.o"))
    sources = [o[:-2] + ".c" for o in objects]
    subprocess.check_call([CLANG, "-O2", "-fopenmp", TARGETS, "-c"] + sources,
                          cwd=work)
    return objects


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--units", default="1,10,100")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", default=None)
    args = parser.parse_args()
    linker = os.path.join(os.path.abspath(args.build), "bin", "ld.lld-offload")
    env = dict(os.environ, OMP_TARGET_OFFLOAD="MANDATORY",
               LD_LIBRARY_PATH=os.path.join("/usr/lib/llvm-22", "lib"))

    print("%-6s %12s %10s %8s %12s %10s %8s" % (
        "units", "upstream s", "ours s", "speedup", "upstream MiB",
        "ours MiB", "rss x"))
    warm_rows, base_rows = [], []
    for units in [int(u) for u in args.units.split(",")]:
        work = tempfile.mkdtemp(prefix="lld-offload-link-bench-")
        try:
            objects = make_program(work, units)
            # Upstream gets LLD as its host linker too, so that only the
            # pipelines differ.
            upstream = [CLANG, "-fopenmp", TARGETS, "-fuse-ld=lld"] + objects + [
                "-o", "up"]
            ours = [CLANG, "-fopenmp"] + objects + [
                "-fuse-ld=lld", "--ld-path=" + linker, "-o", "ours"]
            t_up, m_up = best_of(upstream, work, args.repeat, fresh_dir=False)
            t_ours, m_ours = best_of(ours, work, args.repeat, fresh_dir=False)
            # Both programs must run and agree.
            out_up = subprocess.check_output(["./up"], cwd=work, env=env)
            out_ours = subprocess.check_output(["./ours"], cwd=work, env=env)
            if out_up != out_ours:
                sys.exit("outputs differ for %d units" % units)
            print("%-6d %12.3f %10.3f %8.2f %12.1f %10.1f %8.2f" % (
                units, t_up, t_ours, t_up / t_ours, m_up, m_ours,
                m_up / m_ours))
            warm_rows.append((units, warm_against_plain(
                work, objects, linker, args.repeat)))
            if args.baseline:
                base_rows.append((units, against_baseline(
                    work, objects, linker, os.path.join(
                        os.path.abspath(args.baseline), "bin",
                        "ld.lld-offload"), args.repeat)))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("\n%-6s %12s %10s %8s" % ("units", "warm ours s", "plain s",
                                     "ours/plain"))
    for units, (warm, plain) in warm_rows:
        print("%-6d %12.4f %10.4f %8.3f" % (units, warm, plain, warm / plain))
    if base_rows:
        print("\n%-6s %12s %12s %13s" % ("units", "ours s", "baseline s",
                                         "ours/baseline"))
        for units, (ours, base) in base_rows:
            print("%-6d %12.4f %12.4f %13.3f" % (units, ours, base,
                                                 ours / base))


def against_baseline(work, objects, linker, baseline, repeat):
    """Medians of interleaved links, no cache: ours and the baseline's."""
    def cmd(ld, out):
        return [CLANG, "-fopenmp"] + objects + [
            "-fuse-ld=lld", "--ld-path=" + ld, "-o", out]
    t_ours, t_base = [], []
    for r in range(max(repeat, 3) * 3):
        pair = [(t_ours, cmd(linker, "a")), (t_base, cmd(baseline, "b"))]
        for times, c in (pair if r % 2 == 0 else pair[::-1]):
            times.append(run(c, work)[0])
    return statistics.median(t_ours), statistics.median(t_base)


def warm_against_plain(work, objects, linker, repeat):
    """Medians of `repeat` interleaved relinks: ours with a warm cache, and
    plain ld.lld (the floor)."""
    cache = os.path.join(work, "cache")
    ours = [CLANG, "-fopenmp"] + objects + [
        "-fuse-ld=lld", "--ld-path=" + linker,
        "-Wl,--offload-cache-dir=" + cache, "-o", "warm"]
    plain = [CLANG, "-fopenmp"] + objects + [
        "-lomptarget", "-fuse-ld=lld", "-o", "plain"]
    run(ours, work)  # fills the cache
    t_ours, t_plain = [], []
    for r in range(max(repeat, 3) * 3):
        pair = [(t_ours, ours), (t_plain, plain)]
        for times, cmd in (pair if r % 2 == 0 else pair[::-1]):
            times.append(run(cmd, work)[0])
    return statistics.median(t_ours), statistics.median(t_plain)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Links one OpenMP offload unit into host programs of three sizes, three
ways, in one run, and prints medians of interleaved runs with the ratios:

  plain:    clang++ -fopenmp ... -fuse-ld=lld -lomptarget  (no offload: the
            floor, LLD on the same host link)
  upstream: clang++ -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu
            -fuse-ld=lld  (clang-linker-wrapper, then ld.lld)
  ours:     clang++ -fopenmp ... -fuse-ld=lld --ld-path=ld.lld-offload

The host side (the unit's objects are the same in every case):

  small   a program using LLVM's IR, linked with the static libraries of
          Support, Core and the bitcode reader (~5 MB)
  medium  a program that initializes every target, linked with all of
          LLVM's static libraries (llvm-config --link-static --libs all,
          Polly left out; ~150 MB)
  large   LLVM's static libraries linked whole four times over, as objects
          (ld.lld -r --whole-archive: the libraries, and three copies whose
          every symbol is renamed with llvm-objcopy --redefine-syms), with
          the program (~680 MB)

The upstream and our programs are run once and must print the same (the
plain one has no device image registered: libomptarget 22 crashes on its
first target region). Time is
wall time; memory the peak RSS of the largest process of the link. Ratios
are ours / plain and ours / upstream: below 1 is faster or smaller.

  bench/large_link.py [--build BUILD] [--baseline BUILD]
                      [--sizes small,medium,large] [--repeat 7] [--work DIR]

--baseline adds a fourth link, ours from another build (a change's parent,
say), interleaved with the others, and the ratio ours / baseline.

The inputs (the large case's renamed copies take a few minutes and ~1.2 GB)
are made once under --work and reused.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

LLVM = "/usr/lib/llvm-22"
BIN = os.path.join(LLVM, "bin")
LIB = os.path.join(LLVM, "lib")
CLANG = os.path.join(BIN, "clang")
CLANGXX = os.path.join(BIN, "clang++")
TARGETS = "-fopenmp-targets=x86_64-pc-linux-gnu"
# Libraries with undefined symbols of their own (libedit, libffi, Polly):
# linked as needed, never whole.
NOT_WHOLE = ("LLVMLineEditor", "LLVMInterpreter", "LLVMExtensions")

OFFLOAD_UNIT = r"""
int offload_unit(int n) {
  int x = 0;
#pragma omp target map(tofrom : x)
  for (int i = 0; i < n; ++i)
    x += i;
  return x;
}
"""

# The small program uses LLVM's IR; the others every target, as an LLVM
# tool does (what a program takes from static libraries is what it uses).
MAIN_SMALL = r"""
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
extern "C" int offload_unit(int);
int main() {
  llvm::LLVMContext C;
  llvm::Module M("m", C);
  llvm::outs() << "offload_unit=" << offload_unit(10) << " module="
               << M.getName() << "\n";
  return 0;
}
"""

MAIN_BIG = r"""
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include <iterator>
extern "C" int offload_unit(int);
int main() {
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  llvm::InitializeAllAsmParsers();
  llvm::LLVMContext C;
  llvm::Module M("m", C);
  llvm::PassBuilder PB;
  auto Targets = llvm::TargetRegistry::targets();
  llvm::outs() << "offload_unit=" << offload_unit(10) << " targets="
               << std::distance(Targets.begin(), Targets.end()) << "\n";
  return 0;
}
"""

# LLVM's LTO library refers to Polly's plugin entry point, which a build
# without Polly leaves undefined: linking it whole needs a definition.
POLLY_STUB = r"""
#include "llvm/Plugins/PassPlugin.h"
llvm::PassPluginLibraryInfo getPollyPluginInfo() { return {}; }
"""


def llvm_config(*args):
    return subprocess.check_output(
        [os.path.join(BIN, "llvm-config")] + list(args), text=True).split()


def compile_inputs(work):
    cxxflags = llvm_config("--cxxflags")
    for name, text in (("off.c", OFFLOAD_UNIT), ("main-small.cpp", MAIN_SMALL),
                       ("main-big.cpp", MAIN_BIG),
                       ("polly-stub.cpp", POLLY_STUB)):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    subprocess.check_call([CLANG, "-O2", "-fopenmp", TARGETS, "-c", "off.c"],
                          cwd=work)
    for src in ("main-small.cpp", "main-big.cpp", "polly-stub.cpp"):
        subprocess.check_call([CLANGXX, "-O1", "-c", src] + cxxflags, cwd=work)


def all_libs():
    """-lLLVM... for every library (Polly left out) and the system ones."""
    libs = [l for l in llvm_config("--link-static", "--libs", "all",
                                   "--system-libs")
            if "olly" not in l]
    return ([l for l in libs if l.startswith("-lLLVM")],
            [l for l in libs if not l.startswith("-lLLVM")])


def make_copies(work, count, llvm_libs):
    """Copies of LLVM's archives whose every defined symbol is renamed
    (c<N>_<name>), in work/copy<N>/; made once."""
    archives = [os.path.join(LIB, "lib%s.a" % l[2:]) for l in llvm_libs]
    defs_file = os.path.join(work, "llvm-defined.txt")
    if not os.path.exists(defs_file):
        out = subprocess.check_output(
            [os.path.join(BIN, "llvm-nm"), "--defined-only", "--extern-only",
             "--format=just-symbols"] + archives, text=True,
            stderr=subprocess.DEVNULL)
        names = sorted({l for l in out.splitlines()
                        if l and not l.endswith(":")})
        with open(defs_file + ".tmp", "w") as f:
            f.write("\n".join(names) + "\n")
        os.rename(defs_file + ".tmp", defs_file)
    with open(defs_file) as f:
        names = f.read().split()
    for n in range(1, count + 1):
        copy = os.path.join(work, "copy%d" % n)
        if os.path.exists(os.path.join(copy, "done")):
            continue
        shutil.rmtree(copy, ignore_errors=True)
        os.makedirs(copy)
        renames = os.path.join(copy, "renames.txt")
        with open(renames, "w") as f:
            f.writelines("%s c%d_%s\n" % (s, n, s) for s in names)
        print("making copy %d of LLVM's archives (renamed symbols)..." % n,
              file=sys.stderr)
        for a in archives:
            subprocess.check_call(
                [os.path.join(BIN, "llvm-objcopy"), "--redefine-syms=" +
                 renames, a, os.path.join(copy, os.path.basename(a))])
        open(os.path.join(copy, "done"), "w").close()


def prelink(work, n, llvm_libs):
    """copy<N>.o: LLVM's archives (copy N's; the originals for 0) linked
    whole into one relocatable object, as a large program's own objects
    are; made once. The libraries that cannot be linked whole stay
    libraries."""
    obj = os.path.join(work, "copy%d.o" % n)
    libdir = LIB if n == 0 else os.path.join(work, "copy%d" % n)
    paths = [os.path.join(libdir, "lib%s.a" % l[2:]) for l in llvm_libs]
    whole = [p for p in paths if not any(x in p for x in NOT_WHOLE)]
    rest = [p for p in paths if any(x in p for x in NOT_WHOLE)]
    if not os.path.exists(obj):
        subprocess.check_call(
            [os.path.join(BIN, "ld.lld"), "-r", "-o", obj + ".tmp",
             "--whole-archive"] + whole)
        os.rename(obj + ".tmp", obj)
    return obj, rest


def host_args(size, work, copies):
    """The host link's inputs and libraries for a size, after the objects."""
    llvm_libs, system = all_libs()
    if size == "small":
        small = llvm_config("--link-static", "--libs", "core", "bitreader",
                            "support", "--system-libs")
        return ["-L" + LIB] + small
    if size == "medium":
        return ["-L" + LIB] + llvm_libs + system
    make_copies(work, copies, llvm_libs)
    objects, libraries = ["polly-stub.o"], []
    for n in range(0, copies + 1):
        obj, rest = prelink(work, n, llvm_libs)
        objects.append(obj)
        libraries += rest
    return objects + ["-L" + LIB] + libraries + system


def run_or_exit(cmd, cwd):
    """Runs cmd in cwd: (seconds, peak RSS in MiB of its largest process);
    on failure, exits with the command cut short and its last words."""
    err = os.path.join(cwd, ".stderr")
    with open(err, "w") as f:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                                stderr=f)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        with open(err) as f:
            sys.exit("failed: %s ...\n%s" % (" ".join(cmd)[:300],
                                              f.read()[-2000:]))
    return seconds, usage.ru_maxrss / 1024.0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--sizes", default="small,medium,large")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--work", default="/tmp/lld-offload-large-link")
    args = parser.parse_args()
    linker = os.path.join(os.path.abspath(args.build), "bin", "ld.lld-offload")
    os.makedirs(args.work, exist_ok=True)
    if not os.path.exists(os.path.join(args.work, "main-big.o")):
        compile_inputs(args.work)
    env = dict(os.environ, OMP_TARGET_OFFLOAD="MANDATORY",
               LD_LIBRARY_PATH=LIB)

    print("%-7s %8s | %9s %9s %9s | %10s %10s | %8s %8s %8s | %9s %9s" % (
        "size", "MB", "plain s", "upstr. s", "ours s", "ours/plain",
        "ours/upstr", "plain MiB", "upstr.", "ours", "rss/plain",
        "rss/upstr"))
    for size in args.sizes.split(","):
        host = host_args(size, args.work, args.copies)
        objects = ["main-small.o" if size == "small" else "main-big.o",
                   "off.o"]
        common = [CLANGXX, "-fopenmp"] + objects + ["-fuse-ld=lld"] + host
        links = {
            "plain": common + ["-lomptarget", "-o", "plain-" + size],
            "upstream": common[:2] + [TARGETS] + common[2:] + [
                "-o", "upstream-" + size],
            "ours": common + ["--ld-path=" + linker, "-o", "ours-" + size],
        }
        if args.baseline:
            links["baseline"] = common + [
                "--ld-path=" + os.path.join(os.path.abspath(args.baseline),
                                            "bin", "ld.lld-offload"),
                "-o", "baseline-" + size]
        times = {k: [] for k in links}
        rss = {k: [] for k in links}
        for cmd in links.values():  # warm the page cache
            run_or_exit(cmd, args.work)
        order = list(links)
        for r in range(args.repeat):
            # Each round in another order, and no output of an earlier link
            # still being written back, so that none pays for another.
            for name in order[r % len(order):] + order[:r % len(order)]:
                os.sync()
                t, m = run_or_exit(links[name], args.work)
                times[name].append(t)
                rss[name].append(m)
        outputs = {name: subprocess.check_output(
            ["./%s-%s" % (name, size)], cwd=args.work, env=env)
            for name in ("upstream", "ours")}
        if len(set(outputs.values())) != 1:
            sys.exit("the programs of size %s print different things: %s" %
                     (size, outputs))
        t = {k: statistics.median(v) for k, v in times.items()}
        m = {k: statistics.median(v) for k, v in rss.items()}
        mb = os.path.getsize(os.path.join(args.work, "plain-" + size)) / 1e6
        print("%-7s %8.0f | %9.3f %9.3f %9.3f | %10.3f %10.3f | %8.0f %8.0f "
              "%8.0f | %9.3f %9.3f" % (
                  size, mb, t["plain"], t["upstream"], t["ours"],
                  t["ours"] / t["plain"], t["ours"] / t["upstream"],
                  m["plain"], m["upstream"], m["ours"],
                  m["ours"] / m["plain"], m["ours"] / m["upstream"]))
        if args.baseline:
            print("%-7s baseline %.3f s, ours/baseline %.3f" % (
                size, t["baseline"], t["ours"] / t["baseline"]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Times the link of a HIP program of 100 kernels four ways, interleaved, in
one run, and prints the medians and the ratios ours-spirv / ours-gfx942,
ours-spirv / clang-spirv and ours-spirv / floor:

  ours-spirv:   clang <objs> log.o -fuse-ld=lld --ld-path=ld.lld-offload
                (objects compiled for --offload-arch=amdgcnspirv: the units'
                bitcode linked as llvm-link links it and compiled by LLVM's
                SPIR-V backend, in the linker's process)
  ours-gfx942:  the same link of the objects compiled for gfx942 (device
                LTO and code generation for one AMDGPU arch)
  clang-spirv:  clang --hip-link -fgpu-rdc --offload-new-driver
                --offload-arch=amdgcnspirv -nogpulib -no-hip-rt -fuse-ld=lld
                <objs> log.o -Wl,--device-compiler=spirv64-amd-amdhsa=
                -use-spirv-backend
                (clang-linker-wrapper, then clang and LLVM's SPIR-V backend
                for the device link, clang-offload-bundler, ld.lld; clang's
                default SPIR-V path runs the llvm-spirv translator, which no
                package of LLVM 22 ships: it fails here, so the backend is
                asked for, as test/ld.lld-offload/hip-programs/spirv.test
                does)
  floor:        clang <objs> log.o -fuse-ld=lld: plain ld.lld, the host link
                alone (the objects' device code ignored, nothing
                registered): what the host link costs

The program is generated: --units units of --kernels kernels each (default
10 x 10 = 100 kernels; also 100 x 1 with --shapes). Every kernel does a
little arithmetic and calls a __device__ function of the next unit, so the
device code needs relocatable device code (-fgpu-rdc); each unit also has a
host function that launches its kernels, and a C main calls them all. No
HIP headers: the unit starts with what test/ld.lld-offload/hip-programs/
Inputs/hip-mini.h declares, and the runtime is the tests' stand-in
(hip-runtime-log.c), which logs what is registered and launched. Each unit
is compiled twice, before timing, with

  clang -x hip -nogpulib -nogpuinc -fgpu-rdc --offload-new-driver -O2
        -cuid=<unit> --offload-arch=amdgcnspirv | gfx942 -c

(a fixed -cuid= per unit, as separate builds of the same sources would be).

Why 10 x 10 by default: a program of 100 kernels is seldom 100 files or
one; ten units of ten kernels has both many inputs and units with real
bodies. 100 x 1 (one kernel a unit) weighs what each input costs (reading
it, its bitcode module, its host object) against the device code, which is
the same.

Before timing, ours-spirv's and clang-spirv's programs run against the
stand-in runtime and must log the same lines (sorted), and their .hip_fatbin
sections (llvm-objcopy --dump-section) must be byte-identical; the script
says so. Each round runs the four links in turn, rotating which goes first;
the medians of --repeat rounds count. Ratios are of times: below 1 means
ours-spirv is faster.

  bench/spirv_link.py [--build BUILD] [--shapes 10x10,100x1] [--repeat 7]
                      [--work DIR] [--verbose]
"""
import argparse
import concurrent.futures
import filecmp
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchlib import run

# The keywords, dim3 and the launch API that clang's <<<>>> calls, as the
# tests declare them (no HIP headers here: -nogpuinc).
HIP_MINI_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "test", "ld.lld-offload", "hip-programs", "Inputs")
LLVM_BIN = "/usr/lib/llvm-22/bin"
CLANG = os.path.join(LLVM_BIN, "clang")
LLVM_OBJCOPY = os.path.join(LLVM_BIN, "llvm-objcopy")
HIP_FLAGS = ["-x", "hip", "-I" + HIP_MINI_DIR, "-nogpulib", "-nogpuinc",
             "-fgpu-rdc", "--offload-new-driver", "-O2"]
ARCHS = ["amdgcnspirv", "gfx942"]

PREAMBLE = '#include "hip-mini.h"\n'
# A device function of unit u, called by a kernel of unit u - 1.
FUNC = """\
__device__ float u%(u)d_f%(i)d(float x, int n) {
  float acc = x * %(c)d.5f;
  for (int j = 0; j < n; ++j)
    acc = acc > %(c)d.0f ? acc * 0.5f - j : acc * acc + %(i)d.25f;
  return acc;
}
"""
# A kernel of unit u: a little arithmetic and a call into unit u + 1.
KERNEL = """\
__global__ void u%(u)d_k%(i)d(float *out, const float *in, int n) {
  int id = __builtin_amdgcn_workitem_id_x() +
           __builtin_amdgcn_workgroup_id_x() * 64;
  float s = in[id] * %(c)d.0f + %(i)d.5f;
  out[id] = u%(next)d_f%(i)d(s, n) - s * 0.25f;
}
"""


def write_unit(path, unit, units, kernels):
    """Unit `unit` of `units`: `kernels` device functions and `kernels`
    kernels, kernel i calling the next unit's device function i, and
    launch_u<unit>(), which launches its kernels."""
    nxt = (unit + 1) % units
    with open(path, "w") as f:
        f.write(PREAMBLE)
        for i in range(kernels):
            if nxt != unit:
                f.write("__device__ float u%d_f%d(float, int);\n" % (nxt, i))
        for i in range(kernels):
            f.write(FUNC % {"u": unit, "i": i, "c": (unit + i) % 7 + 2})
        for i in range(kernels):
            f.write(KERNEL % {"u": unit, "i": i, "next": nxt,
                              "c": (unit * 3 + i) % 5 + 1})
        f.write('extern "C" void launch_u%d(float *out, const float *in, '
                'int n) {\n' % unit)
        for i in range(kernels):
            f.write("  u%d_k%d<<<dim3(4), dim3(64)>>>(out, in, n);\n"
                    % (unit, i))
        f.write("}\n")


def make_program(work, units, kernels, here):
    """Writes the units, main.c and the stand-in runtime; compiles the units
    for each of ARCHS (unit<u>.<arch>.o) and main.c, log.c. Returns
    {arch: objects}, each list ending with main.o and log.o."""
    shutil.copy(os.path.join(here, "..", "test", "ld.lld-offload",
                             "hip-programs", "Inputs", "hip-runtime-log.c"),
                os.path.join(work, "log.c"))
    names = ["unit%d" % u for u in range(units)]
    for u, name in enumerate(names):
        write_unit(os.path.join(work, name + ".hip"), u, units, kernels)
    with open(os.path.join(work, "main.c"), "w") as f:
        for u in range(units):
            f.write("void launch_u%d(float *, const float *, int);\n" % u)
        f.write("int main(void) {\n")
        for u in range(units):
            f.write("  launch_u%d(0, 0, 16);\n" % u)
        f.write("  return 0;\n}\n")
    jobs = [[CLANG] + HIP_FLAGS + ["--offload-arch=" + arch, "-cuid=" + name,
                                   "-c", name + ".hip", "-o",
                                   "%s.%s.o" % (name, arch)]
            for arch in ARCHS for name in names]
    jobs.append([CLANG, "-O2", "-c", "main.c", "log.c"])
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(lambda c: subprocess.check_call(c, cwd=work), jobs))
    return {arch: ["%s.%s.o" % (n, arch) for n in names] + ["main.o", "log.o"]
            for arch in ARCHS}


def fatbin(work, exe):
    """Dumps exe's .hip_fatbin into exe.hipfb; returns its path."""
    out = os.path.join(work, exe + ".hipfb")
    subprocess.check_call([LLVM_OBJCOPY, "--dump-section=.hip_fatbin=" + out,
                           exe, os.devnull], cwd=work)
    return out


def run_log(work, exe):
    """What exe logs against the stand-in runtime, sorted."""
    out = subprocess.run([os.path.join(work, exe)], cwd=work, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return sorted(out.splitlines())


def check_same(work, kernels_total):
    """Fails unless ours' and clang's SPIR-V programs log the same
    registrations and launches and hold byte-identical fat binaries;
    returns a line saying what was checked."""
    ours, clangs = run_log(work, "ours-spirv"), run_log(work, "clang-spirv")
    if ours != clangs:
        sys.exit("ours-spirv and clang-spirv log different registrations "
                 "and launches (%s)" % work)
    functions = sum(1 for l in ours if l.startswith("function "))
    if functions != kernels_total:
        sys.exit("%d kernels registered, expected %d (%s)"
                 % (functions, kernels_total, work))
    a, b = fatbin(work, "ours-spirv"), fatbin(work, "clang-spirv")
    if not filecmp.cmp(a, b, shallow=False):
        sys.exit("the .hip_fatbin sections of ours-spirv and clang-spirv "
                 "differ (%s)" % work)
    with open(a, "rb") as f:
        head = f.read(4)
    return ("  ours-spirv and clang-spirv: same %d registrations and launches;"
            " .hip_fatbin byte-identical (%d bytes, starts with %s)"
            % (len(ours), os.path.getsize(a), head.decode("ascii", "replace")))


def verbose_summary(work, cmd):
    """Runs ours once with --offload-verbose; returns its stderr."""
    proc = subprocess.run(cmd + ["-Wl,--offload-verbose"], cwd=work,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, check=True)
    return proc.stderr


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--shapes", default="10x10",
                        help="programs as UNITSxKERNELS, comma-separated "
                        "(default 10x10; 100x1 for one kernel a unit)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--work", default=None,
                        help="keep the programs here (default: a temporary "
                        "directory, removed)")
    parser.add_argument("--verbose", action="store_true",
                        help="print ours' --offload-verbose output of one "
                        "more link of each kind (where its time goes)")
    args = parser.parse_args()
    linker = os.path.join(os.path.abspath(args.build), "bin", "ld.lld-offload")
    for tool in (linker, CLANG, LLVM_OBJCOPY):
        if not os.path.exists(tool):
            sys.exit("spirv_link.py: %s is missing" % tool)
    shapes = []
    for shape in args.shapes.split(","):
        m = re.fullmatch(r"(\d+)x(\d+)", shape.strip())
        if not m or int(m.group(1)) < 2 or int(m.group(2)) < 1:
            sys.exit("--shapes: UNITSxKERNELS, at least 2 units, e.g. 10x10")
        shapes.append((int(m.group(1)), int(m.group(2))))

    translator = shutil.which("llvm-spirv")
    print("clang's default SPIR-V device link runs the llvm-spirv translator "
          "(%s); clang-spirv is timed with LLVM's backend "
          "(-use-spirv-backend), the path ours takes"
          % ("found: " + translator if translator else "absent here"))
    rows = []
    for units, kernels in shapes:
        if args.work:
            work = os.path.join(os.path.abspath(args.work),
                                "%dx%d" % (units, kernels))
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
        else:
            work = tempfile.mkdtemp(prefix="lld-offload-spirv-bench-")
        try:
            print("%d units x %d kernels: compiling for %s ..."
                  % (units, kernels, " and ".join(ARCHS)), flush=True)
            objs = make_program(work, units, kernels, here)
            links = {
                "ours-spirv": [CLANG] + objs["amdgcnspirv"] + [
                    "-fuse-ld=lld", "--ld-path=" + linker, "-o", "ours-spirv"],
                "ours-gfx942": [CLANG] + objs["gfx942"] + [
                    "-fuse-ld=lld", "--ld-path=" + linker, "-o",
                    "ours-gfx942"],
                "clang-spirv": [CLANG, "--hip-link", "-fgpu-rdc",
                                "--offload-new-driver",
                                "--offload-arch=amdgcnspirv", "-nogpulib",
                                "-no-hip-rt", "-fuse-ld=lld"] +
                objs["amdgcnspirv"] + [
                    "-o", "clang-spirv",
                    "-Wl,--device-compiler=spirv64-amd-amdhsa="
                    "-use-spirv-backend"],
                "floor": [CLANG] + objs["amdgcnspirv"] + [
                    "-fuse-ld=lld", "-o", "floor"],
            }
            for cmd in links.values():
                subprocess.check_call(cmd, cwd=work)
            print(check_same(work, units * kernels), flush=True)
            if args.verbose:
                for key in ("ours-spirv", "ours-gfx942"):
                    print("  %s, --offload-verbose:" % key)
                    for line in verbose_summary(work, links[key]).splitlines():
                        print("    " + line)
                    sys.stdout.flush()
            # Rounds of the four links in turn, rotating which goes first,
            # so that a load on the machine that comes and goes favours none.
            times = {key: [] for key in links}
            keys = list(links)
            for r in range(args.repeat):
                k = r % len(keys)
                for key in keys[k:] + keys[:k]:
                    times[key].append(run(links[key], work)[0])
            rows.append(((units, kernels),
                         {key: statistics.median(t)
                          for key, t in times.items()}))
        finally:
            if not args.work:
                shutil.rmtree(work, ignore_errors=True)

    print("\nmedians of %d interleaved rounds, seconds" % args.repeat)
    print("%-8s %10s %11s %11s %8s %14s %14s %12s" % (
        "program", "ours-spirv", "ours-gfx942", "clang-spirv", "floor",
        "spirv/gfx942", "spirv/clang", "spirv/floor"))
    for (units, kernels), m in rows:
        s = m["ours-spirv"]
        print("%-8s %10.3f %11.3f %11.3f %8.3f %14.2f %14.2f %12.2f" % (
            "%dx%d" % (units, kernels), s, m["ours-gfx942"], m["clang-spirv"],
            m["floor"], s / m["ours-gfx942"], s / m["clang-spirv"],
            s / m["floor"]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Times the HIP device links of a program compiled for N AMDGPU archs, ours
at --offload-jobs=1 and 2 against clang-linker-wrapper at the same jobs:

  ours:     clang *.o -fuse-ld=lld --ld-path=ld.lld-offload -Wl,--offload-jobs=J
  upstream: clang --offload-link *.o -fuse-ld=lld --offload-jobs=J
            (clang -> clang-linker-wrapper --wrapper-jobs=J -> clang -> ld.lld
            per arch, then ld.lld for the host)

Two HIP units (relocatable device code, new offload driver, no HIP headers)
of many small device functions and kernels calling across the units, so that
each arch's device LTO has real work. Objects are compiled once, before
timing; both outputs are checked to hold a code object per arch, with every
kernel. The four links run in turn, --repeat rounds; the best wall time and
the largest peak RSS (of one process of the tree) count. Ratios are of
times: ours / upstream at equal jobs, and jobs=2 / jobs=1; below 1 means
ours, or 2 jobs, is faster.

  bench/gpu_link.py [--build BUILD] [--archs 1,4,10] [--repeat 3] [--quick]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import run

LLVM_BIN = "/usr/lib/llvm-22/bin"
CLANG = os.path.join(LLVM_BIN, "clang")
# --archs N takes the first N.
ARCHS = ["gfx90a", "gfx1100", "gfx942", "gfx1030", "gfx900", "gfx906",
         "gfx908", "gfx1101", "gfx1200", "gfx1201"]
HIP_FLAGS = ["-x", "hip", "-nogpulib", "-nogpuinc", "-fgpu-rdc",
             "--offload-new-driver", "-O2"]

PREAMBLE = """struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
#define DEVICE __attribute__((device))
#define GLOBAL __attribute__((global))
"""
FUNC = """DEVICE float %(u)s_f%(i)d(const float *x, int n, float s) {
  float acc = s * %(i)d.5f;
  for (int i = 0; i < n; ++i) {
    float v = x[i] * %(c)d.25f + acc;
    acc = v > %(c)d.0f ? v - acc * 0.5f : v * v + %(i)d.0f;
  }
  return acc;
}
"""
KERNEL = """GLOBAL void %(u)s_k%(i)d(float *out, const float *x, int n) {
  int id = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;
  float s = x[id];
  for (int j = 0; j < n; ++j) {
    s = %(u)s_f%(a)d(x + j, n, s) + %(o)s_f%(b)d(x, n - j, s);
    if (s > 1000.0f) s = %(u)s_f%(c)d(out, j, s * 0.5f);
  }
  out[id] = s;
}
"""


def write_unit(path, unit, other, funcs, kernels):
    """A unit of `funcs` device functions and `kernels` kernels that call
    them and the other unit's."""
    with open(path, "w") as f:
        f.write(PREAMBLE)
        for i in range(funcs):
            f.write("DEVICE float %s_f%d(const float *, int, float);\n"
                    % (other, i))
        for i in range(funcs):
            f.write(FUNC % {"u": unit, "i": i, "c": i % 7 + 2})
        for i in range(kernels):
            f.write(KERNEL % {"u": unit, "o": other, "i": i, "a": i % funcs,
                              "b": (i * 3 + 1) % funcs,
                              "c": (i * 5 + 2) % funcs})


def make_program(work, archs, funcs, kernels):
    """Writes and compiles a.hip, b.hip (for `archs`), main.c and the stub
    HIP runtime; returns the objects."""
    stub = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "test", "ld.lld-offload", "Inputs",
                        "hip-runtime-stub.c")
    shutil.copy(stub, os.path.join(work, "stub.c"))
    write_unit(os.path.join(work, "a.hip"), "a", "b", funcs, kernels)
    write_unit(os.path.join(work, "b.hip"), "b", "a", funcs, kernels)
    with open(os.path.join(work, "main.c"), "w") as f:
        f.write("int main(void) { return 0; }\n")
    subprocess.check_call([CLANG] + HIP_FLAGS + [
        "--offload-arch=" + a for a in archs] + ["-c", "a.hip", "b.hip"],
        cwd=work)
    subprocess.check_call([CLANG, "-O2", "-c", "main.c", "stub.c"], cwd=work)
    return ["main.o", "a.o", "b.o", "stub.o"]


def check_device_code(work, exe, archs, kernels):
    """Fails unless `exe`'s .hip_fatbin has one code object per arch, each
    with both units' kernels."""
    fatbin = os.path.join(work, exe + ".hipfb")
    subprocess.check_call([os.path.join(LLVM_BIN, "llvm-objcopy"),
                           "--dump-section=.hip_fatbin=" + fatbin, exe,
                           os.devnull], cwd=work)
    listing = subprocess.check_output([
        os.path.join(LLVM_BIN, "clang-offload-bundler"), "-list", "-type=o",
        "-input=" + fatbin], text=True).split()
    found = sorted(e.rsplit("--", 1)[1] for e in listing
                   if "amdgcn-amd-amdhsa--" in e)
    if found != sorted(archs):
        sys.exit("%s: fat binary has %s, expected %s" % (exe, found, archs))
    entry = [e for e in listing if e.endswith("--" + archs[-1])][0]
    subprocess.check_call([
        os.path.join(LLVM_BIN, "clang-offload-bundler"), "-unbundle",
        "-type=o", "-input=" + fatbin, "-targets=" + entry,
        "-output=" + fatbin + ".co"])
    symbols = subprocess.check_output(
        [os.path.join(LLVM_BIN, "llvm-nm"), "-j", fatbin + ".co"], text=True)
    count = sum(1 for s in symbols.split() if s.endswith(".kd"))
    if count != 2 * kernels:
        sys.exit("%s: %s code object has %d kernels, expected %d"
                 % (exe, archs[-1], count, 2 * kernels))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--archs", help="numbers of archs (the first N of "
                        "%s; default 1,4,10)" % ",".join(ARCHS))
    parser.add_argument("--repeat", type=int, help="rounds (default 3)")
    parser.add_argument("--funcs", type=int, default=40,
                        help="device functions per unit")
    parser.add_argument("--kernels", type=int, default=20,
                        help="kernels per unit")
    parser.add_argument("--quick", action="store_true",
                        help="a quarter of the code; archs 1,2 and one "
                        "round unless given")
    args = parser.parse_args()
    if args.quick:
        args.funcs, args.kernels = args.funcs // 4, args.kernels // 4
    args.archs = args.archs or ("1,2" if args.quick else "1,4,10")
    args.repeat = args.repeat or (1 if args.quick else 3)
    linker = os.path.join(os.path.abspath(args.build), "bin", "ld.lld-offload")

    def ours(objects, jobs):
        return [CLANG] + objects + ["-fuse-ld=lld", "--ld-path=" + linker,
                                    "-Wl,--offload-jobs=%d" % jobs, "-o",
                                    "ours%d" % jobs]

    def upstream(objects, jobs):
        return [CLANG, "--offload-link"] + objects + [
            "-fuse-ld=lld", "--offload-jobs=%d" % jobs, "-o", "up%d" % jobs]

    counts = [int(a) for a in args.archs.split(",")]
    if not all(1 <= n <= len(ARCHS) for n in counts):
        sys.exit("--archs: numbers from 1 to %d" % len(ARCHS))
    print("%-5s %8s %8s %8s %8s %9s %9s %9s %9s %8s %8s %8s %8s" % (
        "archs", "ours j1", "ours j2", "up j1", "up j2", "o/u j1", "o/u j2",
        "ours 2/1", "up 2/1", "MiB o1", "MiB o2", "MiB u1", "MiB u2"))
    for n in counts:
        archs = ARCHS[:n]
        work = tempfile.mkdtemp(prefix="lld-offload-gpu-link-bench-")
        try:
            objects = make_program(work, archs, args.funcs, args.kernels)
            # clang must hand the jobs to the wrapper.
            dry = subprocess.run(upstream(objects, 2) + ["-###"], cwd=work,
                                 capture_output=True, text=True).stderr
            if '"--wrapper-jobs=2"' not in dry:
                sys.exit("clang does not pass --wrapper-jobs=2:\n" + dry)
            links = {"%s%d" % (name[0], jobs): cmd(objects, jobs)
                     for name, cmd in (("ours", ours), ("up", upstream))
                     for jobs in (1, 2)}
            for link in links.values():
                subprocess.check_call(link, cwd=work)
                check_device_code(work, link[-1], archs, args.kernels)
            # Rounds of the four links in turn, so that a load on the
            # machine that comes and goes favours none of them.
            t = dict.fromkeys(links, float("inf"))
            m = dict.fromkeys(links, 0.0)
            for _ in range(args.repeat):
                for key, link in links.items():
                    # Links are far above the ~15 MiB a fork from Python
                    # adds to ru_maxrss: run()'s figure is right here.
                    secs, mib = run(link, work)
                    t[key], m[key] = min(t[key], secs), max(m[key], mib)
            print("%-5d %8.3f %8.3f %8.3f %8.3f %9.2f %9.2f %9.2f %9.2f "
                  "%8.1f %8.1f %8.1f %8.1f" % (
                      n, t["o1"], t["o2"], t["u1"], t["u2"],
                      t["o1"] / t["u1"], t["o2"] / t["u2"],
                      t["o2"] / t["o1"], t["u2"] / t["u1"],
                      m["o1"], m["o2"], m["u1"], m["u2"]))
            sys.stdout.flush()
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Links nvcc -rdc=true programs three ways, interleaved, in one run, and
prints the medians and the ratios ours / nvcc and ours / floor:

  nvcc:  nvcc -rdc=true <gencode> *.o -o prog
         (nvlink per arch, fatbinary, the host compiler on crt/link.stub,
         g++ and GNU ld for the host link; cudart_static, cudadevrt)
  ours:  clang++ *.o -fuse-ld=lld --ld-path=ld.lld-offload
         -Wl,--offload-cuda-path=<cuda> -lcudart_static ...
  floor: the nvlink runs alone (one per arch, as nvcc runs them) plus plain
         ld.lld on the host objects and a registration object made
         beforehand (nvcc -dlink, not timed): the work no one-step link
         can skip, run one after the other

Programs are generated: N units, each a kernel and a __device__ function
that calls the next unit's (the last unit's calls none), compiled
once with nvcc for sm_75 and sm_90 (cubins) and compute_90 (PTX), as the
tests in test/ld.lld-offload/nvcc/ compile. Before timing, the script links
each program once more, nvcc's way and ours, against the tests' stand-in
runtime (test/ld.lld-offload/Inputs/cudart-log.c) and checks that both log
the same registrations. Where ld.lld-offload cannot link nvcc's objects (it
could not before issue #35), it says so and times nvcc's link and the floor
alone.

Each round runs the three links in turn, rotating which goes first; the
medians of --repeat rounds count. Ratios are of times: below 1 is faster.

  bench/nvcc_link.py [--build BUILD] [--units 2,50] [--repeat 5]
                     [--before OLD_BUILD]
                     [--cuda /usr/local/cuda] [--work DIR]
"""
import argparse
import concurrent.futures
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchlib import run

LLVM_BIN = "/usr/lib/llvm-22/bin"
CLANG = os.path.join(LLVM_BIN, "clang")
CLANGXX = os.path.join(LLVM_BIN, "clang++")
ARCHS = ["sm_75", "sm_90"]
GENCODE = ["-gencode", "arch=compute_75,code=sm_75",
           "-gencode", "arch=compute_90,code=[sm_90,compute_90]"]

UNIT = """\
#include <cstdio>
#include <cuda_runtime.h>
%(callee)s
__global__ void kernel%(n)d(int *Out) {
  Out[threadIdx.x] = f%(n)d(Out[threadIdx.x]);
}
void launch%(n)d(int *Out) { kernel%(n)d<<<1, 32>>>(Out); }
"""

MAIN = """\
%(decls)s
int main() {
  int *Out;
  cudaMalloc((void **)&Out, 32 * sizeof(int));
%(calls)s  cudaDeviceSynchronize();
  printf("main done\\n");
  return 0;
}
"""


def make_program(work, units, nvcc):
    """Writes and compiles a program of `units` units (main in unit 0);
    returns the objects, in order."""
    sources = []
    for n in range(units):
        if n + 1 < units:
            callee = ("__device__ int f%d(int X);\n"
                      "__device__ int f%d(int X) { return f%d(X + %d) * 3; }"
                      % (n + 1, n, n + 1, n))
        else:
            callee = "__device__ int f%d(int X) { return X ^ %d; }" % (n, n)
        text = UNIT % {"n": n, "callee": callee}
        if n == 0:
            text += MAIN % {
                "decls": "".join("void launch%d(int *);\n" % i
                                 for i in range(units)),
                "calls": "".join("  launch%d(Out);\n" % i
                                 for i in range(units))}
        src = os.path.join(work, "unit%d.cu" % n)
        with open(src, "w") as f:
            f.write(text)
        sources.append(src)

    def compile_one(src):
        subprocess.check_call([nvcc, "-rdc=true"] + GENCODE +
                              ["-c", src, "-o", src[:-3] + ".o"], cwd=work)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(compile_one, sources))
    return [s[:-3] + ".o" for s in sources]


def try_link(cmd, cwd):
    """Runs cmd; returns None on success, else its last lines of output."""
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if proc.returncode == 0:
        return None
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    return "\n".join("    " + l for l in lines[:6])


def check_same_registrations(work, objects, cuda, nvcc, linker, here):
    """Links both ways against the stand-in runtime and compares the sorted
    logs. Returns None if they agree, else why not."""
    log_dir = os.path.join(work, "standin")
    os.makedirs(log_dir, exist_ok=True)
    subprocess.check_call([CLANG, "-shared", "-fPIC", os.path.join(
        here, "..", "test", "ld.lld-offload", "Inputs", "cudart-log.c"),
        "-o", os.path.join(log_dir, "libcudart.so"), "-lzstd", "-llz4"])
    subprocess.check_call([nvcc, "-rdc=true"] + GENCODE + [
        "-cudart=shared"] + objects + ["-L" + log_dir, "-lcudart",
                                       "-Xlinker", "-rpath=" + log_dir,
                                       "-o", "standin-nvcc"], cwd=work)
    failed = try_link([CLANGXX] + objects + [
        "-fuse-ld=lld", "--ld-path=" + linker,
        "-Wl,--offload-cuda-path=" + cuda, "-L" + log_dir, "-lcudart",
        "-Wl,-rpath," + log_dir, "-o", "standin-ours"], work)
    if failed:
        return failed
    logs = []
    for prog in ("standin-nvcc", "standin-ours"):
        out = subprocess.run([os.path.join(work, prog)], cwd=work,
                             stdout=subprocess.PIPE, text=True).stdout
        logs.append(sorted(out.splitlines()))
    if logs[0] != logs[1]:
        return "    the stand-in runtime's logs differ (%s)" % work
    if not any(l.startswith("cudart: register fatbin") for l in logs[0]):
        return "    nothing registered (%s)" % work
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--units", default="2,50")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cuda", default=os.environ.get("CUDA_PATH",
                                                         "/usr/local/cuda"))
    parser.add_argument("--before", default=None,
                        help="another build (e.g. of the commit before a "
                        "change) whose ld.lld-offload is timed in the same "
                        "rounds, for a before/after")
    parser.add_argument("--work", default=None,
                        help="keep the programs here (default: a temporary "
                        "directory, removed)")
    args = parser.parse_args()
    linker = os.path.join(os.path.abspath(args.build), "bin", "ld.lld-offload")
    cuda = os.path.abspath(args.cuda)
    nvcc = os.path.join(cuda, "bin", "nvcc")
    nvlink = os.path.join(cuda, "bin", "nvlink")
    for tool in (nvcc, nvlink, linker, CLANGXX):
        if not os.path.exists(tool):
            sys.exit("nvcc_link.py: %s is missing" % tool)
    # What nvcc hands the host link by default (-cudart=static).
    host_libs = ["-L" + os.path.join(cuda, "lib64"), "-lcudadevrt",
                 "-lcudart_static", "-lrt", "-lpthread", "-ldl"]
    target_lib = os.path.join(cuda, "targets", "x86_64-linux", "lib")

    rows = []
    for units in [int(u) for u in args.units.split(",")]:
        if args.work:
            work = os.path.join(os.path.abspath(args.work), "units-%d" % units)
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
        else:
            work = tempfile.mkdtemp(prefix="lld-offload-nvcc-bench-")
        try:
            print("%d units: compiling with nvcc ..." % units, flush=True)
            objects = make_program(work, units, nvcc)
            # The floor's registration object, made once, not timed.
            subprocess.check_call([nvcc, "-dlink"] + GENCODE + objects +
                                  ["-o", "dlink.o"], cwd=work)
            nvcc_cmd = [nvcc, "-rdc=true"] + GENCODE + objects + [
                "-o", "prog-nvcc"]
            ours_cmd = [CLANGXX] + objects + [
                "-fuse-ld=lld", "--ld-path=" + linker,
                "-Wl,--offload-cuda-path=" + cuda] + host_libs + [
                "-o", "prog-ours"]
            before_cmd = None
            if args.before:
                before_cmd = [CLANGXX] + objects + [
                    "-fuse-ld=lld", "--ld-path=" + os.path.join(
                        os.path.abspath(args.before), "bin", "ld.lld-offload"),
                    "-Wl,--offload-cuda-path=" + cuda] + host_libs + [
                        "-o", "prog-before"]
            nvlink_cmds = [[nvlink, "-m64", "--arch=" + arch,
                            "--register-link-binaries=floor.reg.c",
                            "-L" + os.path.join(target_lib, "stubs"),
                            "-L" + target_lib, "-cpu-arch=X86_64",
                            "-report-arch"] + objects + [
                                "-lcudadevrt", "-o", "floor.%s.cubin" % arch]
                           for arch in ARCHS]
            host_cmd = [CLANGXX, "-fuse-ld=lld", "dlink.o"] + objects + \
                host_libs + ["-o", "prog-floor"]

            why = check_same_registrations(work, objects, cuda, nvcc, linker,
                                           here)
            ours_ok = why is None
            if not ours_ok:
                print("  ld.lld-offload cannot link nvcc's -rdc objects yet "
                      "(issue #35), or links them otherwise than nvcc;\n"
                      "  timing nvcc's link and the floor only:\n" + why,
                      flush=True)

            t_nvcc, t_ours, t_nvlink, t_host, t_before = [], [], [], [], []

            def floor():
                t_nvlink.append(sum(run(c, work)[0] for c in nvlink_cmds))
                t_host.append(run(host_cmd, work)[0])

            links = [lambda: t_nvcc.append(run(nvcc_cmd, work)[0]), floor]
            if ours_ok:
                links.append(lambda: t_ours.append(run(ours_cmd, work)[0]))
            if before_cmd:
                links.append(
                    lambda: t_before.append(run(before_cmd, work)[0]))
            for r in range(args.repeat):
                k = r % len(links)
                for link in links[k:] + links[:k]:
                    link()
            nvcc_s = statistics.median(t_nvcc)
            nvlink_s = statistics.median(t_nvlink)
            host_s = statistics.median(t_host)
            floor_s = statistics.median(
                [a + b for a, b in zip(t_nvlink, t_host)])
            ours_s = statistics.median(t_ours) if ours_ok else None
            rows.append((units, nvcc_s, ours_s, floor_s, nvlink_s, host_s))
            if t_before:
                before_s = statistics.median(t_before)
                print("  %d units: before %.3f s (%.3f of nvcc), ours %s"
                      % (units, before_s, before_s / nvcc_s,
                         "-" if ours_s is None else "%.3f s (%.3f of nvcc)"
                         % (ours_s, ours_s / nvcc_s)), flush=True)
        finally:
            if not args.work:
                shutil.rmtree(work, ignore_errors=True)

    print("\nmedians of %d interleaved rounds, seconds" % args.repeat)
    print("%-6s %8s %8s %8s %9s %8s %10s %11s" % (
        "units", "nvcc", "ours", "floor", "(nvlink", "host)", "ours/nvcc",
        "ours/floor"))
    for units, nvcc_s, ours_s, floor_s, nvlink_s, host_s in rows:
        if ours_s is None:
            ours, r_nvcc, r_floor = "-", "-", "-"
        else:
            ours = "%.3f" % ours_s
            r_nvcc = "%.3f" % (ours_s / nvcc_s)
            r_floor = "%.3f" % (ours_s / floor_s)
        print("%-6d %8.3f %8s %8.3f %9.3f %8.3f %10s %11s" % (
            units, nvcc_s, ours, floor_s, nvlink_s, host_s, r_nvcc, r_floor))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Times a 10-arch HIP (or CUDA, --kind cuda) shared library's link here
against the same link with its device links sent to a DTLTO distributor
(CUDA: the LTO of each NVPTX device link), interleaved, in one run,
prints the medians and the ratios dist / local and dist / local-j2, and
models the link on a farm of N machines:

  local:     clang -shared <objs> -fuse-ld=lld --ld-path=ld.lld-offload
             (the default: one device link at a time, in the linker's
             process; run with -Wl,--offload-verbose, whose "device links:
             X ms" splits the link into its device links and the rest)
  local-j2:  the same, -Wl,--offload-jobs=2 (two device links at a time)
  dist:      the same, -Wl,--offload-distributor=test/ld.lld-offload/
             Inputs/distributor/box.py (the tests' distributor: every job in
             a fresh box of its own, holding copies of its inputs, all jobs
             at once, on this machine)

The library is generated: --units units (default 10) of --funcs __device__
functions each (default 200: 2,000 in all), in chains of 10 (each function
calls the one before it in its chain; every third is noinline, as functions
too big to inline are), and a kernel per chain (20 a unit) that calls the end
of a chain of the next unit, so that every function is reachable and the
device code needs relocatable device code (-fgpu-rdc); each unit has a host
function that launches its kernels. No HIP headers: the units include the
tests' hip-mini.h. Each unit is compiled once, before timing, for the 10
--archs, in parallel:

  clang -x hip -I<hip-mini.h's dir> -nogpulib -nogpuinc -fgpu-rdc
        --offload-new-driver -O2 -cuid=<unit> --offload-arch=... -c

With --kind cuda the units are CUDA (the toolkit's headers), compiled with
device LTO for 10 sm_ archs (clang -x cuda -fPIC --cuda-path=<cuda> -fgpu-rdc
-foffload-lto --offload-new-driver -O2), and linked with
-Wl,--offload-cuda-path=<cuda>: each NVPTX device link sends two jobs, in
two rounds, its LTO and then its ptxas; its nvlink runs in the link.

Before timing, the script links the library the three ways (each in a
directory of its own, as lib.so) and checks that they are byte-identical
(cmp) and that the distributed link sent every device link and fell back on
none (--offload-verbose, no warning). Each round runs the three links in
turn, rotating which goes first; the medians of --repeat rounds count. Every
timed distributed link is checked the same way (the distributor's --log=
gets a line per job; a warning fails the run).

Then the model of N machines: one more distributed link, with
-Wl,--offload-save-temps, keeps its work directory (lib.so.offload-temps/,
with device-links.dist-file.json and the jobs' inputs); each job is run
there alone, one after the other (common.args + job.args, as the
distributor runs it), timed, its output checked to be the image the link
got, and the bytes of its inputs and its output summed. A machine's share
of the work is its jobs, each one's time plus a start (the wall time of
`clang --version`, median of 11: what starting the remote compiler once
more costs, counted per job as the farm's dispatch) plus the transfer of its
inputs and output at --gbits (1 Gbit/s assumed, not measured); jobs go to
machines longest first, each to the machine with the least work so far
(LPT). Then

  T(N) = (dist's wall time - the time it waited for the distributor: the
          rest of the link, ptxas and nvlink for CUDA included, medians)
         + the largest machine's share

and T(N) / local is printed for N = 1, 2, 5 and 10. A job here runs on this
machine's 2 cores (the device link's 8 LTO partitions are compiled on
threads); the model's machines are this one.

  bench/distributor_link.py [--build BUILD] [--repeat 3] [--work DIR]
                            [--units 10] [--funcs 200] [--archs a,b,...]
                            [--gbits 1]
"""
import argparse
import concurrent.futures
import filecmp
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
HIP_MINI_DIR = os.path.join(REPO, "test", "ld.lld-offload", "hip-programs",
                            "Inputs")
BOX = os.path.join(REPO, "test", "ld.lld-offload", "Inputs", "distributor",
                   "box.py")
LLVM_BIN = "/usr/lib/llvm-22/bin"
CLANG = os.path.join(LLVM_BIN, "clang")
CUDA = os.environ.get("CUDA_PATH", "/usr/local/cuda")
# What differs between the kinds: how a unit is compiled, for which archs,
# what it starts with, how a kernel numbers its threads, what the link adds.
KINDS = {
    "hip": {
        "rounds": 1,
        "flags": ["-x", "hip", "-I" + HIP_MINI_DIR, "-nogpulib", "-nogpuinc",
                  "-fgpu-rdc", "--offload-new-driver", "-O2"],
        "archs": ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942",
                  "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1201"],
        "header": '#include "hip-mini.h"\n',
        "id": "__builtin_amdgcn_workitem_id_x() +\n"
              "           __builtin_amdgcn_workgroup_id_x() * 64",
        "link": [],
    },
    "cuda": {
        "rounds": 2,
        "flags": ["-x", "cuda", "-fPIC", "--cuda-path=" + CUDA,
                  "-Wno-unknown-cuda-version", "-fgpu-rdc", "-foffload-lto",
                  "--offload-new-driver", "-O2"],
        "archs": ["sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
                  "sm_100", "sm_103", "sm_120", "sm_121"],
        "header": "",
        "id": "threadIdx.x + blockIdx.x * 64",
        "link": ["-Wl,--offload-cuda-path=" + CUDA],
    },
}
CHAIN = 10
KEYS = ["local", "local-j2", "dist"]
# Settings that would change what the links do (a cache would skip them).
CLEAN_ENV = {k: v for k, v in os.environ.items()
             if k not in ("LLD_OFFLOAD_CACHE_DIR", "LLD_OFFLOAD_REMOTE_CACHE",
                          "LLD_OFFLOAD_ARCH")}

FUNC = """\
%(attr)s__device__ float u%(u)d_f%(i)d(float x, int n) {
  float acc = x * %(c)d.5f;
  acc = acc > %(c)d.0f ? acc * 0.5f - n : acc * acc + %(i)d.25f;
%(call)s  return acc;
}
"""
KERNEL = """\
__global__ void u%(u)d_k%(j)d(float *out, const float *in, int n) {
  int id = %(id)s;
  float s = in[id] * %(c)d.0f + %(j)d.5f;
  out[id] = u%(next)d_f%(f)d(s, n) - s * 0.25f;
}
"""


def write_unit(path, unit, units, funcs, kind):
    """Unit `unit`: `funcs` device functions in chains of CHAIN, a kernel
    per chain calling the last function of a chain of the next unit, and
    launch_u<unit>(), which launches the kernels."""
    nxt = (unit + 1) % units
    chains = funcs // CHAIN
    with open(path, "w") as f:
        f.write(kind["header"])
        if nxt != unit:
            for j in range(chains):
                f.write("__device__ float u%d_f%d(float, int);\n"
                        % (nxt, j * CHAIN + CHAIN - 1))
        for i in range(chains * CHAIN):
            call = ("  acc += u%d_f%d(acc * 0.75f, n - 1);\n" % (unit, i - 1)
                    if i % CHAIN else "")
            f.write(FUNC % {
                "attr": "__attribute__((noinline)) " if i % 3 == 0 else "",
                "u": unit, "i": i, "c": (unit + i) % 7 + 2, "call": call})
        for j in range(chains):
            f.write(KERNEL % {"u": unit, "j": j, "c": (unit * 3 + j) % 5 + 1,
                              "next": nxt, "f": j * CHAIN + CHAIN - 1,
                              "id": kind["id"]})
        f.write('extern "C" void launch_u%d(float *out, const float *in, '
                'int n) {\n' % unit)
        for j in range(chains):
            f.write("  u%d_k%d<<<dim3(4), dim3(64)>>>(out, in, n);\n"
                    % (unit, j))
        f.write("}\n")


def make_library(work, units, funcs, archs, kind):
    """Writes and compiles the units (in parallel); returns the objects'
    absolute paths."""
    names = ["unit%d" % u for u in range(units)]
    for u, name in enumerate(names):
        write_unit(os.path.join(work, name + ".cu"), u, units, funcs, kind)
    jobs = [[CLANG] + kind["flags"] + ["--offload-arch=" + a for a in archs] +
            ["-cuid=" + name, "-c", name + ".cu", "-o", name + ".o"]
            for name in names]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(lambda c: subprocess.check_call(c, cwd=work), jobs))
    return [os.path.join(work, n + ".o") for n in names]


def link(cmd, cwd):
    """Runs a link in cwd (lib.so removed first); returns (seconds, its
    stderr). Exits on failure, or when it warned (a distributor's fault
    makes the links run here, after a warning)."""
    out = os.path.join(cwd, "lib.so")
    if os.path.exists(out):
        os.remove(out)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=CLEAN_ENV,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit("failed (%s): %s\n%s" % (cwd, " ".join(cmd),
                                          proc.stderr[-3000:]))
    if "warning" in proc.stderr:
        sys.exit("the link warned (%s): %s\n%s" % (
            cwd, " ".join(cmd),
            "\n".join(l for l in proc.stderr.splitlines() if "warning" in l)))
    return elapsed, proc.stderr


def pass_times(stderr):
    """The --offload-verbose pass times, [(pass, ms)], in order."""
    return [(m.group(1), float(m.group(2))) for m in re.finditer(
        r"^ld\.lld-offload: ([^:\n]+): ([0-9.]+) ms$", stderr, re.M)]


def device_link_ms(stderr):
    times = [ms for name, ms in pass_times(stderr) if name == "device links"]
    if len(times) != 1:
        sys.exit("no 'device links: X ms' in --offload-verbose's output")
    return times[0]


def waited_s(stderr):
    """How long a distributed link waited for its distributor, every round
    (--offload-verbose)."""
    waits = re.findall(r"to distributor .*; waited ([0-9.]+) s$", stderr,
                       re.M)
    if not waits:
        sys.exit("no 'waited X s' in --offload-verbose's output")
    return sum(float(w) for w in waits)


def log_lines(path):
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return sum(1 for _ in f)


def clang_start():
    """The median wall time of `clang --version`, of 11."""
    times = []
    for _ in range(11):
        start = time.perf_counter()
        subprocess.check_call([CLANG, "--version"], stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_jobs(temps, json_name):
    """Runs each job of temps/<json_name> alone, in temps, one after the
    other; returns [(name, seconds, bytes in, bytes out)]. Each job's output
    must be the file the distributed link got."""
    with open(os.path.join(temps, json_name)) as f:
        data = json.load(f)
    common, rows = data["common"], []
    for job in data["jobs"]:
        (output,) = job["outputs"]
        got = os.path.join(temps, output + ".got")
        shutil.copyfile(os.path.join(temps, output), got)
        os.remove(os.path.join(temps, output))
        start = time.perf_counter()
        subprocess.check_call(common["args"] + job["args"], cwd=temps,
                              env=CLEAN_ENV)
        elapsed = time.perf_counter() - start
        if not filecmp.cmp(got, os.path.join(temps, output), shallow=False):
            sys.exit("job %s made another image than the link got (%s)"
                     % (output, temps))
        size_in = sum(os.path.getsize(os.path.join(temps, p))
                      for p in common["inputs"] + job["inputs"])
        rows.append((output, elapsed, size_in,
                     os.path.getsize(os.path.join(temps, output))))
    return rows


def makespan(costs, machines):
    """The largest machine's work when the jobs (their costs) go longest
    first, each to the machine with the least so far."""
    loads = [0.0] * machines
    for cost in sorted(costs, reverse=True):
        loads[loads.index(min(loads))] += cost
    return max(loads)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", default=None,
                        help="keep the library and the links here (default: "
                        "a temporary directory, removed)")
    parser.add_argument("--units", type=int, default=10)
    parser.add_argument("--funcs", type=int, default=200,
                        help="device functions a unit (a multiple of %d)"
                        % CHAIN)
    parser.add_argument("--kind", choices=sorted(KINDS), default="hip")
    parser.add_argument("--archs", default=None,
                        help="default: 10 archs of the kind")
    parser.add_argument("--gbits", type=float, default=1.0,
                        help="the farm's network, Gbit/s (assumed)")
    args = parser.parse_args()
    linker = os.path.join(os.path.abspath(args.build), "bin", "ld.lld-offload")
    for tool in (linker, CLANG, BOX):
        if not os.path.exists(tool):
            sys.exit("distributor_link.py: %s is missing" % tool)
    if args.units < 2 or args.funcs < CHAIN:
        sys.exit("--units: at least 2; --funcs: at least %d" % CHAIN)
    kind = KINDS[args.kind]
    archs = args.archs.split(",") if args.archs else kind["archs"]

    if args.work:
        work = os.path.abspath(args.work)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    else:
        work = tempfile.mkdtemp(prefix="lld-offload-dist-bench-")
    try:
        functions = args.units * (args.funcs // CHAIN) * CHAIN
        print("%d units, %d device functions and %d kernels, for %d archs "
              "(%s): compiling ..." % (
                  args.units, functions, functions // CHAIN, len(archs),
                  " ".join(archs)), flush=True)
        start = time.perf_counter()
        objs = make_library(work, args.units, args.funcs, archs, kind)
        print("  compiled in %.1f s; objects %.1f MB" % (
            time.perf_counter() - start,
            sum(os.path.getsize(o) for o in objs) / 1e6), flush=True)

        base = [CLANG, "-shared"] + objs + kind["link"] + [
            "-fuse-ld=lld", "--ld-path=" + linker, "-o", "lib.so"]
        jobs_log = os.path.join(work, "dist-jobs.log")
        dist_flags = ["-Wl,--offload-distributor=" + BOX,
                      "-Wl,--offload-distributor-arg=--log=" + jobs_log]
        cmds = {
            "local": base + ["-Wl,--offload-verbose"],
            "local-j2": base + ["-Wl,--offload-jobs=2"],
            "dist": base + dist_flags + ["-Wl,--offload-verbose"],
        }
        dirs = {}
        for key in KEYS:
            dirs[key] = os.path.join(work, key)
            os.makedirs(dirs[key])

        # The check: the same bytes three ways; every device link sent.
        print("checking ...", flush=True)
        first = {}
        for key in KEYS:
            first[key] = link(cmds[key], dirs[key])
        sent = re.search(r"sent (\d+) device link\(s\) to distributor",
                         first["dist"][1])
        if not sent or int(sent.group(1)) != len(archs):
            sys.exit("the distributed link did not send its %d device links:"
                     "\n%s" % (len(archs), first["dist"][1][-2000:]))
        per_link = len(archs) * kind["rounds"]
        if log_lines(jobs_log) != per_link:
            sys.exit("the distributor logged %d jobs, expected %d"
                     % (log_lines(jobs_log), per_link))
        libs = {key: os.path.join(dirs[key], "lib.so") for key in KEYS}
        for key in ("local-j2", "dist"):
            if not filecmp.cmp(libs["local"], libs[key], shallow=False):
                sys.exit("lib.so of %s differs from local's (%s)"
                         % (key, work))
        print("  local, local-j2 and dist: lib.so byte-identical (%d bytes); "
              "dist sent %d device links and linked none here (first: "
              "local %.1f s, local-j2 %.1f s, dist %.1f s)" % (
                  os.path.getsize(libs["local"]), len(archs),
                  first["local"][0], first["local-j2"][0], first["dist"][0]),
              flush=True)

        # Rounds of the three links in turn, rotating which goes first, so
        # that a load on the machine that comes and goes favours none.
        times = {key: [] for key in KEYS}
        rest, device = [], []
        passes = []
        for r in range(args.repeat):
            k = r % len(KEYS)
            for key in KEYS[k:] + KEYS[:k]:
                before = log_lines(jobs_log)
                elapsed, stderr = link(cmds[key], dirs[key])
                times[key].append(elapsed)
                if key == "local":
                    device.append(device_link_ms(stderr) / 1000.0)
                    passes = pass_times(stderr)
                if key == "dist":
                    rest.append(elapsed - waited_s(stderr))
                if key == "dist" and log_lines(jobs_log) != before + per_link:
                    sys.exit("the distributor did not run %d jobs in round "
                             "%d" % (per_link, r + 1))
            print("  round %d: %s" % (r + 1, ", ".join(
                "%s %.2f s" % (key, times[key][-1]) for key in KEYS)),
                flush=True)
        med = {key: statistics.median(t) for key, t in times.items()}
        rest_s, device_s = statistics.median(rest), statistics.median(device)

        # One more distributed link, its work directory kept; its jobs run
        # alone.
        print("timing the jobs one at a time ...", flush=True)
        save = os.path.join(work, "save-temps")
        os.makedirs(save)
        link(cmds["dist"] + ["-Wl,--offload-save-temps"], save)
        if not filecmp.cmp(libs["local"], os.path.join(save, "lib.so"),
                           shallow=False):
            sys.exit("lib.so of the --offload-save-temps link differs")
        temps = os.path.join(save, "lib.so.offload-temps")
        rounds = [time_jobs(temps, "device-links.dist-file.json")]
        for r in range(2, kind["rounds"] + 1):
            rounds.append(time_jobs(temps, "device-links.%d.dist-file.json"
                                    % r))
        jobs = [j for round_jobs in rounds for j in round_jobs]
        start_s = clang_start()
        bytes_per_s = args.gbits * 1e9 / 8
        costs = [[t + start_s + (i + o) / bytes_per_s for _, t, i, o in rj]
                 for rj in rounds]
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    print("\nmedians of %d interleaved rounds, seconds" % args.repeat)
    print("%10s %10s %10s %10s %12s %14s" % (
        "local", "local-j2", "dist", "dist/local", "dist/local-j2",
        "local-j2/local"))
    print("%10.2f %10.2f %10.2f %10.3f %12.3f %14.3f" % (
        med["local"], med["local-j2"], med["dist"],
        med["dist"] / med["local"], med["dist"] / med["local-j2"],
        med["local-j2"] / med["local"]))
    print("local: device links %.2f s (--offload-verbose); dist: the rest "
          "(not waiting) %.3f s; local's last run's passes:"
          % (device_s, rest_s))
    for name, ms in passes:
        print("  %-45s %10.1f ms" % (name, ms))

    print("\nthe jobs, each alone, in %s order (seconds; bytes in / out):"
          % "the JSON's")
    for name, t, i, o in jobs:
        print("  %-36s %7.2f s %10d B %9d B" % (name, t, i, o))
    total = sum(t for _, t, _, _ in jobs)
    moved = sum(i + o for _, _, i, o in jobs)
    print("  %-36s %7.2f s %10d B in all (%.1f ms at %g Gbit/s)" % (
        "sum", total, moved, moved / bytes_per_s * 1000, args.gbits))
    print("a job's start (clang --version, median of 11): %.1f ms"
          % (start_s * 1000))

    print("\nthe model: T(N) = rest of the distributed link %.3f s + the "
          "largest machine's share (its jobs' times + a start each + its "
          "bytes at %g Gbit/s, assumed; LPT), summed over the %d round(s)"
          % (rest_s, args.gbits, len(costs)))
    print("%8s %10s %10s %12s" % ("machines", "share", "T(N)", "T(N)/local"))
    for n in (1, 2, 5, 10):
        share = sum(makespan(c, n) for c in costs)
        t = rest_s + share
        print("%8d %10.2f %10.2f %12.3f" % (n, share, t, t / med["local"]))


if __name__ == "__main__":
    main()

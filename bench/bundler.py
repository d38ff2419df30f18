#!/usr/bin/env python3
"""Times offload-bundler against LLVM 22's clang-offload-bundler in one run:
bundling five inputs (a small host file and four large device files),
listing and unbundling one entry of the result. Prints the best wall time
and the peak RSS of each, with the ratios (LLVM / ours: above 1 means we are
faster or smaller).

  bench/bundler.py [--build BUILD] [--static-build BUILD] [--size-mib 128]
                   [--repeat 3] [--ccob-mib 256] [--zeros-gib 3] [--no-ccob]

Then compressed bundles (CCOB): -compress of a host file and two entries of
--ccob-mib random bytes, -list and -unbundle of one entry of the result
(written by clang-offload-bundler), and -list, -unbundle and
offload-inspect of a ~100 KB CCOB whose middle entry is --zeros-gib GiB of
zeros (made by test/offload-bundler/Inputs/make-ccob.py). These runs are
interleaved (theirs, ours, theirs, ...) and the medians printed.

--static-build adds a row per case for a build configured with
-DLLD_OFFLOAD_STATIC_TOOLS=ON (tools linking LLVM's static libraries rather
than libLLVM.so), measured in the same run.
"""
import argparse
import os
import shutil
import subprocess
import tempfile

from benchlib import best_of, peak_rss, run

LLVM_BIN = "/usr/lib/llvm-22/bin"
TARGETS = ("host-x86_64-unknown-linux-gnu," +
           ",".join("hipv4-amdgcn-amd-amdhsa--gfx%s" % a
                    for a in ("90a", "942", "1100", "1030")))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--static-build",
                        help="also time this LLD_OFFLOAD_STATIC_TOOLS build")
    parser.add_argument("--size-mib", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ccob-mib", type=int, default=256)
    parser.add_argument("--zeros-gib", type=int, default=3)
    parser.add_argument("--no-ccob", action="store_true",
                        help="skip the compressed bundle cases")
    args = parser.parse_args()
    ours = os.path.join(os.path.abspath(args.build), "bin", "offload-bundler")
    theirs = os.path.join(LLVM_BIN, "clang-offload-bundler")
    variants = [("", ours)]
    if args.static_build:
        variants.append((" (static)", os.path.join(
            os.path.abspath(args.static_build), "bin", "offload-bundler")))

    work = tempfile.mkdtemp(prefix="lld-offload-bundler-bench-")
    try:
        inputs = [os.path.join(work, "host.bc")]
        with open(inputs[0], "wb") as f:
            f.write(os.urandom(4096))
        chunk = os.urandom(1 << 20)
        for n in range(4):
            path = os.path.join(work, "dev%d.bc" % n)
            with open(path, "wb") as f:
                for _ in range(args.size_mib):
                    f.write(chunk)
            inputs.append(path)
        bundled = os.path.join(work, "bundled.bc")
        subprocess.check_call([theirs, "-type=bc", "-targets=" + TARGETS,
                               "-output=" + bundled] +
                              ["-input=" + i for i in inputs])
        cases = [
            ("bundle 4 x %d MiB" % args.size_mib,
             lambda t: [t, "-type=bc", "-targets=" + TARGETS, "-output=out.bc"]
             + ["-input=" + i for i in inputs]),
            ("list", lambda t: [t, "-type=bc", "-list", "-input=" + bundled]),
            ("unbundle 1 entry",
             lambda t: [t, "-type=bc", "-unbundle", "-input=" + bundled,
                        "-targets=hipv4-amdgcn-amd-amdhsa--gfx942",
                        "-output=out.co"]),
        ]
        print("%-29s %10s %10s %8s %11s %10s %8s" % (
            "case", "llvm22 s", "ours s", "speedup", "llvm22 MiB", "ours MiB",
            "rss x"))
        for name, cmd in cases:
            t_l, m_l = best_of(cmd(theirs), work, args.repeat)
            for suffix, tool in variants:
                t_o, m_o = best_of(cmd(tool), work, args.repeat)
                print("%-29s %10.3f %10.4f %8.1f %11.1f %10.1f %8.1f" % (
                    name + suffix, t_l, t_o, t_l / t_o, m_l, m_o, m_l / m_o))
        if not args.no_ccob:
            ccob_cases(args, work, theirs, variants, here)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def interleaved(cmds, work, repeat):
    """Runs every command of `cmds` (name -> argv) in turn, `repeat` times
    round-robin, each in a fresh directory; returns name -> (median seconds,
    peak RSS in MiB of one more run under /usr/bin/time)."""
    times = {name: [] for name in cmds}
    for i in range(repeat):
        for name, cmd in cmds.items():
            cwd = os.path.join(work, "run")
            shutil.rmtree(cwd, ignore_errors=True)
            os.makedirs(cwd)
            times[name].append(run(cmd, cwd)[0])
    result = {}
    for name, cmd in cmds.items():
        cwd = os.path.join(work, "run")
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
        result[name] = (median(times[name]), peak_rss(cmd, cwd))
    shutil.rmtree(os.path.join(work, "run"), ignore_errors=True)
    return result


def ccob_cases(args, work, theirs, variants, here):
    targets = ("host-x86_64-unknown-linux-gnu,"
               "hipv4-amdgcn-amd-amdhsa--gfx90a,"
               "hipv4-amdgcn-amd-amdhsa--gfx942")
    inputs = [os.path.join(work, "host.bc")]
    for n in range(2):
        path = os.path.join(work, "ccob%d.bin" % n)
        with open(path, "wb") as f:
            for _ in range(args.ccob_mib):
                f.write(os.urandom(1 << 20))
        inputs.append(path)
    ccob = os.path.join(work, "random.ccob")
    subprocess.check_call([theirs, "-type=bc", "-targets=" + targets,
                           "-output=" + ccob, "-compress"] +
                          ["-input=" + i for i in inputs])
    zeros = os.path.join(work, "zeros.ccob")
    subprocess.check_call([
        "python3", os.path.join(here, "..", "test", "offload-bundler",
                                "Inputs", "make-ccob.py"), zeros,
        "host-x86_64-unknown-linux-gnu-=text:HOST",
        "hipv4-amdgcn-amd-amdhsa--gfx90a=zeros:%d" % (args.zeros_gib << 30),
        "hipv4-amdgcn-amd-amdhsa--gfx942=text:TAIL"])
    inspect = lambda t: os.path.join(os.path.dirname(t), "offload-inspect")
    cases = [
        ("compress 2 x %d MiB" % args.ccob_mib,
         lambda t: [t, "-type=bc", "-targets=" + targets, "-output=out.bc",
                    "-compress"] + ["-input=" + i for i in inputs]),
        ("list CCOB", lambda t: [t, "-type=bc", "-list", "-input=" + ccob]),
        ("unbundle 1 entry of CCOB",
         lambda t: [t, "-type=bc", "-unbundle", "-input=" + ccob,
                    "-targets=hipv4-amdgcn-amd-amdhsa--gfx942",
                    "-output=out.co"]),
        ("list %d GiB zeros CCOB" % args.zeros_gib,
         lambda t: [t, "-type=bc", "-list", "-input=" + zeros]),
        ("unbundle entry after zeros",
         lambda t: [t, "-type=bc", "-unbundle", "-input=" + zeros,
                    "-targets=hipv4-amdgcn-amd-amdhsa--gfx942",
                    "-output=out.co"]),
    ]
    print()
    print("compressed bundles: medians of %d interleaved runs" % args.repeat)
    print("%-29s %10s %10s %8s %11s %10s %8s" % (
        "case", "llvm22 s", "ours s", "speedup", "llvm22 MiB", "ours MiB",
        "rss x"))
    for name, cmd in cases:
        cmds = {"llvm": cmd(theirs)}
        for suffix, tool in variants:
            cmds[suffix] = cmd(tool)
        r = interleaved(cmds, work, args.repeat)
        t_l, m_l = r["llvm"]
        for suffix, _ in variants:
            t_o, m_o = r[suffix]
            print("%-29s %10.3f %10.4f %8.1f %11.1f %10.1f %8.1f" % (
                name + suffix, t_l, t_o, t_l / t_o, m_l, m_o, m_l / m_o))
    # offload-inspect has no LLVM counterpart: ours alone.
    for suffix, tool in variants:
        r = interleaved({"": [inspect(tool), zeros]}, work, args.repeat)
        print("%-29s %10s %10.4f %8s %11s %10.1f" % (
            "inspect zeros CCOB" + suffix, "-", r[""][0], "-", "-", r[""][1]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Times offload-bundler against LLVM 22's clang-offload-bundler in one run:
bundling five inputs (a small host file and four large device files),
listing and unbundling one entry of the result. Prints the best wall time
and the peak RSS of each, with the ratios (LLVM / ours: above 1 means we are
faster or smaller).

  bench/bundler.py [--build BUILD] [--static-build BUILD] [--size-mib 128]
                   [--repeat 3]

--static-build adds a row per case for a build configured with
-DLLD_OFFLOAD_STATIC_TOOLS=ON (tools linking LLVM's static libraries rather
than libLLVM.so), measured in the same run.
"""
import argparse
import os
import shutil
import subprocess
import tempfile

from benchlib import best_of

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
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

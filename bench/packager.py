#!/usr/bin/env python3
"""Times our tools against LLVM 22's on the same work, in one run.

Each case runs both commands several times in fresh output directories and
reports the best wall time and the peak RSS of each, and their ratios
(LLVM / ours: above 1 means we are faster or smaller).

  bench/packager.py [--build BUILD] [--size-mib N] [--repeat N]
"""
import argparse
import os
import shutil
import subprocess
import tempfile

from benchlib import best_of

LLVM_BIN = "/usr/lib/llvm-22/bin"


def make_input(path, mib):
    """Writes mib MiB of incompressible bytes (content is irrelevant here)."""
    chunk = os.urandom(1 << 20)
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(chunk)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--build", default=os.path.join(here, "..", "build"))
    parser.add_argument("--size-mib", type=int, default=256,
                        help="size of each of the two device images")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ours = os.path.join(os.path.abspath(args.build), "bin", "offload-packager")
    theirs = os.path.join(LLVM_BIN, "llvm-offload-binary")

    work = tempfile.mkdtemp(prefix="lld-offload-bench-")
    try:
        a = os.path.join(work, "a.o")
        b = os.path.join(work, "b.cubin")
        make_input(a, args.size_mib)
        make_input(b, args.size_mib)
        packed = os.path.join(work, "packed.bin")
        images = ["--image=file=%s,triple=x86_64-pc-linux-gnu,arch=generic,"
                  "kind=openmp" % a,
                  "--image=file=%s,triple=nvptx64-nvidia-cuda,arch=sm_70,"
                  "kind=cuda" % b]
        subprocess.check_call([theirs, "-o", packed] + images)

        cases = [
            ("pack 2 x %d MiB" % args.size_mib,
             lambda tool: [tool, "-o", "out.bin"] + images),
            ("extract 1 image",
             lambda tool: [tool, packed, "--image=arch=sm_70,file=out.cubin"]),
        ]
        print("%-22s %12s %12s %8s %12s %12s %8s" %
              ("case", "llvm22 s", "ours s", "speedup", "llvm22 MiB",
               "ours MiB", "rss x"))
        for name, cmd in cases:
            t_llvm, m_llvm = best_of(cmd(theirs), work, args.repeat)
            t_ours, m_ours = best_of(cmd(ours), work, args.repeat)
            print("%-22s %12.3f %12.3f %8.2f %12.1f %12.1f %8.2f" %
                  (name, t_llvm, t_ours, t_llvm / t_ours, m_llvm, m_ours,
                   m_llvm / m_ours))
        # LLVM 22's tool has no listing; llvm-objdump --offloading is the
        # nearest reader of the same file.
        t_llvm, m_llvm = best_of([os.path.join(LLVM_BIN, "llvm-objdump"),
                                  "--offloading", packed], work, args.repeat)
        t_ours, m_ours = best_of([ours, "--list", packed], work, args.repeat)
        print("%-22s %12.3f %12.3f %8.2f %12.1f %12.1f %8.2f" %
              ("list (vs objdump)", t_llvm, t_ours, t_llvm / t_ours, m_llvm,
               m_ours, m_llvm / m_ours))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Shared by the benchmark scripts: timing a command and its peak RSS."""
import os
import shutil
import subprocess
import sys
import time


def run(cmd, cwd, env=None):
    """Runs cmd in cwd; returns (seconds, peak RSS of its process tree in
    MiB). Exits on failure."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: " + " ".join(cmd))
    return elapsed, usage.ru_maxrss / 1024.0


def best_of(cmd, work, repeat, fresh_dir=True):
    """The best wall time and the largest peak RSS of `repeat` runs, each in
    a fresh directory under `work` (or in `work` itself)."""
    best, peak = float("inf"), 0.0
    for i in range(repeat):
        cwd = os.path.join(work, "run-%d" % i) if fresh_dir else work
        if fresh_dir:
            shutil.rmtree(cwd, ignore_errors=True)
            os.makedirs(cwd)
        t, m = run(cmd, cwd)
        best, peak = min(best, t), max(peak, m)
        if fresh_dir:
            shutil.rmtree(cwd, ignore_errors=True)
    return best, peak

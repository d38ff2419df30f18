"""Shared by the benchmark scripts: timing a command and its peak RSS."""
import os
import shutil
import subprocess
import sys
import time


def timed(cmd, cwd, env=None, quiet=False):
    """Runs cmd in cwd (its stderr dropped if quiet); returns its wall time
    in seconds. Exits on failure."""
    start = time.perf_counter()
    subprocess.check_call(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL if quiet else None)
    return time.perf_counter() - start


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


def peak_rss(cmd, cwd):
    """The peak RSS of cmd in MiB, as GNU time measures it. ru_maxrss of a
    child forked from Python counts the Python process's pages copied before
    exec (~15 MiB here), which would hide the size of small tools; a run
    under /usr/bin/time (a small C program) does not. Without it, falls back
    to run()'s figure."""
    if not os.path.exists("/usr/bin/time"):
        return run(cmd, cwd)[1]
    out = os.path.join(cwd, ".peak-rss")
    run(["/usr/bin/time", "-f", "%M", "-o", out] + cmd, cwd)
    with open(out) as f:
        kib = int(f.read().split()[-1])
    os.remove(out)
    return kib / 1024.0


def best_of(cmd, work, repeat, fresh_dir=True):
    """The best wall time of `repeat` runs, and the peak RSS of one more run
    (see peak_rss); each in a fresh directory under `work` (or in `work`
    itself)."""
    best, peak = float("inf"), 0.0
    for i in range(repeat + 1):
        cwd = os.path.join(work, "run-%d" % i) if fresh_dir else work
        if fresh_dir:
            shutil.rmtree(cwd, ignore_errors=True)
            os.makedirs(cwd)
        if i < repeat:
            best = min(best, run(cmd, cwd)[0])
        else:
            peak = peak_rss(cmd, cwd)
        if fresh_dir:
            shutil.rmtree(cwd, ignore_errors=True)
    return best, peak

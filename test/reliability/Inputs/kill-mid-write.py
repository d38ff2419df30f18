#!/usr/bin/env python3
"""Kills a process with SIGKILL in the middle of something and reports.

    kill-mid-write.py output OUT -- CMD...
        Starts CMD, waits until a temporary file OUT.tmp-* appears next to
        OUT (the tool is writing), kills CMD with SIGKILL and prints what the
        directory holds afterwards: "final: same|changed|missing" (compared
        with OUT's bytes before the run) and "temps: N".
    kill-mid-write.py worker FIFO -- CMD...
        Starts CMD (a link with --offload-jobs=2 whose device link of one
        triple reads a response file from FIFO, and so blocks), waits for the
        device-link worker (--offload-device-link-worker) that names FIFO, kills it with SIGKILL,
        waits for CMD and prints "exit: N" and its output.
"""

import glob
import os
import signal
import subprocess
import sys
import time


def cmdlines():
    out = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/cmdline", "rb") as f:
                out.append((int(d[6:]), f.read().split(b"\0")))
        except (OSError, ValueError, IndexError):
            pass
    return out


def main():
    mode, target = sys.argv[1], sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    if mode == "output":
        before = open(target, "rb").read() if os.path.exists(target) else None
        p = subprocess.Popen(cmd)
        deadline = time.time() + 60
        seen = False
        while time.time() < deadline and p.poll() is None:
            if glob.glob(glob.escape(target) + ".tmp-*"):
                seen = True
                break
            time.sleep(0.0005)
        p.send_signal(signal.SIGKILL)
        rc = p.wait()
        print("killed while writing: %s" % ("yes" if seen else "no"))
        print("exit: %d" % rc)
        if not os.path.exists(target):
            print("final: missing")
        else:
            print("final: %s" % ("same" if open(target, "rb").read() == before
                                 else "changed"))
        temps = glob.glob(glob.escape(target) + ".tmp-*")
        print("temps: %d" % len(temps))
        for t in temps:  # what a killed process cannot remove
            os.remove(t)
        return 0
    # worker
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    fifo = target.encode()
    deadline = time.time() + 60
    killed = False
    while time.time() < deadline and p.poll() is None and not killed:
        for pid, argv in cmdlines():
            if (b"--offload-device-link-worker" in argv and
                    any(fifo in a for a in argv)):
                os.kill(pid, signal.SIGKILL)
                killed = True
        time.sleep(0.001)
    out, _ = p.communicate()
    print("worker killed: %s" % ("yes" if killed else "no"))
    print("exit: %d" % p.returncode)
    sys.stdout.write(out.decode(errors="replace"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

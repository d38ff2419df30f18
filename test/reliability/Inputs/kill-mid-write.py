#!/usr/bin/env python3
"""Kills a process with SIGKILL in the middle of something and reports.

    kill-mid-write.py output OUT -- CMD...
        Starts CMD and waits until it is writing the file that will become
        OUT: an open descriptor, with data in it, to an anonymous file in
        OUT's directory (O_TMPFILE, shown as "DIR/#N (deleted)") or to a
        temporary "OUT.tmp*" (LLD's). Then kills CMD with SIGKILL, reads its
        output to the end (a clean-up helper that CMD left holds it open
        until it is done), and prints "final: same|changed|missing" (OUT's
        bytes compared with those before the run) and "temps: N" (entries of
        OUT's directory that were not there before, OUT aside).
    kill-mid-write.py worker FIFO -- CMD...
        Starts CMD (a link with --offload-jobs=2 whose device link of one
        triple reads a response file from FIFO, and so blocks), waits for the
        device-link worker (--offload-device-link-worker) that names FIFO,
        kills it with SIGKILL, waits for CMD and prints "exit: N" and its
        output.
    kill-mid-write.py linker FIFO -- CMD...
        The same link, but SIGKILL goes to CMD, the linker, while the worker
        waits; then prints "exit: N" and "workers left: N" (processes that
        name FIFO, a second after CMD's output ended).
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


def workers_naming(fifo):
    return [pid for pid, argv in cmdlines()
            if b"--offload-device-link-worker" in argv
            and any(fifo in a for a in argv)]


def writing(pid, target):
    """Whether process pid has a descriptor, with data behind it, to the
    file that will become target."""
    directory = os.path.dirname(os.path.abspath(target))
    final = os.path.abspath(target)
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for fd in fds:
        path = "/proc/%d/fd/%s" % (pid, fd)
        try:
            name = os.readlink(path)
            anonymous = (name.startswith(directory + "/#") and
                         name.endswith(" (deleted)"))
            if ((anonymous or name.startswith(final + ".tmp")) and
                    os.stat(path).st_blocks > 0):
                return True
        except OSError:
            pass
    return False


def kill_output(target, cmd):
    directory = os.path.dirname(os.path.abspath(target))
    before = open(target, "rb").read() if os.path.exists(target) else None
    entries = set(os.listdir(directory))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    seen = False
    while time.time() < deadline and p.poll() is None:
        if writing(p.pid, target):
            seen = True
            break
        time.sleep(0.0005)
    p.send_signal(signal.SIGKILL)
    p.communicate()
    print("killed while writing: %s" % ("yes" if seen else "no"))
    print("exit: %d" % p.returncode)
    if not os.path.exists(target):
        print("final: missing")
    else:
        print("final: %s" % ("same" if open(target, "rb").read() == before
                             else "changed"))
    new = sorted(set(os.listdir(directory)) - entries -
                 {os.path.basename(target)})
    print("temps: %d %s" % (len(new), " ".join(new)))


def kill_worker(fifo, cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    killed = False
    while time.time() < deadline and p.poll() is None and not killed:
        for pid in workers_naming(fifo):
            os.kill(pid, signal.SIGKILL)
            killed = True
        time.sleep(0.001)
    out, _ = p.communicate()
    print("worker killed: %s" % ("yes" if killed else "no"))
    print("exit: %d" % p.returncode)
    sys.stdout.write(out.decode(errors="replace"))


def kill_linker(fifo, cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while (time.time() < deadline and p.poll() is None and
           not workers_naming(fifo)):
        time.sleep(0.001)
    p.send_signal(signal.SIGKILL)
    p.communicate()
    print("exit: %d" % p.returncode)
    time.sleep(1)
    left = workers_naming(fifo)
    print("workers left: %d" % len(left))
    for pid in left:  # not to leave them blocked on the FIFO
        os.kill(pid, signal.SIGKILL)


def main():
    mode, target = sys.argv[1], sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    if mode == "output":
        kill_output(target, cmd)
    elif mode == "worker":
        kill_worker(target.encode(), cmd)
    else:
        kill_linker(target.encode(), cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs CMD and prints "exit: N" (-N for a signal) and then its output.

    run-to-end.py CMD...

It returns only once CMD's output has ended: when every process holding
it has closed it, ld.lld-offload's clean-up helper among them (it keeps
standard output and error open until it has removed what a failed link
left). A test that looks at the file system next sees what remains.
"""

import subprocess
import sys


def main():
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    out, _ = p.communicate()
    print("exit: %d" % p.returncode)
    sys.stdout.write(out.decode(errors="replace"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

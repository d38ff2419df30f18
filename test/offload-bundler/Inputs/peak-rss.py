#!/usr/bin/env python3
"""peak-rss.py MIB COMMAND...: runs COMMAND and fails if it failed or if its
peak resident memory exceeded MIB MiB."""
import resource
import subprocess
import sys

limit = int(sys.argv[1])
status = subprocess.call(sys.argv[2:])
if status:
    sys.exit(status)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
if peak > limit:
    print("peak RSS %d MiB exceeds %d MiB" % (peak, limit), file=sys.stderr)
    sys.exit(1)
print("peak RSS within %d MiB" % limit)

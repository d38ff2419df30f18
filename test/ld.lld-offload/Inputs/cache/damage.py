"""Damages device-link cache entries, as a crash or a bad disk would.

  damage.py truncate|flip FILE...

truncate cuts each file to half its size; flip inverts its 100th byte from
the end.
"""
import os
import sys

how, paths = sys.argv[1], sys.argv[2:]
if not paths:
    sys.exit("damage.py: no entry to damage")
for path in paths:
    if how == "truncate":
        os.truncate(path, os.path.getsize(path) // 2)
    else:
        with open(path, "r+b") as f:
            f.seek(-100, os.SEEK_END)
            byte = f.read(1)[0]
            f.seek(-100, os.SEEK_END)
            f.write(bytes([byte ^ 0xFF]))

#!/usr/bin/env python3
"""Compares offload-inspect --resources --json rows of cubins with what
`ptxas -v` reported when it made them.

  compare-ptxas.py PTXAS_LOG INSPECT_JSON

For every kernel ptxas names ("Compiling entry function 'K' for 'sm_NN'"):
registers ("Used N registers"), shared memory ("N bytes smem", 0 when not
printed), the stack frame ("N bytes stack frame") and, where ptxas prints
it (SMs before sm_90), cmem[0] must equal the row's registers, lds_bytes,
scratch_bytes and constant_bytes, and the row's arch the SM. Prints the
differences and "N kernels, M differences"; exits 1 when there are any or
when a kernel has no row.
"""
import json
import re
import sys


def ptxas_kernels(path):
    kernels, current = {}, None
    for line in open(path):
        m = re.search(r"Compiling entry function '([^']+)' for '(sm_\w+)'", line)
        if m:
            current = kernels.setdefault(m.group(1), {"arch": m.group(2)})
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            # A device function's properties follow too; only an entry's count.
            current = kernels.get(m.group(1))
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame", line)
        if m:
            current["scratch_bytes"] = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
            m = re.search(r"(\d+) bytes smem", line)
            current["lds_bytes"] = int(m.group(1)) if m else 0
            m = re.search(r"(\d+) bytes cmem\[0\]", line)
            if m:
                current["constant_bytes"] = int(m.group(1))
    return kernels


def main():
    expected = ptxas_kernels(sys.argv[1])
    rows = {r["mangled_name"]: r for r in json.load(open(sys.argv[2]))["kernels"]}
    differences = 0
    for name, want in sorted(expected.items()):
        row = rows.get(name)
        if row is None:
            print(f"{name}: no row")
            differences += 1
            continue
        for key, value in sorted(want.items()):
            if row[key] != value:
                print(f"{name}: {key} is {row[key]}, ptxas says {value}")
                differences += 1
    print(f"{len(expected)} kernels, {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())

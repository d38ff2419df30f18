#!/usr/bin/env python3
"""Compares offload-inspect --resources --json with what clang reported.

    compare-remarks.py REMARKS JSON [--min-kernels N]

REMARKS is clang's stderr from compiling the same source with
-Rpass-analysis=kernel-resource-usage; JSON is offload-inspect --resources
--json --no-demangle of the code object it made. Every kernel clang reported
must be in the JSON with the same SGPRs, VGPRs, AGPRs, spills, LDS, scratch,
dynamic stack and occupancy. Prints one line per difference and a summary;
exits 1 if there is a difference.

clang's "VGPRs" are the kernel's own; the code object's count is the one
that decides occupancy: on gfx908 the larger of VGPRs and AGPRs, on gfx90a,
gfx942 and gfx950 the VGPRs rounded up to 4 plus the AGPRs.
"""

import argparse
import json
import re
import sys

UNIFIED = ("gfx90a", "gfx942", "gfx950", "gfx9-4-generic")


def read_remarks(path):
    kernels, current = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.search(r"remark: Function Name: (\S+)", line)
        if m:
            current = kernels.setdefault(m.group(1), {})
            continue
        m = re.search(r"remark:\s+(.+?): (\S+) \[-Rpass-analysis", line)
        if m and current is not None:
            current[m.group(1).strip()] = m.group(2)
    return kernels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("remarks")
    ap.add_argument("json")
    ap.add_argument("--min-kernels", type=int, default=1)
    a = ap.parse_args()
    remarks = read_remarks(a.remarks)
    ours = {k["mangled_name"]: k for k in json.load(open(a.json))["kernels"]}
    differences = 0
    compared = 0
    for name, r in sorted(remarks.items()):
        if "Occupancy [waves/SIMD]" not in r:
            continue  # a device function, not a kernel
        k = ours.get(name)
        if k is None:
            print("MISSING %s" % name)
            differences += 1
            continue
        compared += 1
        vgprs, agprs = int(r["VGPRs"]), int(r.get("AGPRs", 0))
        processor = k["arch"].split(":")[0]
        if processor in UNIFIED and agprs:
            vgprs = (vgprs + 3) // 4 * 4 + agprs
        elif "AGPRs" in r:
            vgprs = max(vgprs, agprs)
        expected = {
            "sgprs": int(r["TotalSGPRs"]),
            "vgprs": vgprs,
            "sgpr_spills": int(r["SGPRs Spill"]),
            "vgpr_spills": int(r["VGPRs Spill"]),
            "lds_bytes": int(r["LDS Size [bytes/block]"]),
            "scratch_bytes": int(r["ScratchSize [bytes/lane]"]),
            "dynamic_stack": r["Dynamic Stack"] == "True",
            "waves_per_simd": int(r["Occupancy [waves/SIMD]"]),
        }
        if "AGPRs" in r:
            expected["agprs"] = agprs
        for key, want in expected.items():
            if k.get(key) != want:
                differences += 1
                print("DIFF %s %s %s: clang %s, offload-inspect %s" % (
                    k["arch"], name, key, want, k.get(key)))
    print("kernels compared: %d" % compared)
    print("differences: %d" % differences)
    if compared < a.min_kernels:
        print("too few kernels compared (expected at least %d)" % a.min_kernels)
        return 1
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())

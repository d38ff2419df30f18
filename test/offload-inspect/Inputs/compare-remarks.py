#!/usr/bin/env python3
"""Compares kernel resources as JSON with what the compiler reported.

    compare-remarks.py REMARKS JSON [--arch A] [--fields F,...]
                       [--min-kernels N]

REMARKS is clang's stderr from compiling the same source with
-Rpass-analysis=kernel-resource-usage, or ld.lld's from an LTO link with
-mllvm -pass-remarks-analysis=kernel-resource-usage; JSON is offload-inspect
--resources --json --no-demangle of the code object that made, or
ld.lld-offload's --offload-resource-usage=<file> (then --arch picks the
rows of one arch). Every kernel reported must be in the JSON with the same
SGPRs, VGPRs, AGPRs, spills, LDS, scratch, dynamic stack and occupancy (or
only the --fields given). Prints one line per difference and a summary;
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


# "<file>:<line>:<col>: remark:     TotalSGPRs: 10 [-Rpass-analysis=...]"
# from clang, "<unknown>:0:0:     TotalSGPRs: 10" from ld.lld.
REMARK = re.compile(r"^.*?:\d+:\d+:(?: remark:)?\s+(.+?): (\S+)"
                    r"(?: \[-Rpass-analysis=kernel-resource-usage\])?$")


def read_remarks(path):
    kernels, current = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = REMARK.match(line.rstrip("\n"))
        if not m:
            continue
        if m.group(1) == "Function Name":
            current = kernels.setdefault(m.group(2), {})
        elif current is not None:
            current[m.group(1)] = m.group(2)
    return kernels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("remarks")
    ap.add_argument("json")
    ap.add_argument("--arch")
    ap.add_argument("--fields")
    ap.add_argument("--min-kernels", type=int, default=1)
    a = ap.parse_args()
    remarks = read_remarks(a.remarks)
    ours = {k["mangled_name"]: k for k in json.load(open(a.json))["kernels"]
            if not a.arch or k["arch"].split(":")[0] == a.arch}
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
        if a.fields:
            expected = {key: expected[key] for key in a.fields.split(",")}
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

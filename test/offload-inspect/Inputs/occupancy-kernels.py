#!/usr/bin/env python3
"""Writes HIP kernels that sweep what decides occupancy, for one processor.

    occupancy-kernels.py PROCESSOR > kernels.hip

LDS sizes against largest work-groups (LDS and barriers per CU, wave slots),
VGPR and SGPR counts across the allocation granules and the SGPR pool steps
(by clobbering the last register of a kind), and AGPRs beside VGPRs on the
processors that have them. Sizes past 64 KiB only where the processor has
the LDS (gfx950, gfx1250).
"""

import sys

processor = sys.argv[1]
agprs = processor in ("gfx908", "gfx90a", "gfx942", "gfx950", "gfx9-4-generic")
lds_sizes = [0, 1024, 3072, 5000, 12000, 16384, 20000, 32768, 40000, 65536]
if processor in ("gfx950", "gfx1250", "gfx1251"):
    lds_sizes += [100000, 163840]
if processor in ("gfx1250", "gfx1251"):
    lds_sizes += [327680]

out = ['#define KERNEL extern "C" __attribute__((global))',
       '#define WG(n) __attribute__((amdgpu_flat_work_group_size(1, n)))',
       '#define TID __builtin_amdgcn_workitem_id_x()']
for wg in (1024, 256, 96, 64, 1):
    for n in lds_sizes:
        body = "P[TID] = 1;" if n == 0 else (
            "__attribute__((shared)) volatile char T[%d]; "
            "T[TID * 7 %% %d] = P[TID]; __builtin_amdgcn_s_barrier(); "
            "P[TID] = T[TID * 13 %% %d];" % (n, n, n))
        out.append("KERNEL WG(%d) void lds_%d_%d(int *P) { %s }" % (wg, wg, n, body))
for wg in (1024, 64):
    for v in (1, 5, 9, 17, 25, 33, 41, 49, 65, 73, 81, 97, 113, 128, 129, 168,
              170, 193, 256):
        out.append('KERNEL WG(%d) void v_%d_%d(int *P) { asm volatile("" ::: "v%d"); }'
                   % (wg, wg, v, v - 1))
    for s in (48, 49, 56, 57, 64, 65, 72, 73, 80, 81, 88, 89, 100, 101):
        out.append('KERNEL WG(%d) void s_%d_%d(int *P) { asm volatile("" ::: "s%d"); }'
                   % (wg, wg, s, s - 1))
    if agprs:
        for a, v in ((1, 1), (4, 3), (32, 64), (65, 64), (128, 130), (256, 1)):
            out.append('KERNEL WG(%d) void a_%d_%d_%d(int *P) '
                       '{ asm volatile("" ::: "a%d", "v%d"); }'
                       % (wg, wg, a, v, a - 1, v - 1))
print("\n".join(out))

#!/usr/bin/env python3
"""Writes PTX for sm_90 with one kernel of N stores, whose cubin is large:
  make-big-ptx.py OUT N"""
import sys

lines = [".version 8.0", ".target sm_90", ".address_size 64",
         ".visible .entry big(.param .u64 p)", "{", ".reg .b64 %rd<2>;",
         ".reg .b32 %r<2>;", "ld.param.u64 %rd1, [p];", "mov.u32 %r1, 7;"]
lines += ["st.global.u32 [%%rd1+%d], %%r1;" % (i * 4)
          for i in range(int(sys.argv[2]))]
lines += ["ret;", "}"]
with open(sys.argv[1], "w") as f:
    f.write("\n".join(lines) + "\n")

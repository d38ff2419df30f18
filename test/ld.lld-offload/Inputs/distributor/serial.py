#!/usr/bin/env python3
"""A distributor that does what LLVM 22's reference one (llvm/utils/dtlto/
local.py) does: reads the JSON named last, and runs common.args + job.args
for every job, one after the other, in its own directory; a job that fails
fails it."""
import json
import subprocess
import sys

with open(sys.argv[-1]) as f:
    data = json.load(f)
for job in data["jobs"]:
    subprocess.check_call(data["common"]["args"] + job["args"])

#!/usr/bin/env python3
"""A DTLTO distributor for the tests, strict as a build farm is: each job runs
in a fresh, empty directory (its "box") that holds only the JSON's
common.inputs and the job's inputs, copied (never linked), with TMPDIR and
HOME inside the box; all jobs at once, as a farm would run them. Paths in
the job's arguments that name an input or an output are rewritten into the
box (an absolute path P becomes <box>/root/P; a relative one stays, under
the box); a job whose arguments past the compiler still name a path outside
the box, or a `..` path, is refused. The outputs are copied back where the
JSON names them, relative to the directory the distributor runs in.

  box.py [--log=FILE] [--fault=KIND] [--fault-when=TEXT] [--boxes=DIR] JSON

--log=FILE   append a line per job ("job <outputs>") to FILE
--fault=KIND misbehave: exit3 (print a line, exit 3, run nothing), hang
             (sleep for ever), skip (run nothing, exit 0), truncate (cut
             every output to half), garbage (write bytes that are no
             object), wrongkind (write a copy of an input instead),
             badptx (write PTX that reads right but that ptxas refuses)
--fault-when=TEXT  misbehave only when the JSON's name holds TEXT (a link
             that sends two rounds names the second's "<...>.2.dist-file.json")
--boxes=DIR  make the boxes under DIR (default: a temporary directory)
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def refuse(why):
    sys.stderr.write("box.py: refused: %s\n" % why)
    sys.exit(2)


def box_path(box, path):
    if os.path.isabs(path):
        return os.path.join(box, "root", path.lstrip("/"))
    if ".." in path.split("/"):
        refuse("a '..' path: %s" % path)
    return os.path.join(box, path)


def in_box(box, path):
    """path as a job run in the box names it: an absolute one moved into the
    box, a relative one as it is (the job runs in the box; ThinLTO's index
    names modules by the paths the link gave them)."""
    return box_path(box, path) if os.path.isabs(path) else path


def rewrite(arg, names, box):
    """arg, or arg with the path it names (whole, or after '=') in the box."""
    if arg in names:
        return in_box(box, arg)
    if arg.startswith("-") and "=" in arg:
        key, value = arg.split("=", 1)
        if value in names:
            return key + "=" + in_box(box, value)
    return arg


def check(arg, box):
    for part in [arg] + ([arg.split("=", 1)[1]] if "=" in arg else []):
        if part.startswith("/") and not part.startswith(box + "/"):
            refuse("a path outside the box: %s" % part)
        if ".." in part.split("/") and "/" in part:
            refuse("a '..' path: %s" % part)


def run_job(common, job, boxes):
    box = tempfile.mkdtemp(prefix="box-", dir=boxes)
    os.makedirs(os.path.join(box, "tmp"))
    os.makedirs(os.path.join(box, "home"))
    inputs = list(common["inputs"]) + list(job["inputs"])
    for path in inputs:
        dest = box_path(box, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(path, dest)
    names = set(inputs) | set(job["outputs"])
    for path in job["outputs"]:
        os.makedirs(os.path.dirname(box_path(box, path)), exist_ok=True)
    args = [rewrite(a, names, box) for a in common["args"][1:] + job["args"]]
    for a in args:
        check(a, box)
    env = dict(os.environ, TMPDIR=os.path.join(box, "tmp"),
               HOME=os.path.join(box, "home"))
    proc = subprocess.run([common["args"][0]] + args, cwd=box, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if proc.returncode != 0:
        return "job %s failed:\n%s" % (job["outputs"][0], proc.stdout)
    for path in job["outputs"]:
        shutil.copyfile(box_path(box, path), path)
    return None


def main():
    log = fault = boxes = when = None
    args = sys.argv[1:]
    for a in args[:-1]:
        if a.startswith("--log="):
            log = a[len("--log="):]
        elif a.startswith("--fault="):
            fault = a[len("--fault="):]
        elif a.startswith("--fault-when="):
            when = a[len("--fault-when="):]
        elif a.startswith("--boxes="):
            boxes = a[len("--boxes="):]
        else:
            refuse("unknown option %s" % a)
    if when is not None and when not in os.path.basename(args[-1]):
        fault = None
    with open(args[-1]) as f:
        data = json.load(f)
    common, jobs = data["common"], data["jobs"]
    if log:
        with open(log, "a") as f:
            for job in jobs:
                f.write("job %s\n" % " ".join(job["outputs"]))
    if fault == "exit3":
        print("box.py: the farm is down")
        sys.exit(3)
    if fault == "hang":
        time.sleep(3600)
    if fault == "skip":
        return 0
    own = boxes is None
    if own:
        boxes = tempfile.mkdtemp(prefix="boxes-")
    else:
        os.makedirs(boxes, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(len(jobs) or 1) as pool:
        failures = [w for w in pool.map(
            lambda j: run_job(common, j, boxes), jobs) if w]
    if own:
        shutil.rmtree(boxes, ignore_errors=True)
    for why in failures:
        sys.stderr.write("box.py: %s\n" % why)
    if failures:
        return 1
    for job in jobs:
        for path in job["outputs"]:
            if fault == "truncate":
                with open(path, "r+b") as f:
                    f.truncate(os.path.getsize(path) // 2)
            elif fault == "garbage":
                with open(path, "wb") as f:
                    f.write(b"\x7fELF not really" * 10)
            elif fault == "wrongkind":
                shutil.copyfile(job["inputs"][0], path)
            elif fault == "badptx":
                march = [a for a in job["args"] if a.startswith("-march=")]
                with open(path, "w") as f:
                    f.write("//\n.version 7.8\n.target %s\n"
                            ".address_size 64\n\nbogus;\n"
                            % (march[0][len("-march="):] if march else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

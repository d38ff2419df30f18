#!/usr/bin/env python3
"""Runs every command of the Markdown docs, so that the docs cannot rot.

Usage: run-doc-commands.py --prefix DIR --source-root DIR [--feature F]...
                           [--jobs N] [--keep DIR] DOC.md...

Each document runs in a fresh directory of its own, its fenced blocks in
order. The info string after the opening fence says what a block is:

  ```sh                      commands: run with `bash -eo pipefail`; the block
                             fails the document when it exits non-zero
  ```sh expect-fail          commands that must exit non-zero (error examples)
  ```sh requires=cuda,...    run only where these features are available
  ```sh norun=test/x.test    not run here (it installs, packages or fuzzes);
                             the named test, which runs it, must exist
  ```<any> file=NAME         written to NAME before the following blocks run
  ```text expect             every line must appear in the output of the
                             block before it; "..." inside a line matches
                             anything (within that line)
  anything else              an illustration (output, JSON, a snippet)

Commands see PREFIX (a directory with the tools in bin/), SRC (the source
tree), PATH with $PREFIX/bin first and LLVM 22's tools after, and run in the
document's directory. Variables do not carry from one block to the next.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The output of a command block that did not run: its expect block is skipped.
SKIPPED = object()

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(.*)$")


class Block:
    def __init__(self, line, info, text):
        self.line = line
        words = info.split()
        self.lang = words[0] if words else ""
        self.flags = set()
        self.attrs = {}
        for w in words[1:]:
            if "=" in w:
                k, v = w.split("=", 1)
                self.attrs[k] = v
            else:
                self.flags.add(w)
        self.text = text


def parse_blocks(path):
    blocks = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3)
        start = i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line)
            i += 1
        if i == len(lines):
            raise SystemExit(f"{path}:{start}: unterminated code block")
        blocks.append(Block(start, info, "\n".join(body) + "\n"))
        i += 1
    return blocks


def expect_matches(expected, output):
    out_lines = output.split("\n")
    missing = []
    for want in expected.strip("\n").split("\n"):
        if not want.strip():
            continue
        parts = [p for p in want.strip().split("...")]
        pattern = ".*".join(re.escape(p) for p in parts)
        if not any(re.search(pattern, o) for o in out_lines):
            missing.append(want)
    return missing


def run_doc(doc, args):
    name = os.path.relpath(doc, args.source_root)
    blocks = parse_blocks(doc)
    work = tempfile.mkdtemp(prefix="doc-", dir=args.keep)
    log = [f"== {name} (in {work})"]
    env = dict(os.environ)
    env["PREFIX"] = args.prefix
    env["SRC"] = args.source_root
    env["PATH"] = os.pathsep.join(
        [os.path.join(args.prefix, "bin"), args.llvm_bin, env.get("PATH", "")])
    ok = True
    ran = skipped = 0
    last_output = None
    for b in blocks:
        where = f"{name}:{b.line}"
        if "file" in b.attrs:
            dest = os.path.join(work, b.attrs["file"])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w", encoding="utf-8") as f:
                f.write(b.text)
            continue
        if b.lang == "text" and "expect" in b.flags:
            if last_output is SKIPPED:
                continue
            if last_output is None:
                log.append(f"{where}: 'expect' block follows no command")
                ok = False
                continue
            missing = expect_matches(b.text, last_output)
            if missing:
                ok = False
                log.append(f"{where}: output lacks: " + " | ".join(missing))
                log.append(last_output)
            continue
        if b.lang not in ("sh", "bash"):
            continue
        last_output = SKIPPED
        if "norun" in b.attrs:
            cover = os.path.join(args.source_root, b.attrs["norun"])
            if not os.path.exists(cover):
                log.append(f"{where}: norun names {b.attrs['norun']}, "
                           "which does not exist")
                ok = False
            continue
        needs = [f for f in b.attrs.get("requires", "").split(",") if f]
        if any(f not in args.feature for f in needs):
            skipped += 1
            log.append(f"{where}: skipped (needs {','.join(needs)})")
            continue
        ran += 1
        p = subprocess.run(["bash", "-eo", "pipefail", "-c", b.text],
                           cwd=work, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           errors="replace")
        last_output = p.stdout
        failed = p.returncode != 0
        if failed != ("expect-fail" in b.flags):
            ok = False
            log.append(f"{where}: exit {p.returncode}"
                       + (" (expected a failure)" if not failed else ""))
            log.append(b.text.rstrip())
            log.append(p.stdout.rstrip())
    log.append(f"{name}: {ran} blocks run, {skipped} skipped: "
               + ("ok" if ok else "FAILED"))
    if ok and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return ok, "\n".join(log)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--llvm-bin", default="/usr/lib/llvm-22/bin")
    ap.add_argument("--feature", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", help="work under this directory and keep it")
    ap.add_argument("docs", nargs="+")
    args = ap.parse_args()
    args.prefix = os.path.abspath(args.prefix)
    args.source_root = os.path.abspath(args.source_root)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda d: run_doc(d, args), args.docs))
    for _, log in results:
        print(log)
    failed = sum(1 for ok, _ in results if not ok)
    print(f"{len(results)} documents, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

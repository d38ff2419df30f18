#!/usr/bin/env python3
"""Runs every command of the Markdown docs, so that the docs cannot rot.

Usage: run-doc-commands.py --prefix DIR --source-root DIR [--feature F]...
                           [--jobs N] [--keep DIR] DOC.md...

Each document runs as a reader would run it: in a fresh directory of its
own, its blocks pasted in order into one shell session, so that `cd` and
variables carry from one block to the next. The info string after the
opening fence says what a block is:

  ```sh                      commands: the block fails the document when
                             any command in it fails (as `bash -e` would
                             stop: an ERR trap counts them; pipefail is on)
  ```sh expect-fail          an error example: its last command must fail,
                             and only that one (a failed `cd` before it
                             would leave the example proving nothing)
  ```sh requires=cuda,...    run only where these features are available
  ```sh norun=test/x.test    not run here (it installs, packages or fuzzes);
                             the named test, which runs it, must exist
  ```<any> file=NAME         written to NAME, in the session's directory,
                             before the following blocks run; the text
                             before the block must name it (`NAME`), as a
                             reader sees no info string
  ```text expect             every line must appear in the output of the
                             block before it; "..." inside a line matches
                             anything (within that line)
  anything else              an illustration (output, JSON, a snippet)

Commands see PREFIX (a directory with the tools in bin/), SRC (the source
tree), PATH with $PREFIX/bin first and LLVM 22's tools after.
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading

# The output of a command block that did not run: its expect block is skipped.
SKIPPED = object()

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(.*)$")


# The most a document's session may take.
DOC_TIMEOUT = 1800


class Block:
    def __init__(self, line, info, text, before):
        self.line = line
        # The document's text since the previous block.
        self.before = before
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
    prose = []
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            prose.append(lines[i])
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
        blocks.append(Block(start, info, "\n".join(body) + "\n",
                            "\n".join(prose)))
        prose = []
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


class Session:
    """One bash session for a document: blocks are sourced into it in turn,
    each block's output captured to a file of its own."""

    def __init__(self, work, env):
        self.work = work
        self.ctl = os.path.join(work, ".doc-session")
        os.makedirs(self.ctl)
        self.pwd = work
        self.count = 0
        self.proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=work, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, errors="replace")
        # A session that outlives its time is killed: the block waiting on
        # it then reads the end of its output.
        self.watchdog = threading.Timer(DOC_TIMEOUT, self.proc.kill)
        self.watchdog.start()
        # A failed command counts, as `bash -e` would stop at it; the
        # trap reaches into functions and subshells (-E).
        self.send("set -E -o pipefail\n"
                  "trap '__doc_failed=$((__doc_failed+1))' ERR\n")

    def send(self, text):
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def run(self, text):
        """Runs a block in the session: ((failed commands, exit status),
        output); (None, output) if the session ended or timed out."""
        self.count += 1
        script = os.path.join(self.ctl, f"{self.count}.sh")
        out = os.path.join(self.ctl, f"{self.count}.out")
        with open(script, "w", encoding="utf-8") as f:
            f.write(text)
        marker = f"__doc_block_done_{self.count}"
        self.send(f"__doc_failed=0; source {shlex.quote(script)} </dev/null "
                  f">{shlex.quote(out)} 2>&1; "
                  f"__doc_status=$?; "
                  f"echo \"{marker} $__doc_failed $__doc_status $PWD\"\n")
        done = None
        while done is None:
            line = self.proc.stdout.readline()
            if not line:
                break
            if line.startswith(marker + " "):
                done = line[len(marker) + 1:].rstrip("\n")
        output = ""
        if os.path.exists(out):
            with open(out, encoding="utf-8", errors="replace") as f:
                output = f.read()
        if done is None:
            return None, output
        failed, status, pwd = done.split(" ", 2)
        self.pwd = pwd
        return (int(failed), int(status)), output

    def close(self):
        self.watchdog.cancel()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def names_file(before, name):
    """True if the prose before a file= block shows its name."""
    return f"`{name}`" in before or f"`{os.path.basename(name)}`" in before


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
    session = Session(work, env)
    try:
        for b in blocks:
            where = f"{name}:{b.line}"
            if "file" in b.attrs:
                if not names_file(b.before, b.attrs["file"]):
                    log.append(f"{where}: the text before the block does not "
                               f"name its file `{b.attrs['file']}`")
                    ok = False
                dest = os.path.join(session.pwd, b.attrs["file"])
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
            result, output = session.run(b.text)
            last_output = output
            if result is None:
                ok = False
                log.append(f"{where}: the session ended or timed out here")
                log.append(b.text.rstrip())
                log.append(output.rstrip())
                break
            failures, status = result
            # `source` returning non-zero fired the trap once more.
            if status != 0:
                failures -= 1
            if "expect-fail" in b.flags:
                # The last command fails, and no command before it did.
                good = failures == 1 and status != 0
                why = " (expected its last command, and only that, to fail)"
            else:
                good = failures == 0 and status == 0
                why = ""
            if not good:
                ok = False
                log.append(f"{where}: {failures} command(s) failed, exit "
                           f"{status}{why}")
                log.append(b.text.rstrip())
                log.append(output.rstrip())
    finally:
        session.close()
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

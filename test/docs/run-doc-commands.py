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
  ```sh modifies=A,B         the block changes the files A and B, which
                             existed before it, on purpose (see below)
  ```<any> file=NAME         written to NAME, in the session's directory,
                             before the following blocks run; the text
                             before the block must name it (`NAME`), as a
                             reader sees no info string
  ```text expect             the output of the command block before it:
                             its lines must appear in that output in this
                             order (other lines may come between them);
                             "..." inside a line matches anything (within
                             that line)
  ```text expect unordered   the same, in any order (the commands' output
                             comes in an order that varies)
  ```<any> illustration      shown, not checked: not the output of the
                             commands above it (a file's shape, a sketch)
  ```<any> nondeterministic=WHAT
                             output of the commands above, not checked:
                             WHAT says what varies (timings, a machine's
                             paths)
  anything else              an illustration (a snippet, a configuration,
                             commands for another machine)

Two checks keep what the docs show honest:

* Output shown after commands is checked. A block that follows a command
  block (```sh, ```bash) with nothing but blank lines between them, or
  follows such an output block in the same way, is output a reader takes
  for that of the commands: it must be `expect`, `illustration` or
  `nondeterministic=`, or the document fails.
* Commands do not change their inputs. A block runs one top-level command
  at a time (a pipeline, a loop, a command and its here-document: the
  smallest run of whole lines that bash reads as complete). Before each,
  the size, modification time and inode of every file in the session's
  directory are recorded, and the hash of each file the command names;
  after it, a file that existed before it, still exists and has changed,
  and that the command names other than as an output, fails the document,
  unless the block declares it with `modifies=`. A command names a file
  by its last path components, as a word or a part of one between `=`,
  `,`, quotes, parentheses or redirections; as an output after `-o`,
  `--output`/`-output`, `--output=`/`-output=`, `>`, `>>`, `2>`, `&>`. So
  `llvm-objcopy --dump-section=S=out lib.so`, which rewrites lib.so for
  want of an output file (give it /dev/null), fails, also when an earlier
  command of the block made lib.so; `llvm-ar rcs` onto an archive that
  exists, `sed -i` or `dd conv=notrunc` must say `modifies=`; a link
  written over its own `-o` output needs nothing. Every name modifies=
  gives must be changed by some command of the block.

Commands see PREFIX (a directory with the tools in bin/), SRC (the source
tree), PATH with $PREFIX/bin first and LLVM 22's tools after. Anything a
document leaves running is killed with its session.
"""

import argparse
import concurrent.futures
import hashlib
import os
import re
import shlex
import shutil
import signal
import stat
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


def expect_matches(expected, output, ordered=True):
    """The lines of \p expected that \p output lacks: each must match a line
    of the output after the one the line before it matched (anywhere, when
    not \p ordered); a line found only earlier is said to be out of order."""
    out_lines = output.split("\n")
    missing = []
    pos = 0
    for want in expected.strip("\n").split("\n"):
        if not want.strip():
            continue
        parts = want.strip().split("...")
        pattern = re.compile(".*".join(re.escape(p) for p in parts))
        found = [i for i, o in enumerate(out_lines) if pattern.search(o)]
        if not ordered:
            if not found:
                missing.append(want)
            continue
        later = [i for i in found if i >= pos]
        if later:
            pos = later[0] + 1
        elif found:
            missing.append(want + "  (out of order: it comes before the "
                           "line above)")
        else:
            missing.append(want)
    return missing


# Words after which, or attached to which, a command names its output.
OUTPUT_OPTIONS = ("-o", "--output", "-output")
REDIRECT = re.compile(r"^(?:[0-9]*|&)>>?(.*)$")
ATTACHED_OUTPUT = re.compile(r"^--?output=(.+)$")
# What separates the names within a word: `-input=a.o`, `--image=file=x,...`,
# `lib.a(m.o)`, `<(objcopy ... lib.so)`, quotes.
NAME_SEPARATORS = re.compile(r"[=,;|&<>()'\"`]+")


def path_parts(name):
    """The components of a name as a command gives it, without $PWD or
    leading ./ and ../ (a name is matched by its last components)."""
    name = name.strip("'\"")
    for var in ("$PWD/", "${PWD}/"):
        if name.startswith(var):
            name = name[len(var):]
    parts = [p for p in name.split("/") if p]
    while parts and parts[0] in (".", ".."):
        parts.pop(0)
    return tuple(parts)


def named_paths(text):
    """(inputs, outputs): the names a block's commands give, as path
    components; outputs are those given as outputs (-o NAME, --output=NAME,
    > NAME, 2> NAME, >> NAME), inputs all others."""
    inputs, outputs = set(), set()
    next_is_output = False
    for word in text.split():
        if next_is_output:
            next_is_output = False
            outputs.add(path_parts(word))
            continue
        if word in OUTPUT_OPTIONS:
            next_is_output = True
            continue
        m = REDIRECT.match(word)
        if m:
            if m.group(1):
                if not m.group(1).startswith("&"):
                    outputs.add(path_parts(m.group(1)))
            else:
                next_is_output = True
            continue
        m = ATTACHED_OUTPUT.match(word)
        if m:
            outputs.add(path_parts(m.group(1)))
            continue
        for piece in NAME_SEPARATORS.split(word):
            if piece and not piece.startswith("-"):
                inputs.add(path_parts(piece))
    inputs.discard(())
    outputs.discard(())
    return inputs, outputs


def names(parts_set, relpath):
    """True if one of \p parts_set names the file \p relpath (its last
    components)."""
    components = tuple(relpath.split(os.sep))
    return any(p and components[-len(p):] == p for p in parts_set)


def snapshot(work):
    """Size, modification time and inode of every regular file under
    \p work, by path relative to it (the session's own files left out)."""
    files = {}
    for root, dirs, filenames in os.walk(work):
        if root == work:
            dirs[:] = [d for d in dirs if d != ".doc-session"]
        for n in filenames:
            path = os.path.join(root, n)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                files[os.path.relpath(path, work)] = (
                    st.st_size, st.st_mtime_ns, st.st_ino)
    return files


def file_hash(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def split_commands(text):
    """The block \p text cut into its top-level commands, each a piece of
    whole lines that bash reads as complete (a pipeline, a loop, a command
    with its here-document); comments and blank lines go with the command
    after them."""
    lines = text.rstrip("\n").split("\n")
    units, piece = [], []
    for line in lines:
        piece.append(line)
        if line.endswith("\\"):
            continue
        body = "\n".join(piece) + "\n"
        if not any(l.strip() and not l.strip().startswith("#")
                   for l in piece):
            continue
        check = subprocess.run(["bash", "-n"], input=body, text=True,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
        if check.returncode == 0 and not check.stderr:
            units.append(body)
            piece = []
    if piece:
        if units and not any(l.strip() and not l.strip().startswith("#")
                             for l in piece):
            units[-1] += "\n".join(piece) + "\n"
        else:
            units.append("\n".join(piece) + "\n")
    return units


class InputGuard:
    """Finds the commands that rewrite their inputs: a file that exists
    before a command, is named by it other than as an output and has
    changed after it. The files the block's modifies= names may change;
    each must."""

    def __init__(self, work, block):
        self.work = work
        self.declared = {path_parts(n) for n in
                         block.attrs.get("modifies", "").split(",") if n}
        self.changed_declared = set()
        self.before = snapshot(work)
        self.watched = {}

    def start(self, command):
        """Before \p command runs: hashes the files it names."""
        inputs, _ = named_paths(command)
        self.watched = {rel: file_hash(os.path.join(self.work, rel))
                        for rel in self.before if names(inputs, rel)}

    def changed(self):
        """After the command: the watched files it changed, but those the
        block declares."""
        after = snapshot(self.work)
        changed = []
        for rel, digest in sorted(self.watched.items()):
            if rel not in after or (
                    after[rel] == self.before[rel] and
                    file_hash(os.path.join(self.work, rel)) == digest):
                continue
            declared = {d for d in self.declared if names({d}, rel)}
            if declared:
                self.changed_declared |= declared
            else:
                changed.append(rel)
        self.before = after
        return changed

    def unchanged_declared(self):
        """What modifies= names that no command changed."""
        return sorted("/".join(d) for d in
                      self.declared - self.changed_declared)


class Session:
    """One bash session for a document: blocks are sourced into it in turn,
    each block's output captured to a file of its own."""

    def __init__(self, work, env):
        self.work = work
        self.ctl = os.path.join(work, ".doc-session")
        os.makedirs(self.ctl)
        self.pwd = work
        self.count = 0
        # In a process group of its own: what the document starts in the
        # background (a server) goes with the session.
        self.proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=work, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, errors="replace",
            start_new_session=True)
        # A session that outlives its time is killed: the block waiting on
        # it then reads the end of its output.
        self.watchdog = threading.Timer(DOC_TIMEOUT, self.kill)
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

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self):
        self.watchdog.cancel()
        self.kill()
        self.proc.wait()


def names_file(before, name):
    """True if the prose before a file= block shows its name."""
    return f"`{name}`" in before or f"`{os.path.basename(name)}`" in before


def output_marking(b):
    """What is wrong with the marking of \p b, a block a reader takes for
    the output of the commands above it; None if nothing."""
    if ("expect" in b.flags or "illustration" in b.flags or
            "nondeterministic" in b.attrs):
        return None
    return ("a block right after commands, which a reader takes for their "
            "output, is not checked: mark it ```text expect (\"...\" for "
            "what varies), or say why it cannot be (illustration, "
            "nondeterministic=<what varies>)")


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
    # True while the blocks since the last command block follow it with
    # nothing but blank lines between: a reader takes them for its output.
    after_commands = False
    session = Session(work, env)
    try:
        for b in blocks:
            where = f"{name}:{b.line}"
            is_commands = b.lang in ("sh", "bash") and "file" not in b.attrs
            if b.attrs.get("nondeterministic") == "":
                ok = False
                log.append(f"{where}: nondeterministic= says nothing of what "
                           "varies")
            if not is_commands and (b.before.strip() or "file" in b.attrs):
                after_commands = False
            if not is_commands and after_commands:
                problem = output_marking(b)
                if problem:
                    ok = False
                    log.append(f"{where}: {problem}")
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
            if "expect" in b.flags:
                if b.lang != "text":
                    log.append(f"{where}: an 'expect' block is ```text")
                    ok = False
                    continue
                if last_output is SKIPPED:
                    continue
                if last_output is None:
                    log.append(f"{where}: 'expect' block follows no command")
                    ok = False
                    continue
                missing = expect_matches(b.text, last_output,
                                         ordered="unordered" not in b.flags)
                if missing:
                    ok = False
                    log.append(f"{where}: output lacks: " + " | ".join(missing))
                    log.append(last_output)
                continue
            if not is_commands:
                continue
            after_commands = True
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
            guard = InputGuard(work, b)
            # The block runs command by command, each checked for what it
            # changed; failures add up as in one run.
            failures = status = 0
            output = ""
            result = None
            for command in split_commands(b.text):
                guard.start(command)
                result, out = session.run(command)
                output += out
                if result is None:
                    break
                for rel in guard.changed():
                    ok = False
                    first = command.strip().split("\n")[0]
                    log.append(f"{where}: `{first}` changed `{rel}`, which "
                               "existed before it and which it names other "
                               "than as an output (-o, >): a command rewrote "
                               "its input; if that is meant, say "
                               f"modifies={os.path.basename(rel)}")
                # `source` returning non-zero fired the trap once more.
                failures += result[0] - (result[1] != 0)
                status = result[1]
            last_output = output
            if result is not None:
                for d in guard.unchanged_declared():
                    ok = False
                    log.append(f"{where}: modifies= names `{d}`, which no "
                               "command of the block changed (as an input)")
            if result is None:
                ok = False
                log.append(f"{where}: the session ended or timed out here")
                log.append(b.text.rstrip())
                log.append(output.rstrip())
                break
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

#!/usr/bin/env python3
"""Makes a man page (roff, man macros, tables for tbl) from a tool's
reference page in docs/, so that the page and the man page have one source.

  md2man.py --version V docs/<tool>.md -o <tool>.1

The page must begin with `# <tool>` and a `<!-- man: <summary> -->` line;
text up to the first `##` heading is the DESCRIPTION, each `##` heading a
section (`###` a subsection). Handles what our pages use: paragraphs,
fenced code, bullet and numbered lists, pipe tables, inline code, bold,
italics and links. Output depends only on the input and the version.
"""

import argparse
import os
import re
import sys

SUMMARY = re.compile(r"^<!--\s*man:\s*(.*?)\s*-->$")


def escape(text):
    """Escapes roff's specials in running text."""
    text = text.replace("\\", "\\e")
    text = text.replace("-", "\\-")
    # Anything past ASCII as groff's Unicode escape (\[u2014] for an em dash).
    return "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c)
                   for c in text)


def inline(text):
    """Markdown inline markup to roff fonts."""
    out = []
    pos = 0
    for m in re.finditer(r"`([^`]+)`|\*\*(.+?)\*\*|(?<![\w*])\*([^*\s][^*]*)\*"
                         r"|\[([^\]]+)\]\(([^)]+)\)", text):
        out.append(escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + escape(m.group(1)) + "\\fR")
        elif m.group(2) is not None:
            out.append("\\fB" + inline(m.group(2)) + "\\fR")
        elif m.group(3) is not None:
            out.append("\\fI" + inline(m.group(3)) + "\\fR")
        else:
            label, target = m.group(4), m.group(5)
            out.append(inline(label))
            if re.match(r"https?://", target):
                out.append(" <" + escape(target) + ">")
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def line_out(text):
    """A text line that cannot be taken for a request."""
    if text.startswith((".", "'")):
        return "\\&" + text
    return text


def convert(lines, version, source):
    title = lines[0]
    if not title.startswith("# "):
        sys.exit(f"{source}:1: the page must start with '# <tool>'")
    name = title[2:].strip()
    summary = None
    out = ["'\\\" t", f".\\\" Generated from {source} by scripts/md2man.py;"
           " do not edit.",
           f'.TH "{name.upper()}" "1" "" "lld-offload {version}"'
           ' "lld-offload manual"']
    body = []
    for i, l in enumerate(lines[1:], 2):
        m = SUMMARY.match(l.strip())
        if m and summary is None:
            summary = m.group(1)
            continue
        body.append((i, l))
    if summary is None:
        sys.exit(f"{source}: no '<!-- man: <summary> -->' line")
    out += [".SH NAME", f"{escape(name)} \\- {inline(summary)}",
            ".SH DESCRIPTION"]

    para = []

    def flush():
        if para:
            out.extend([".PP", line_out(inline(" ".join(para)))])
            para.clear()

    i = 0
    in_comment = False
    while i < len(body):
        n, l = body[i]
        s = l.strip()
        if in_comment:
            in_comment = "-->" not in s
            i += 1
            continue
        if s.startswith("<!--"):
            in_comment = "-->" not in s
            i += 1
            continue
        if s.startswith("```") or s.startswith("~~~"):
            flush()
            fence = re.match(r"(`{3,}|~{3,})", s).group(1)
            i += 1
            code = []
            while i < len(body) and not body[i][1].strip().startswith(fence):
                code.append(body[i][1])
                i += 1
            if i == len(body):
                sys.exit(f"{source}:{n}: unterminated code block")
            indent = len(l) - len(l.lstrip())
            out += [".PP", ".RS 4", ".nf", ".ft CR"]
            out += [line_out(escape(c[indent:] if c[:indent].isspace() else c))
                    for c in code]
            out += [".ft R", ".fi", ".RE"]
            i += 1
            continue
        heading = re.match(r"^(#{2,6})\s+(.*)$", s)
        if heading:
            flush()
            text = heading.group(2)
            if len(heading.group(1)) == 2:
                out.append(".SH " + escape(text.upper()))
            else:
                out.append(".SS " + inline(text))
            i += 1
            continue
        if s.startswith("|"):
            flush()
            rows = []
            while i < len(body) and body[i][1].strip().startswith("|"):
                cells = re.split(r"(?<!\\)\|", body[i][1].strip().strip("|"))
                cells = [c.strip().replace("\\|", "|") for c in cells]
                if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                    rows.append(cells)
                i += 1
            cols = max(len(r) for r in rows)
            out += [".PP", ".TS", "allbox tab(\t);",
                    " ".join(["lb"] * cols),
                    " ".join(["lx" if c == cols - 1 else "l"
                              for c in range(cols)]) + "."]
            for r in rows:
                r = r + [""] * (cols - len(r))
                cells = ["T{\n" + line_out(inline(c)) + "\nT}" for c in r]
                out.append("\t".join(cells))
            out.append(".TE")
            continue
        item = re.match(r"^(\s*)([*+-]|\d+\.)\s+(.*)$", l)
        if item:
            flush()
            depth = len(item.group(1))
            mark = item.group(2)
            text = [item.group(3).strip()]
            i += 1
            while i < len(body):
                nl = body[i][1]
                if not nl.strip() or re.match(r"^\s*([*+-]|\d+\.)\s+", nl) \
                        or nl.strip().startswith(("```", "~~~", "|", "#")):
                    break
                text.append(nl.strip())
                i += 1
            tag = "\\(bu" if mark in "*+-" else mark
            width = 2 if tag == "\\(bu" else 4
            if depth:
                out.append(".RS 4")
            out.append(f".IP {tag} {width}")
            out.append(line_out(inline(" ".join(text))))
            if depth:
                out.append(".RE")
            continue
        if not s:
            flush()
            i += 1
            continue
        para.append(s)
        i += 1
    flush()
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("page")
    args = ap.parse_args()
    with open(args.page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    source = "docs/" + args.page.replace("\\", "/").rsplit("/", 1)[-1]
    text = convert(lines, args.version, source)
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.output)


if __name__ == "__main__":
    main()

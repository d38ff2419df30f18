#!/usr/bin/env python3
"""Checks the reference page's option table against ld.lld-offload's.

Usage: check-option-table.py HELP DOC

HELP is what `ld.lld-offload --help` printed. Its OFFLOAD OPTIONS section
lists the options of lld-plugin/OffloadOptions.td that have a help text, one
a line, each as `--name` followed by the syntax of its value, if any
(`--offload-jobs=<n>|jobserver`).

DOC is docs/ld.lld-offload.md. The table of its "## Options" section names
options in backquotes in its first column, several in a row at times, with
`|` written `\\|`; those that start with --offload- or --no-offload are ours
(the others, such as --time-trace, are LLD's).

Both must name the same options, and spell each the same way. Whatever
differs is printed, one line each, and the exit status is 1.
"""

import re
import sys


def help_options(path):
    """The options of the OFFLOAD OPTIONS section, as --help spells them."""
    options = []
    in_section = False
    with open(path) as f:
        for line in f:
            if line.startswith("OFFLOAD OPTIONS"):
                in_section = True
            elif in_section:
                if not line.strip():
                    break
                options.append(line.split()[0])
    return options


def doc_options(path):
    """Our options in the first column of the "## Options" section's table."""
    options = []
    in_section = False
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                in_section = line.strip() == "## Options"
                continue
            if not in_section or not line.startswith("|"):
                continue
            cells = re.split(r"(?<!\\)\|", line)
            for name in re.findall(r"`([^`]+)`", cells[1]):
                name = name.replace("\\|", "|")
                if name.startswith(("--offload-", "--no-offload")):
                    options.append(name)
    return options


def name_of(spelling):
    """--offload-jobs=<n>|jobserver -> --offload-jobs."""
    return re.match(r"--[a-z0-9-]+", spelling).group(0)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    help_path, doc_path = sys.argv[1:]
    table = {name_of(o): o for o in help_options(help_path)}
    doc = {name_of(o): o for o in doc_options(doc_path)}
    if not table:
        sys.exit(f"{help_path}: no OFFLOAD OPTIONS section")
    if not doc:
        sys.exit(f"{doc_path}: no options in the table of '## Options'")

    problems = []
    for name in sorted(table.keys() | doc.keys()):
        if name not in doc:
            problems.append(f"{table[name]}: in the option table (--help) "
                            f"but not in {doc_path}")
        elif name not in table:
            problems.append(f"{doc[name]}: in {doc_path} but not in the "
                            f"option table (--help)")
        elif table[name] != doc[name]:
            problems.append(f"{name}: --help spells it {table[name]}, "
                            f"{doc_path} {doc[name]}")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(table)} options, documented as --help lists them")
    return 0


if __name__ == "__main__":
    sys.exit(main())

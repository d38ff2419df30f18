#!/usr/bin/env python3
"""Prints the structure of a registration module read from textual IR: its
globals (linkage words, section, alignment), constructor priorities,
declarations, and for each defined function its section and the functions it
calls in order. Sorted, so that two modules built in a different order
compare equal when their structure is the same."""
import re
import sys

text = sys.stdin.read()
globals_, decls, funcs = [], [], {}
current = None
for line in text.splitlines():
    m = re.match(r'^(@[\w.$]+) = ([\w ]+?) (?:global|constant) ', line)
    if m:
        name, words = m.group(1), m.group(2)
        section = re.search(r', section "([^"]*)"', line)
        align = re.search(r', align (\d+)', line)
        globals_.append("global %s [%s] section=%s align=%s" % (
            name, words, section.group(1) if section else "-",
            align.group(1) if align else "-"))
        if name == "@llvm.global_ctors":
            for prio, fn in re.findall(r'\{ i32 (\d+), ptr (@[\w.$]+)', line):
                globals_.append("ctor %s priority=%s" % (fn, prio))
        continue
    m = re.match(r'^declare (?:(extern_weak) )?\S+ (@[\w.$]+)\(', line)
    if m:
        decls.append("declare %s%s" % (m.group(2),
                                       " extern_weak" if m.group(1) else ""))
        continue
    m = re.match(r'^define (\w+) \S+ (@[\w.$]+)\(', line)
    if m:
        section = re.search(r' section "([^"]*)"', line)
        current = "define %s %s section=%s" % (
            m.group(2), m.group(1), section.group(1) if section else "-")
        funcs[current] = []
        continue
    if line.startswith("}"):
        current = None
        continue
    if current:
        for callee in re.findall(r'call \S+ (@[\w.$]+)\(', line):
            funcs[current].append("  call " + callee)

for line in sorted(globals_) + sorted(decls):
    print(line)
for name in sorted(funcs):
    print(name)
    for call in funcs[name]:
        print(call)

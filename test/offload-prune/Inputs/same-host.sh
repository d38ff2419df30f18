#!/bin/sh
# same-host.sh A B: the objects A and B have the same host code, symbols and
# relocations (section offsets and sizes aside), as llvm-readelf and
# llvm-objdump print them.
set -e
for f in "$1" "$2"; do
  llvm-readelf --symbols --relocations "$f" | grep -v '^Relocation section' > "$f.syms"
  llvm-objdump -d --no-show-raw-insn "$f" | tail -n +3 > "$f.dis"
done
diff "$1.syms" "$2.syms"
diff "$1.dis" "$2.dis"

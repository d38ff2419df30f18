#!/bin/sh
# Usage: sh compare-cuda.sh OFFLOAD-INSPECT OURS THEIRS
#
# Compares two links of one CUDA program, OURS by ld.lld-offload and THEIRS by
# clang's pipeline, with cuda-runtime-stub.c as the runtime:
#  1. Both run, and register the same (sorted).
#  2. Their fat binaries hold the same entries (offload-inspect), and each
#     cubin is the same but for .note.nv.tkinfo, where nvlink writes its own
#     command line (cmp-except-section.py).
# Prints one line per fact checked; stops at the first difference with a
# non-zero exit code.
set -eu
inspect=$1
ours=$2
theirs=$3
here=$(dirname "$0")
fail() {
  echo "compare-cuda.sh: $*" >&2
  exit 1
}
for p in "$ours" "$theirs"; do
  "$(dirname "$p")/$(basename "$p")" | sort > "$p.log" || fail "$p exited with $?"
  rm -rf "$p.images"
  "$inspect" "$p" --extract="$p.images" > /dev/null
  (cd "$p.images" && ls) > "$p.entries"
done
diff "$theirs.log" "$ours.log" >&2 || fail "the registrations differ (< $theirs, > $ours)"
echo "same registrations: $(grep -c . "$ours.log") lines"
diff "$theirs.entries" "$ours.entries" >&2 || fail "the entries differ (< $theirs, > $ours)"
for entry in $(cat "$ours.entries"); do
  python3 "$here/cmp-except-section.py" "$theirs.images/$entry" \
    "$ours.images/$entry" .note.nv.tkinfo > /dev/null ||
    fail "the cubins $entry differ"
  echo "same cubin but .note.nv.tkinfo: $entry"
done

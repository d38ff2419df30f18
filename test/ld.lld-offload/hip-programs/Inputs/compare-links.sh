#!/bin/sh
# Usage: sh compare-links.sh OURS THEIRS [--code-objects-only]
#
# Compares two links of one HIP program: OURS by ld.lld-offload, THEIRS by
# clang's pipeline (clang --hip-link), with hip-runtime-log.c as the runtime.
#  1. Both run. What each registers and launches, sorted, is the same; their
#     outputs stay in OURS.log and THEIRS.log for the test to check.
#  2. Their .hip_fatbin sections hold the same bundle entries (sorted), and
#     every device entry's code object is the same, byte for byte (unbundled,
#     so a compressed bundle is compared inflated).
#  3. The .hip_fatbin sections are the same, byte for byte (the entries'
#     order, padding and, when compressed, the compressed bytes); not with
#     --code-objects-only.
# Prints one line per fact checked, for FileCheck; stops at the first
# difference with a non-zero exit code.
set -eu
ours=$1
theirs=$2
whole=yes
if [ "${3-}" = --code-objects-only ]; then whole=no; fi
fail() {
  echo "compare-links.sh: $*" >&2
  exit 1
}

"$(dirname "$ours")/$(basename "$ours")" > "$ours.log" || fail "$ours exited with $?"
"$(dirname "$theirs")/$(basename "$theirs")" > "$theirs.log" || fail "$theirs exited with $?"
sort "$ours.log" > "$ours.log.sorted"
sort "$theirs.log" > "$theirs.log.sorted"
diff "$theirs.log.sorted" "$ours.log.sorted" >&2 ||
  fail "the programs' registrations and launches differ (< $theirs, > $ours)"
echo "same registrations and launches: $(grep -c . "$ours.log") lines"

for p in "$ours" "$theirs"; do
  llvm-objcopy --dump-section=.hip_fatbin="$p.hipfb" "$p" /dev/null ||
    fail "$p has no .hip_fatbin"
  clang-offload-bundler -type=o -list -input="$p.hipfb" | sort > "$p.entries"
done
diff "$theirs.entries" "$ours.entries" >&2 ||
  fail "the bundle entries differ (< $theirs, > $ours)"
for entry in $(cat "$ours.entries"); do
  case $entry in
  host-*) echo "same entry: $entry"; continue ;;
  esac
  for p in "$ours" "$theirs"; do
    clang-offload-bundler -type=o -unbundle -input="$p.hipfb" \
      -targets="$entry" -output="$p.$entry.co"
  done
  cmp "$theirs.$entry.co" "$ours.$entry.co" >&2 ||
    fail "the code objects for $entry differ"
  echo "same code object: $entry ($(wc -c < "$ours.$entry.co") bytes)"
done

[ $whole = yes ] || exit 0
cmp "$theirs.hipfb" "$ours.hipfb" >&2 || fail "the fat binaries differ"
echo "same fat binary: $(wc -c < "$ours.hipfb") bytes, starts with $(head -c 4 "$ours.hipfb")"

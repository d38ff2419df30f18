#!/bin/sh
# Usage: sh compare-logs.sh THEIRS OURS [--registrations-only]
#
# Runs two links of one program against the stand-in runtime
# (test/ld.lld-offload/Inputs/cudart-log.c, as ./libcudart.so), each with its
# output in PROGRAM.log, sorted in PROGRAM.sorted, and compares the sorted
# logs: the same registrations (fat binaries and their entries' hashes, the
# prelinked fat binaries, kernels, variables), launches and output. Prints one
# line; on a difference, the diff on stderr and a non-zero exit code.
# --registrations-only leaves the linked fat binaries' entry hashes out (for
# links whose cubins cannot be nvcc's: nvlink was given other inputs).
set -eu
theirs=$1
ours=$2
only=${3-}
for p in "$theirs" "$ours"; do
  "$(dirname "$p")/$(basename "$p")" > "$p.log" || {
    echo "compare-logs.sh: $p exited with $?" >&2
    exit 1
  }
  if [ "$only" = --registrations-only ]; then
    grep -Ev '^cudart: fatbin #[0-9]+ entry' "$p.log" | LC_ALL=C sort > "$p.sorted"
  else
    LC_ALL=C sort "$p.log" > "$p.sorted"
  fi
done
grep -q '^cudart: register fatbin' "$theirs.log" || {
  echo "compare-logs.sh: $theirs registered no fat binary (not the stand-in runtime?)" >&2
  exit 1
}
if ! diff "$theirs.sorted" "$ours.sorted" >&2; then
  echo "compare-logs.sh: the logs differ (< $theirs, > $ours)" >&2
  exit 1
fi
echo "same logs: $(grep -c . "$ours.log") lines"

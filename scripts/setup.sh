#!/usr/bin/env bash
# Sets up a Debian 12 machine (as root) for lld-offload, builds it, and then
#   setup.sh demo   runs the demo (the main job), or
#   setup.sh test   runs every test (lit tool/end-to-end tests and GoogleTest
#                   units) and prints "N passed, N failed".
# Idempotent: packages are installed only when missing, CMake configures only
# once, and ninja rebuilds only what changed.
set -euo pipefail

mode=${1:-demo}
case "$mode" in demo|test) ;; *) echo "usage: $0 demo|test" >&2; exit 2 ;; esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${LLD_OFFLOAD_BUILD_DIR:-$root/build}
llvm=/usr/lib/llvm-22

packages=(
  cmake ninja-build g++ make python3
  clang-22 clang-tools-22 lld-22 llvm-22 llvm-22-dev llvm-22-tools liblld-22-dev
  libomp-22-dev liboffload-22-dev libzstd-dev zlib1g-dev
  libgtest-dev libgmock-dev zstd
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -f "$build/build.ninja" ]]; then
  echo "== configuring $build"
  cmake -S "$root" -B "$build" -G Ninja >/dev/null
fi
echo "== building"
ninja -C "$build" | tail -n 1

if [[ "$mode" == demo ]]; then
  exec bash "$root/scripts/demo.sh" "$build"
fi

echo "== testing"
log="$build/test-results.txt"
set +e
"$llvm/bin/lit" -sv "$build/unittests" "$build/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(awk '/^ *(Passed|Expectedly Failed|Unsupported): /{n+=$2} END{print n+0}' "$log")
failed=$(awk '/^ *(Failed|Unexpectedly Passed|Timed Out|Unresolved): /{n+=$2} END{print n+0}' "$log")
echo "lit: $passed passed, $failed failed"
exit "$status"

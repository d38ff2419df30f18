#!/usr/bin/env bash
# Sets up a Debian 12 machine (as root) for lld-offload, builds it, and then
#   setup.sh demo   runs the demo (the main job), or
#   setup.sh test   runs every test (lit tool/end-to-end tests and GoogleTest
#                   units), then again on a sanitizer build (build-asan/,
#                   ASan+UBSan; LLD_OFFLOAD_SANITIZE_TESTS=0 skips it), and
#                   prints "N passed, N failed, N skipped" for each and both.
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
  libomp-22-dev liboffload-22-dev libzstd-dev zlib1g-dev liblz4-dev
  libgtest-dev libgmock-dev zstd libamd-comgr-dev libcurl4-openssl-dev nginx curl
  ccache spirv-tools
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

# Prints the sum of the results named by the regular expression $2 in lit's
# closing summary in log $1: "Total Discovered Tests: N", then a line per
# result ("  Passed     : 221 (97.79%)", the names padded when there are
# several). Only the last such summary is read: what -v prints of a failed
# test's output comes before it and may hold lines of the same shape.
lit_count() {
  awk -v re="^ *($2) *: " '/^Total Discovered Tests:/{s=1; n=0}
    s && $0 ~ re {sub(/^[^:]*: */, ""); n+=$1} END{print n+0}' "$1"
}

# Runs the lit suites of build directory $1, prints "lit ($2): N passed,
# N failed, N skipped", adds them to the totals; returns lit's status, or 1
# when it counted a failure that lit's status does not show.
run_suite() {
  local dir=$1 label=$2 log="$1/test-results.txt" status passed failed skipped
  set +e
  "$llvm/bin/lit" -sv "$dir/unittests" "$dir/test" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  # An expected failure (XFAIL) ran and gave the result its test states, so
  # it counts as passed, as lit counts it a success; only the tests that did
  # not run count as skipped: Unsupported (a REQUIRES or UNSUPPORTED line),
  # Skipped and Excluded (left out by --max-tests, --filter-out, ...).
  passed=$(lit_count "$log" 'Passed|Passed With Retry|Expectedly Failed')
  failed=$(lit_count "$log" 'Failed|Unexpectedly Passed|Timed Out|Unresolved')
  skipped=$(lit_count "$log" 'Unsupported|Skipped|Excluded')
  summary+=("lit ($label): $passed passed, $failed failed, $skipped skipped")
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + skipped))
  # An unexpected pass is a failure here, whatever status lit gives it.
  if ((status == 0 && failed > 0)); then status=1; fi
  return "$status"
}

summary=()
total_passed=0 total_failed=0 total_skipped=0
echo "== testing"
status=0
run_suite "$build" "$(basename "$build")" || status=1

# The same suites again on an ASan+UBSan build (docs/sanitizers.md), unless
# LLD_OFFLOAD_SANITIZE_TESTS=0.
if [[ "${LLD_OFFLOAD_SANITIZE_TESTS:-1}" != 0 ]]; then
  asan_build=${LLD_OFFLOAD_ASAN_BUILD_DIR:-$root/build-asan}
  # It also links the standalone tools with LLVM's static libraries
  # (LLD_OFFLOAD_STATIC_TOOLS), so that the suite covers both linkages.
  echo "== configuring $asan_build (sanitizers, static tools)"
  cmake -S "$root" -B "$asan_build" -G Ninja -DLLD_OFFLOAD_SANITIZE=ON \
    -DLLD_OFFLOAD_STATIC_TOOLS=ON >/dev/null
  echo "== building (sanitizers)"
  ninja -C "$asan_build" | tail -n 1
  echo "== testing (sanitizers)"
  run_suite "$asan_build" "$(basename "$asan_build"), ASan+UBSan" || status=1
fi

printf '%s\n' "${summary[@]}"
# The last line sums both runs.
echo "lit: $total_passed passed, $total_failed failed, $total_skipped skipped"
exit "$status"

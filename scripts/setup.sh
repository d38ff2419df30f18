#!/usr/bin/env bash
# Sets up a Debian 12 machine (as root) for lld-offload, builds it, and then
#   setup.sh demo   runs the demo (the main job), or
#   setup.sh test   runs every test (lit tool/end-to-end tests and GoogleTest
#                   units), then again on a sanitizer build (build-asan/,
#                   ASan+UBSan; LLD_OFFLOAD_SANITIZE_TESTS=0 skips it), and
#                   prints "N passed, N failed" for each and both.
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

# Runs the lit suites of build directory $1 and prints "lit ($2): N passed,
# N failed"; returns lit's status.
run_suite() {
  local dir=$1 label=$2 log="$1/test-results.txt" status passed failed
  set +e
  "$llvm/bin/lit" -sv "$dir/unittests" "$dir/test" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  # lit pads the names when it prints several ("Passed     : 221").
  passed=$(awk '/^ *(Passed|Expectedly Failed|Unsupported) *: /{sub(/^[^:]*: */, ""); n+=$1} END{print n+0}' "$log")
  failed=$(awk '/^ *(Failed|Unexpectedly Passed|Timed Out|Unresolved) *: /{sub(/^[^:]*: */, ""); n+=$1} END{print n+0}' "$log")
  summary+=("lit ($label): $passed passed, $failed failed")
  return "$status"
}

summary=()
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
awk -v s="${summary[*]}" 'BEGIN{n=split(s,w," "); for(i=1;i<=n;i++){if(w[i]=="passed,")p+=w[i-1]; if(w[i]=="failed"||w[i]=="failed,")f+=w[i-1]} print "lit: " p " passed, " f " failed"}'
exit "$status"

#!/usr/bin/env bash
# The demo: an OpenMP program offloaded to the host CPU, compiled by clang-22,
# linked by ld.lld-offload in one process (no clang-linker-wrapper), and run
# on LLVM's offload runtime; then the images it carries, as our tool and
# LLVM 22's llvm-objdump list them.
set -euo pipefail
build=${1:?usage: demo.sh BUILD_DIR}
bin=$build/bin
llvm=/usr/lib/llvm-22
work=$build/demo
rm -rf "$work" && mkdir -p "$work" && cd "$work"

cat > saxpy.c <<'C'
#include <omp.h>
#include <stdio.h>

int main(void) {
  enum { N = 1 << 20 };
  static float X[N], Y[N];
  for (int I = 0; I < N; ++I) {
    X[I] = I;
    Y[I] = 1;
  }
  int OnDevice = 0;
#pragma omp target teams distribute parallel for map(to : X) map(tofrom : Y) \
    map(tofrom : OnDevice)
  for (int I = 0; I < N; ++I) {
    Y[I] += 2.0f * X[I];
    if (I == 0)
      OnDevice = !omp_is_initial_device();
  }
  printf("y[1000] = %.0f, computed on the offload device: %s\n", Y[1000],
         OnDevice ? "yes" : "no");
  return 0;
}
C

echo "\$ clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c saxpy.c"
"$llvm/bin/clang" -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c saxpy.c
echo "\$ clang -fopenmp saxpy.o -fuse-ld=lld --ld-path=$bin/ld.lld-offload -o saxpy"
"$llvm/bin/clang" -fopenmp saxpy.o -fuse-ld=lld --ld-path="$bin/ld.lld-offload" \
  -o saxpy -Wl,--offload-verbose 2>&1 | grep -E 'device image|device link|ms$' |
  sed -E 's/(: ld\.lld) .*/\1 .../'
echo "\$ OMP_TARGET_OFFLOAD=MANDATORY ./saxpy"
OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH="$llvm/lib" ./saxpy
echo "\$ offload-packager --list saxpy.o saxpy"
"$bin/offload-packager" --list saxpy.o saxpy
echo "\$ llvm-objdump --offloading saxpy"
"$llvm/bin/llvm-objdump" --offloading saxpy | sed '/^$/d'

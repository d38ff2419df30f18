#!/usr/bin/env bash
# The demo: pack two device images into one offload binary, list it with our
# tool, and show that LLVM 22's llvm-objdump reads what we wrote.
set -euo pipefail
build=${1:?usage: demo.sh BUILD_DIR}
bin=$build/bin
llvm=/usr/lib/llvm-22/bin
work=$build/demo
rm -rf "$work" && mkdir -p "$work" && cd "$work"

echo 'int answer(void) { return 42; }' > answer.c
"$llvm/clang" --target=x86_64-pc-linux-gnu -O2 -c answer.c -o answer.o
"$llvm/clang" --target=nvptx64-nvidia-cuda -march=sm_70 -O2 -c -emit-llvm \
  answer.c -o answer.bc

echo "\$ offload-packager -o demo.bin --image=... --image=..."
"$bin/offload-packager" -o demo.bin \
  --image=file=answer.o,triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp \
  --image=file=answer.bc,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp
echo "\$ offload-packager --list demo.bin"
"$bin/offload-packager" --list demo.bin
echo "\$ llvm-objdump --offloading demo.bin"
"$llvm/llvm-objdump" --offloading demo.bin

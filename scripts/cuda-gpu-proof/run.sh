#!/bin/bash
# CUDA programs linked by ld.lld-offload, run on a real GPU (sm_90: H100/H200).
#
#   run.sh build DIR   here: compile, link and prune every variant into DIR
#   run.sh run DIR     on the GPU machine: run each, check the expected outcome
#
# The variants show that what the linker and offload-prune keep is what the
# CUDA runtime loads: a program keeping sm_90 code runs; one keeping only
# sm_80's cubin has no image for the GPU (cudaErrorNoKernelImageForDevice);
# one keeping sm_80's cubin with the newest PTX (--keep-ptx) runs by JIT and
# fails when the driver may not JIT (CUDA_DISABLE_PTX_JIT=1). No test depends
# on this script: a GPU is not on every machine.
set -eu
mode=$1 dir=$(realpath -m "$2")
src=$(cd "$(dirname "$0")" && pwd)
if [ "$mode" = build ]; then
  root=$(cd "$src/../.." && pwd)
  export PATH=/usr/lib/llvm-22/bin:$PATH
  bin=$root/build/bin cuda=${CUDA_PATH:-/usr/local/cuda}
  cc="clang++ -x cuda --cuda-path=$cuda -Wno-unknown-cuda-version -O2 --offload-arch=sm_80 --offload-arch=sm_90"
  link="clang++ -fuse-ld=lld --ld-path=$bin/ld.lld-offload -Wl,--offload-cuda-path=$cuda"
  libs="-L$cuda/lib64 -lcudart_static -lpthread -ldl -lrt"
  rm -rf "$dir" && mkdir -p "$dir/obj" && cd "$dir/obj"
  : > ../expected
  expect() { echo "$*" >> ../expected; }

  # Relocatable device code (new driver): the linker links the device code.
  $cc -DRDC --offload-new-driver -fgpu-rdc -c "$src/lib.cu" "$src/main.cu"
  rm -f libfat.a && llvm-ar rcs libfat.a lib.o
  $link main.o lib.o -o ../rdc-all $libs;                                      expect rdc-all OK
  $link main.o lib.o -o ../rdc-arch-sm_90 -Wl,--offload-arch=sm_90 $libs;      expect rdc-arch-sm_90 OK
  $link main.o lib.o -o ../rdc-arch-sm_80 -Wl,--offload-arch=sm_80 $libs;      expect rdc-arch-sm_80 cudaErrorNoKernelImageForDevice
  $link main.o libfat.a -o ../rdc-fatlib-arch-sm_90 -Wl,--offload-arch=sm_90 $libs; expect rdc-fatlib-arch-sm_90 OK
  $bin/offload-prune --offload-arch=sm_90 main.o -o main.sm_90.o
  $bin/offload-prune --offload-arch=sm_90 libfat.a -o libfat.sm_90.a
  $link main.sm_90.o libfat.sm_90.a -o ../rdc-pruned-sm_90 $libs;              expect rdc-pruned-sm_90 OK
  # Release flags; a relink from the device-link cache (the same bytes); a fat
  # `ld -r` object linked later.
  $link main.o lib.o -o ../rdc-release -Wl,--gc-sections,--icf=all,-z,now,--strip-all $libs; expect rdc-release OK
  $link main.o lib.o -o cold -Wl,--offload-cache-dir=cache $libs
  $link main.o lib.o -o ../rdc-cached -Wl,--offload-cache-dir=cache,--offload-verbose $libs 2>&1 | grep "local hit" >/dev/null # all of it: -q would end the link early by SIGPIPE
  cmp ../rdc-all ../rdc-cached;                                                expect rdc-cached OK
  $link -r main.o lib.o -o fat-r.o
  $link fat-r.o -o ../rdc-relocatable $libs;                                   expect rdc-relocatable OK
  clang++ --offload-link --cuda-path=$cuda main.o lib.o -fuse-ld=lld -o ../rdc-clang $libs; expect rdc-clang OK
  # Device LTO, the links' LTO and ptxas sent to a DTLTO distributor (the
  # tests' box.py, on this machine): the local link's bytes.
  $cc -DRDC --offload-new-driver -fgpu-rdc -foffload-lto -c "$src/lib.cu" "$src/main.cu"
  $link main.o lib.o -o ../rdc-lto $libs;                                      expect rdc-lto OK
  $link main.o lib.o -o ../rdc-lto-dist $libs \
    -Wl,--offload-distributor=$root/test/ld.lld-offload/Inputs/distributor/box.py; expect rdc-lto-dist OK
  cmp ../rdc-lto ../rdc-lto-dist

  # Whole-program device code (old driver): each object's .nv_fatbin holds
  # sm_80 and sm_90 cubins and sm_90's PTX; offload-prune trims them.
  $cc --no-offload-new-driver --no-cuda-include-ptx=all --cuda-include-ptx=sm_90 -c "$src/lib.cu" "$src/main.cu"
  $link main.o lib.o -o ../whole-all $libs;                                    expect whole-all OK
  for p in "sm_90" "sm_80" "sm_80 --keep-ptx"; do
    name=whole-pruned-${p// --/-}
    $bin/offload-prune --offload-arch=$p main.o -o m.o
    $bin/offload-prune --offload-arch=$p lib.o -o l.o
    $link m.o l.o -o ../$name $libs
  done
  expect whole-pruned-sm_90 OK
  expect whole-pruned-sm_80 cudaErrorNoKernelImageForDevice
  expect whole-pruned-sm_80-keep-ptx OK
  expect whole-pruned-sm_80-keep-ptx cudaErrorJitCompilationDisabled CUDA_DISABLE_PTX_JIT=1 CUDA_CACHE_DISABLE=1

  # nvcc -rdc=true objects: two units (a __device__ function each way, a
  # __managed__ variable), linked by nvcc and by ours; and a clang unit with
  # an nvcc unit, which only ours links.
  nvcc="$cuda/bin/nvcc -rdc=true -O2 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
  $nvcc -c "$src/nvcc-main.cu" "$src/nvcc-lib.cu"
  $nvcc nvcc-main.o nvcc-lib.o -o ../nvcc-rdc-nvcc;                           expect nvcc-rdc-nvcc OK
  $link nvcc-main.o nvcc-lib.o -o ../nvcc-rdc-ours $libs;                     expect nvcc-rdc-ours OK
  $cc --offload-new-driver -fgpu-rdc -c "$src/mixed-clang.cu"
  $nvcc -c "$src/mixed-nvcc.cu"
  $link mixed-clang.o mixed-nvcc.o -o ../mixed-clang-nvcc $libs;              expect mixed-clang-nvcc OK
  # Dynamic parallelism (the linker adds libcudadevrt.a), device printf and a
  # static library member only device code needs; then objects that nvcc
  # -dlink has device-linked already, which ours links as the host linker.
  $nvcc -c "$src/nvcc-dynpar.cu" "$src/nvcc-devlib.cu"
  rm -f libnvdev.a && llvm-ar rcs libnvdev.a nvcc-devlib.o
  $nvcc nvcc-dynpar.o libnvdev.a -o ../nvcc-dynpar-nvcc;                      expect nvcc-dynpar-nvcc OK
  $link nvcc-dynpar.o libnvdev.a -o ../nvcc-dynpar-ours $libs;                expect nvcc-dynpar-ours OK
  $nvcc -dlink nvcc-main.o nvcc-lib.o -o nvcc-dlink.o
  $link nvcc-main.o nvcc-lib.o nvcc-dlink.o -o ../nvcc-dlinked-ours $libs;    expect nvcc-dlinked-ours OK

  # Three ways to sm_90 alone, one fat binary.
  cd ..
  for p in rdc-arch-sm_90 rdc-fatlib-arch-sm_90 rdc-pruned-sm_90; do
    llvm-objcopy --dump-section=.nv_fatbin=obj/$p.fatbin $p
  done
  cmp obj/rdc-arch-sm_90.fatbin obj/rdc-fatlib-arch-sm_90.fatbin
  cmp obj/rdc-arch-sm_90.fatbin obj/rdc-pruned-sm_90.fatbin
  echo "sm_90 alone: --offload-arch=, a fat archive with --offload-arch= and pruned objects give one .nv_fatbin"
  exit 0
fi

[ "$mode" = run ] || { echo "usage: $0 build|run DIR" >&2; exit 2; }
cd "$dir"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
failed=0
while read -r prog want env; do
  echo "== $prog ${env:-}"
  command -v cuobjdump >/dev/null && cuobjdump -lelf -lptx "./$prog" | sed 's/^/   /'
  all=$(env ${env:-} "./$prog" 2>&1) || true
  echo "$all" | sed 's/^/   /'
  got=$(echo "$all" | tail -n 1) # device printf comes before the outcome
  case $got in
  "OK "*) outcome=OK ;;
  "FAIL "*) outcome=$(echo "$got" | sed -n 's/^FAIL [^:]*: \([A-Za-z]*\).*/\1/p') ;;
  *) outcome="?" ;;
  esac
  if [ "$outcome" = "$want" ]; then echo "PASS $prog ${env:-}: $outcome"
  else echo "FAIL $prog ${env:-}: expected $want, got $outcome"; failed=1; fi
done < expected
exit $failed

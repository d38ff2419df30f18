#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/CMakeLists.txt, clang-22 with ASan and
# UBSan) and runs each for N seconds:
#   fuzz/run.sh [SECONDS] [TARGET...]      (default 60 s, every target)
# FUZZ_ARGS adds libFuzzer options, e.g. FUZZ_ARGS="-fork=1 -ignore_crashes=1"
# to go on past findings (each is still saved under artifacts/).
# Seeds come from a corpus generated here with our own tools (when a build
# with them exists: $LLD_OFFLOAD_BUILD_DIR, else build/) and LLVM 22's
# (llvm-offload-binary, clang-offload-bundler, clang -c). Everything lands in
# $FUZZ_BUILD_DIR (default build-fuzz/): corpus/<target>/ grows as the
# fuzzers find new inputs, crashes go to artifacts/<target>/, logs to
# logs/<target>.log. Needs libclang-rt-22-dev (the fuzzer runtime).
set -euo pipefail

seconds=${1:-60}
shift || true
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fuzz_build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
tools_build=${LLD_OFFLOAD_BUILD_DIR:-$root/build}
llvm=/usr/lib/llvm-22
targets=("$@")
((${#targets[@]})) ||
  targets=(offload-binary bundle ccob entry-id find-binaries object-bundle
           link-args cuda-fatbin cubin-resources device-link kernel-resources)

if [[ ! -f "$fuzz_build/build.ninja" ]]; then
  cmake -S "$root/fuzz" -B "$fuzz_build" -G Ninja \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
ninja -C "$fuzz_build" | tail -n 1

# --- seed corpus ------------------------------------------------------------
seeds=$fuzz_build/seeds
if [[ ! -f "$seeds/.done" ]]; then
  rm -rf "$seeds"
  mkdir -p "$seeds"/{offload-binary,bundle,ccob,entry-id,find-binaries,object-bundle,work}
  w=$seeds/work
  pk=$tools_build/bin/offload-packager
  ob=$tools_build/bin/offload-bundler
  cat > "$w/dev.c" <<'C'
int add(int a, int b) { return a + b; }
#pragma omp declare target
int devfn(int x) { return x * 2; }
#pragma omp end declare target
int main(void) { int r = 0;
#pragma omp target map(tofrom: r)
  r = devfn(21);
  return r != 42; }
C
  printf 'int host(void) { return 1; }\n' > "$w/host.c"
  "$llvm/bin/clang" -c -O1 "$w/host.c" -o "$w/host.o"
  "$llvm/bin/clang" -c -O1 -emit-llvm "$w/host.c" -o "$w/host.bc"
  "$llvm/bin/clang" -S -emit-llvm "$w/host.c" -o "$w/host.ll"
  "$llvm/bin/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c \
    "$w/dev.c" -o "$w/omp.o"
  "$llvm/bin/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c \
    -fopenmp-new-driver -foffload-lto -emit-llvm "$w/dev.c" -o "$w/omp.bc" \
    2>/dev/null || true
  "$llvm/bin/llvm-ar" rc "$w/libomp.a" "$w/omp.o" "$w/host.o"
  "$llvm/bin/llvm-ar" rcT "$w/libthin.a" "$w/host.o"
  head -c 100 /dev/urandom > "$w/small.bin" 2>/dev/null || printf 'abc' > "$w/small.bin"
  "$llvm/bin/llvm-offload-binary" -o "$w/v1.bin" \
    --image=file="$w/host.o",triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp \
    --image=file="$w/host.bc",triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=hip
  cp "$w"/v1.bin "$seeds/offload-binary/"
  if [[ -x "$pk" ]]; then
    for f in v2 v3; do
      "$pk" --format=$f -o "$w/$f.bin" \
        --image=file="$w/host.o",triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp \
        --image=file="$w/small.bin",triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda
      cp "$w/$f.bin" "$seeds/offload-binary/"
    done
    "$pk" --format=v3 --compress -o "$seeds/offload-binary/v3z.bin" \
      --image=file="$w/host.o",triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp
  fi
  # Bundles: binary (bc), text (ll, s: three comment styles), objects, CCOB.
  cb="$llvm/bin/clang-offload-bundler"
  tg=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack+
  "$cb" -type=bc -targets=$tg -input="$w/host.bc" -input="$w/small.bin" \
    -input="$w/host.bc" -output="$w/b.bc"
  "$cb" -type=ll -targets=$tg -input="$w/host.ll" -input="$w/host.ll" \
    -input="$w/host.ll" -output="$w/b.ll"
  "$cb" -type=s -targets=$tg -input="$w/host.ll" -input="$w/host.ll" \
    -input="$w/host.ll" -output="$w/b.s"
  "$cb" -type=i -targets=$tg -input="$w/host.c" -input="$w/host.c" \
    -input="$w/host.c" -output="$w/b.i"
  "$cb" -type=o -targets=$tg -input="$w/host.o" -input="$w/small.bin" \
    -input="$w/host.bc" -output="$w/b.o"
  # The bundle fuzzer's first byte picks the reader: 0 binary, 1 "//",
  # 2 "#", 3 ";".
  { printf '\0'; cat "$w/b.bc"; } > "$seeds/bundle/binary"
  { printf '\1'; cat "$w/b.i"; } > "$seeds/bundle/text-slash"
  { printf '\2'; cat "$w/b.s"; } > "$seeds/bundle/text-hash"
  { printf '\3'; cat "$w/b.ll"; } > "$seeds/bundle/text-semi"
  for v in 2 3; do
    COMPRESSED_BUNDLE_FORMAT_VERSION=$v "$cb" -compress -type=bc -targets=$tg \
      -input="$w/host.bc" -input="$w/small.bin" -input="$w/host.bc" \
      -output="$seeds/ccob/v$v-zstd"
  done
  if [[ -x "$ob" ]]; then
    OFFLOAD_BUNDLER_COMPRESS=1 "$ob" -compress -type=bc -targets=$tg \
      -input="$w/host.bc" -input="$w/small.bin" -input="$w/host.bc" \
      -output="$seeds/ccob/ours" 2>/dev/null || true
  fi
  cat "$seeds/ccob/v2-zstd" "$seeds/ccob/v3-zstd" > "$seeds/ccob/two"
  # Entry and target IDs.
  i=0
  for id in host-x86_64-unknown-linux-gnu- hip-amdgcn-amd-amdhsa--gfx90a:xnack+ \
      hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack- \
      openmp-nvptx64-nvidia-cuda--sm_90a openmp-x86_64-pc-linux-gnu \
      gfx90a:xnack+:sramecc- sm_70; do
    printf '%s' "$id" > "$seeds/entry-id/$((i++))"
  done
  printf 'hip-amdgcn-amd-amdhsa--gfx90a\0hip-amdgcn-amd-amdhsa--gfx90a:xnack-' \
    > "$seeds/entry-id/pair"
  # Any file: objects, archives, bitcode, raw binaries.
  cp "$w/omp.o" "$w/host.o" "$w/libomp.a" "$w/libthin.a" "$w/host.bc" \
    "$w/v1.bin" "$seeds/find-binaries/"
  [[ -f "$w/omp.bc" ]] && cp "$w/omp.bc" "$seeds/find-binaries/"
  [[ -f "$w/v3.bin" ]] && cp "$w/v3.bin" "$seeds/find-binaries/"
  "$llvm/bin/clang" -c -O1 "$w/host.c" -o "$w/host-z.o" -Wa,--compress-debug-sections=zlib -g
  cp "$w/host-z.o" "$seeds/find-binaries/"
  cp "$w/b.o" "$w/host.o" "$w/omp.o" "$seeds/object-bundle/"
  rm -rf "$w"
  touch "$seeds/.done"
fi

# Device images for the device-link fuzzer: an OpenMP unit's image for
# the host's CPU, as clang-22 makes it.
if [[ ! -d "$seeds/device-link" ]]; then
  mkdir -p "$seeds/device-link"
  d=$seeds/device-link
  printf 'int g(void) { int x = 0;\n#pragma omp target map(tofrom : x)\n  x = 1;\n  return x; }\n' > "$d/omp.c"
  "$llvm/bin/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$d/omp.c" -o "$d/omp.o"
  "$llvm/bin/llvm-objcopy" --dump-section=.llvm.offloading="$d/section" "$d/omp.o" "$d/scratch.o"
  "$llvm/bin/llvm-offload-binary" "$d/section" \
    --image=file="$d/image.o",triple=x86_64-pc-linux-gnu,arch=generic
  rm -f "$d/omp.c" "$d/omp.o" "$d/section" "$d/scratch.o"
fi

# CUDA fat binaries: made by the toolkit's fatbinary where it is installed
# (plain, zstd and LZ4 entries), else by the tests' layout script.
if [[ ! -d "$seeds/cuda-fatbin" ]]; then
  mkdir -p "$seeds/cuda-fatbin"
  c=$seeds/cuda-fatbin
  printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n' > "$c/k.ptx"
  fb=${CUDA_PATH:-/usr/local/cuda}/bin/fatbinary
  if [[ -x "$fb" ]]; then
    "$fb" --64 --create="$c/plain" --compress=false --image3=kind=ptx,sm=90,file="$c/k.ptx"
    "$fb" --64 --create="$c/zstd" --compress-all --image3=kind=ptx,sm=90,file="$c/k.ptx"
    "$fb" --64 --create="$c/lz4" --compress-all --compress-mode=speed \
      --image3=kind=ptx,sm=90,file="$c/k.ptx" --image3=kind=ptx,sm=80,file="$c/k.ptx"
  fi
  python3 "$root/test/offload-inspect/Inputs/make-fatbin.py" "$c/layout" \
    "1:90:0x11:$c/k.ptx" "2:90:0x11:$c/k.ptx"
  rm "$c/k.ptx"
fi

# Cubins: made by the toolkit's ptxas where it is installed, for an SM of
# each e_flags layout's era and each shared memory layout, as executables
# and relocatable objects.
if [[ ! -d "$seeds/cubin-resources" ]]; then
  mkdir -p "$seeds/cubin-resources"
  c=$seeds/cubin-resources
  ptxas=${CUDA_PATH:-/usr/local/cuda}/bin/ptxas
  if [[ -x "$ptxas" ]]; then
    cat > "$c/k.ptx" <<'PTX'
.version 7.0
.target sm_75
.address_size 64
.visible .entry sh(.param .u64 p) .maxntid 128, 1, 1
{
  .shared .align 4 .b8 buf[256];
  .local .align 4 .b8 loc[64];
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  bar.sync 0;
  ld.shared.u32 %r1, [%r3+4];
  mov.u64 %rd2, loc;
  cvt.u64.u32 %rd1, %r2;
  and.b64 %rd1, %rd1, 60;
  add.u64 %rd2, %rd2, %rd1;
  st.local.u32 [%rd2], %r1;
  ret;
}
.visible .entry _Z4tinyPi(.param .u64 p) .reqntid 32, 2, 1 { ret; }
PTX
    for sm in sm_75 sm_90; do
      "$ptxas" -arch=$sm "$c/k.ptx" -o "$c/$sm.cubin"
      "$ptxas" -arch=$sm -c "$c/k.ptx" -o "$c/$sm-rel.cubin"
    done
    rm "$c/k.ptx"
  fi
fi

# GPU code objects: clang-22's of the kernels built to use known resources
# (LDS, spills, dynamic stacks, AGPRs), wave64 and wave32.
if [[ ! -d "$seeds/kernel-resources" ]]; then
  mkdir -p "$seeds/kernel-resources"
  for arch in gfx90a gfx1100; do
    agprs=()
    [[ $arch == gfx90a ]] && agprs=(-DWITH_AGPRS)
    "$llvm/bin/clang" -x hip --offload-arch=$arch --cuda-device-only \
      --no-gpu-bundle-output -nogpulib -nogpuinc -O2 -c "${agprs[@]}" \
      "$root/test/Inputs/kernel-resources.hip" \
      -o "$seeds/kernel-resources/$arch.co"
  done
fi

# ld.lld-offload's command line: argv lines, then response files r0-r2
# (see fuzz/fuzz-link-args.cpp), nested and recursive.
if [[ ! -d "$seeds/link-args" ]]; then
  mkdir -p "$seeds/link-args"
  l=$seeds/link-args
  printf -- '-o\nout\n--offload-jobs=2\n-L/lib\nmain.o\n-lomptarget' > "$l/plain"
  printf -- '@r0\n-shared\0--offload-verbose -r @r1\0-omagic --offload-compress=9 --offload-compress-version=2' > "$l/nested"
  printf -- '@r0\0@r0 --no-offload' > "$l/recursive"
  printf -- '@r1\0\0"a b" '"'"'c d'"'"' e\\ f\n--offload-device-lib=nvptx64-nvidia-cuda=libdev.a --output=x -Map m' > "$l/quotes"
  printf -- '--offload-jobs=jobserver\n--offload-relocatable=link\n-r\n--offload-device-linker-arg=amdgcn-amd-amdhsa=-O2\n--offload-extract=gfx90a\n--offload-large-fatbin-threshold=4096\n--offload-cuda-path=/cuda\n--offload-resource-usage\n--offload-resource-usage=r.json' > "$l/options"
fi

# LLVM's own allocations (WritableMemoryBuffer, objcopy) ask for whatever a
# size field says and cope with a null result; ASan must return null too
# rather than abort, as malloc would.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1}

# --- fuzzing ----------------------------------------------------------------
mkdir -p "$fuzz_build/logs"
status=0
for t in "${targets[@]}"; do
  corpus=$fuzz_build/corpus/$t
  artifacts=$fuzz_build/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  log=$fuzz_build/logs/$t.log
  echo "== fuzz-$t for ${seconds}s"
  # -rss_limit_mb keeps a bad size field from passing as "works for me".
  limits=(-rss_limit_mb=2048 -timeout=20 -max_len=65536)
  # The device link runs in a child whose coverage the fuzzer does not see:
  # keep the seeds whole (no feedback would shrink them to a byte), and let
  # LLD's own limits on sizes, not the fuzzer's malloc limit, decide.
  [[ $t == device-link ]] &&
    limits=(-rss_limit_mb=0 -malloc_limit_mb=1000000 -timeout=60 -max_len=4096 -reduce_inputs=0
            -len_control=0)
  if ! "$fuzz_build/bin/fuzz-$t" "$corpus" "$seeds/$t" \
      -max_total_time="$seconds" "${limits[@]}" -print_final_stats=1 \
      -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} >"$log" 2>&1; then
    echo "   FOUND SOMETHING: see $log and $artifacts/"
    status=1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE' \
    "$log" | sed 's/^/   /' || true
done
exit "$status"

// HIP without the HIP headers (-nogpuinc): kernels built to use known
// resources, for offload-inspect --resources and ld.lld-offload
// --offload-resource-usage to report as clang does
// (-Rpass-analysis=kernel-resource-usage). -DWITH_AGPRS adds a kernel with
// AGPRs, for gfx908 and later CDNA processors.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
#define KERNEL extern "C" __attribute__((global))
#define TID __builtin_amdgcn_workitem_id_x()

// 48 KiB of LDS: one work-group per CU of 64 KiB, two per WGP of 128 KiB.
KERNEL void big_lds(float *Out) {
  __attribute__((shared)) float Tile[12288];
  for (unsigned I = TID; I < 12288; I += 1024)
    Tile[I] = Out[I];
  __builtin_amdgcn_s_barrier();
  Out[TID] = Tile[12287 - TID];
}

// 64 values live at once in at most 32 VGPRs: the rest spill to scratch.
KERNEL __attribute__((amdgpu_num_vgpr(32))) void spills(float *P) {
  float V[64];
#pragma unroll
  for (int I = 0; I < 64; ++I)
    V[I] = P[TID * 64 + I];
#pragma unroll
  for (int I = 0; I < 64; ++I)
    P[TID * 64 + (I * 7) % 64] = V[I] * V[63 - I];
}

// Recursion: the stack's size is not known when compiling.
__attribute__((device, noinline)) int fib(int N) {
  return N < 2 ? N : fib(N - 1) + fib(N - 2);
}
KERNEL void recursive(int *P) { P[TID] = fib(P[TID]); }

// An alloca sized at run time: a dynamic stack too.
KERNEL void dynamic_alloca(int *P) {
  int N = P[TID];
  int *A = static_cast<int *>(__builtin_alloca(N * sizeof(int)));
  for (int I = 0; I < N; ++I)
    A[I] = P[I];
  P[TID] = A[N / 2];
}

// Uniform values live at once in at most 40 SGPRs: the rest spill.
KERNEL __attribute__((amdgpu_num_sgpr(40))) void sgpr_spills(const int *P, int *Out) {
  int S[40];
#pragma unroll
  for (int I = 0; I < 40; ++I)
    S[I] = __builtin_nontemporal_load(&P[I]);
  int Sum = 0;
#pragma unroll
  for (int I = 0; I < 40; ++I)
    Sum += S[I] * S[39 - I] + S[(I * 7) % 40];
  Out[TID] = Sum;
}

// 128 VGPRs, by clobbering the last one: 4 waves per SIMD on gfx90a
// (512 registers per lane), 10 on gfx1100 in wave32 (1536), 5 in wave64.
KERNEL void vgprs_128(int *P) { asm volatile("" ::: "v127"); }

// 16 KiB of LDS per work-group of at most 256 work-items: LDS, not
// registers, bounds the work-groups on a CU.
KERNEL __attribute__((amdgpu_flat_work_group_size(1, 256))) void lds_wg256(float *Out) {
  __attribute__((shared)) float Tile[4096];
  for (unsigned I = TID; I < 4096; I += 256)
    Tile[I] = Out[I];
  __builtin_amdgcn_s_barrier();
  Out[TID] = Tile[4095 - TID];
}

// A C++ kernel: its symbol is mangled.
namespace tiles {
template <int N> __attribute__((global)) void scale(float *P) { P[TID] *= N; }
template __attribute__((global)) void scale<4>(float *);
} // namespace tiles

#ifdef CALLS_OTHER_UNIT
// A kernel whose callee, with its LDS and registers, is in another unit
// (kernel-resources-callee.hip): with relocatable device code its
// resources are known only once the device link has run.
__attribute__((device)) float accumulate(const float *P, unsigned N);
KERNEL void calls_other_unit(float *P) { P[TID] = accumulate(P, TID); }
#endif

#ifdef WITH_AGPRS
// 64 VGPRs and 64 AGPRs: on gfx90a and gfx942 they share one register file,
// 128 of its 512 registers per lane.
KERNEL void agprs_64(int *P) { asm volatile("" ::: "v63", "a63"); }
#endif

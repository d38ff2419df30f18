// CUDA kernels without the CUDA headers, each with a known resource.
#define TID __nvvm_read_ptx_sreg_tid_x()
// 12 KiB of shared memory.
__attribute__((global)) void tile(float *P) {
  __attribute__((shared)) float T[3072];
  for (unsigned I = TID; I < 3072; I += 128)
    T[I] = P[I];
  __nvvm_bar_sync(0);
  P[TID] = T[3071 - TID];
}
// An array indexed at run time: it lives in local memory (a stack frame).
__attribute__((global, launch_bounds(128))) void gather(int *P, int N) {
  int V[32];
  for (int I = 0; I < 32; ++I)
    V[I] = P[I * N];
  P[TID] = V[P[0] & 31];
}

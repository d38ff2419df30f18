// The device function kernel-resources.hip's calls_other_unit calls, in a
// unit of its own: 8 KiB of LDS and a loop that keeps values in registers.
#define TID __builtin_amdgcn_workitem_id_x()

__attribute__((device)) float accumulate(const float *P, unsigned N) {
  __attribute__((shared)) float Tile[2048];
  for (unsigned I = TID; I < 2048; I += 64)
    Tile[I] = P[I];
  __builtin_amdgcn_s_barrier();
  float Sum[16] = {};
  for (unsigned I = 0; I < N; ++I) {
#pragma unroll
    for (int J = 0; J < 16; ++J)
      Sum[J] += Tile[(I * 16 + J) % 2048] * P[J];
  }
  float Total = 0;
#pragma unroll
  for (int J = 0; J < 16; ++J)
    Total += Sum[J] * Sum[15 - J];
  return Total;
}

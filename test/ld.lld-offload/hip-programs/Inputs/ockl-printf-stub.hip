// Stands in for ROCm's ockl hostcall printf (what clang's device printf calls
// under -mprintf-kind=hostcall, the default): the descriptor threads through
// the calls; nothing is printed.
#include "hip-mini.h"

typedef unsigned long u64;
typedef unsigned u32;

extern "C" __device__ u64 __ockl_printf_begin(u64 Version) { return Version; }
extern "C" __device__ u64 __ockl_printf_append_string_n(u64 Desc,
                                                        const char *Str,
                                                        u64 Length,
                                                        u32 IsLast) {
  return Desc + Length;
}
extern "C" __device__ u64 __ockl_printf_append_args(u64 Desc, u32 NumArgs,
                                                    u64 A0, u64 A1, u64 A2,
                                                    u64 A3, u64 A4, u64 A5,
                                                    u64 A6, u32 IsLast) {
  return Desc + NumArgs + A0;
}

// Under -mprintf-kind=buffered (a unit of its own: the printf kind is a
// module flag that LTO does not let differ), the format strings go to the
// code object's metadata and the arguments to a buffer this hands out.
__device__ char PrintfBuffer[4096];
extern "C" __device__ __attribute__((address_space(1))) char *
__printf_alloc(u32 Size) {
  return Size <= sizeof(PrintfBuffer)
             ? (__attribute__((address_space(1))) char *)PrintfBuffer
             : nullptr;
}

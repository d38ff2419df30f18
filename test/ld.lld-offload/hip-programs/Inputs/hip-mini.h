// Stands in for the HIP headers (-nogpuinc): the keywords as the HIP headers
// define them, dim3, and the launch API that clang's kernel launch calls.
#ifndef HIP_MINI_H
#define HIP_MINI_H
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __constant__ __attribute__((constant))
#define __shared__ __attribute__((shared))
#define __managed__ __attribute__((managed))
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned X = 1, unsigned Y = 1, unsigned Z = 1)
      : x(X), y(Y), z(Z) {}
};
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *Kernel, dim3 Grid, dim3 Block,
                               void **Args, unsigned long SharedMem,
                               hipStream_t Stream);
extern "C" int __hipPushCallConfiguration(dim3 Grid, dim3 Block,
                                          unsigned long SharedMem = 0,
                                          hipStream_t Stream = 0);
extern "C" __host__ __device__ int printf(const char *, ...);
#endif

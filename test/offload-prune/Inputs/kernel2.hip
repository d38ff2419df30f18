// A second source file: a HIP library built from two files, without
// -fgpu-rdc, has a fat binary per file.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
__attribute__((global)) void kernel2(int *P) { *P = 9; }

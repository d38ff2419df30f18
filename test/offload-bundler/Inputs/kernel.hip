// A HIP kernel that compiles without the HIP headers (-nogpuinc): clang only
// needs a declaration of hipLaunchKernel for the host stub.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
__attribute__((global)) void kernel(int *p) { *p = 42; }

// HIP without the HIP headers (-nogpuinc): a kernel that calls a device
// function defined in hip-b.hip (relocatable device code).
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
__attribute__((device)) int helper(int X);
__attribute__((global)) void kernelA(int *P) { *P = helper(35); }

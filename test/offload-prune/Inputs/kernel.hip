// HIP without the HIP headers (-nogpuinc): a device global and a kernel.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
__attribute__((device)) int DeviceGlobal = 7;
__attribute__((global)) void kernel(int *P) { *P = DeviceGlobal; }

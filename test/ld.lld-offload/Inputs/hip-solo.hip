// HIP without the HIP headers (-nogpuinc), one unit, no relocatable device code.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
__attribute__((global)) void kernelSolo(int *P) { *P = 1; }
int main() { return 0; }

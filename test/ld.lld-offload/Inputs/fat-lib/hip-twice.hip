// A fat static library's member: a device function and a kernel. Nothing in
// it is a host symbol a program's host code calls.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
__attribute__((device)) int twice(int X) { return 2 * X; }
__attribute__((global)) void libKernel(int *P) { *P = twice(*P); }

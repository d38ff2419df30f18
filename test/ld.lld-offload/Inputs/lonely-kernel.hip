// A kernel nothing else refers to: a member of an archive that only a
// request for its target (--offload-arch=, --offload-extract=) links.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
__attribute__((global)) void lonely(int *p) { *p = 1; }

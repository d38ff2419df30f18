// A program that launches a kernel a static library's member defines.
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned X = 1, unsigned Y = 1, unsigned Z = 1) : x(X), y(Y), z(Z) {}
};
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long = 0,
                                          hipStream_t = 0);
__attribute__((global)) void libKernel(int *P);
int main() {
  libKernel<<<1, 1>>>(nullptr);
  return 0;
}

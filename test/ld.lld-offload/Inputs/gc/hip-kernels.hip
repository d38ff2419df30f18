// Two kernels and two device variables that --icf=all could take for one,
// and a host function nothing calls, which --gc-sections may collect.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
__attribute__((global)) void kernelOne(int *P) { *P = 1; }
__attribute__((global)) void kernelTwo(int *P) { *P = 1; }
__attribute__((device)) int VarOne = 1;
__attribute__((device)) int VarTwo = 1;
extern "C" int unusedHostFunction(int X) { return X * 3; }
int main() { return 0; }

// A program whose kernel calls a device function that only a static
// library's member defines: the host needs nothing from that member.
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long,
                               hipStream_t);
__attribute__((device)) int twice(int X);
__attribute__((global)) void mainKernel(int *P) { *P = twice(*P); }
int main() { return 0; }

// Two kernels in an anonymous namespace with the same parameters: their
// stubs are local symbols, which --keep-unique cannot name.
namespace {
__global__ void kernelOne(int *P) { *P = 1; }
__global__ void kernelTwo(int *P) { *P = 1; }
} // namespace
void launchBoth(int *P) {
  kernelOne<<<1, 1>>>(P);
  kernelTwo<<<1, 1>>>(P);
}
int main() { return 0; }

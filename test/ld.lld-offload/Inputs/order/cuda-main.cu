// Archive-order programs: main calls cuda-b.cu's host function. It has a
// kernel of its own: clang's pipeline links an archive member's CUDA code
// only for an arch some object has code for.
void runB(int *P);
__global__ void kernelMain(int *P) { P[2] = 3; }
int main() {
  runB(nullptr);
  kernelMain<<<1, 1>>>(nullptr);
  return 0;
}

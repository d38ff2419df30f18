// A CUDA kernel, compiled without the CUDA headers.
__attribute__((global)) void kernel(int *P) { *P = 1; }

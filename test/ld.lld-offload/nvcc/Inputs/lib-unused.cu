// A member of libdev.a that neither host nor device code of lib-main.cu
// needs: no link takes it, nothing registers its kernel.
__device__ int unusedHelper(int X) { return X ^ 0x5a; }

__global__ void unusedKernel(int *Out) { *Out = unusedHelper(*Out); }

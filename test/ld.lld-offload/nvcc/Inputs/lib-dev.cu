// A member of libdev.a that only device code needs (see lib-main.cu): a
// __device__ function, a __device__ variable and a kernel of its own, which
// its module registers when the device link has taken it.
__device__ int LibFactor = 3;

__device__ int libScale(int X) { return LibFactor * X; }

__global__ void libDevKernel(int *Out) { *Out = libScale(*Out) + 1; }

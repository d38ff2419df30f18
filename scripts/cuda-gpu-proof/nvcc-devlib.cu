// A member of a static library that only device code needs (see
// nvcc-dynpar.cu): nothing of the host program refers to it.
__device__ int LibFactor = 3;

__device__ int libScale(int X) { return LibFactor * X; }

// See dynpar-a.cu: a kernel that launches itself once more from the device.
__global__ void childB(int *Out, int Depth) {
  atomicAdd(Out, 10);
  if (Depth > 0 && threadIdx.x == 0 && blockIdx.x == 0)
    childB<<<1, 1>>>(Out, Depth - 1);
}

// A whole-program unit (compiled without -rdc) that launches a kernel of an
// -rdc=true unit, lib-dev.cu's libDevKernel, through its host stub: it
// stands in for lib-host.cu's libLaunch (see lib-main.cu).
#include <cuda_runtime.h>

__global__ void libDevKernel(int *Out); // lib-dev.cu

void libLaunch(int *Out) { libDevKernel<<<1, 16>>>(Out); }

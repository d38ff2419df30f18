// Device-side variables of every kind that HIP registers: __constant__ (a
// scalar and an array), __device__ (initialized or not, a struct), and
// __managed__ (scalar and array), read by a kernel; the host reads the
// managed memory the runtime handed out. variables-extern.hip uses them too.
#include "hip-mini.h"

struct Params {
  float Scale;
  int Steps[3];
};

__constant__ float Coefficients[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__constant__ int Width = 64;
__device__ Params Config = {0.5f, {1, 2, 3}};
__device__ double Accumulator;
__device__ long Histogram[32];
__managed__ int Counter = 42;
__managed__ double Samples[4] = {1.5, 2.5, 3.5, 4.5};

extern __device__ int LastWriter;

__global__ void useAll(float *Out) {
  LastWriter = 1;
  Accumulator += Coefficients[__builtin_amdgcn_workitem_id_x() % 8] * Config.Scale + Samples[1];
  Histogram[Width % 32] += Config.Steps[2];
  Out[0] = Counter++;
}

int readCounterFromOtherUnit();

int main() {
  useAll<<<1, 8>>>(nullptr);
  Counter += 1;
  printf("host: Counter=%d Samples[3]=%g other unit reads %d\n", Counter,
         Samples[3], readCounterFromOtherUnit());
  return 0;
}

// A second unit that uses variables.hip's variables through extern
// declarations, from a kernel and from host code, and defines a __device__
// variable of its own that variables.hip's kernel writes.
#include "hip-mini.h"

struct Params {
  float Scale;
  int Steps[3];
};

extern __constant__ float Coefficients[8];
extern __device__ Params Config;
extern __managed__ int Counter;
__device__ int LastWriter;

__global__ void scaleByConfig(float *Out) {
  Out[0] = Coefficients[7] * Config.Scale + Counter;
}

int readCounterFromOtherUnit() {
  scaleByConfig<<<1, 1>>>(nullptr);
  return Counter;
}

// An archive member nothing refers to: the host link leaves it out, and so
// must the device link.
int lib_unused(void) {
  int X = 0;
#pragma omp target map(from : X)
  X = 99;
  return X;
}

// Defines what only the offload runtime (or the registration object) asks
// for, and has a target region: its device code is linked only if the host
// link, with the runtime and the registration in it, takes it.
int pulled_by_runtime(void) {
  int X = 0;
#pragma omp target map(tofrom : X)
  X = 11;
  return X;
}

// A fat static library's member: a function the device code calls.
#pragma omp declare target
int twice(int X) { return 2 * X; }
#pragma omp end declare target

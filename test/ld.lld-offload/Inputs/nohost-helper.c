// Defines the function the device code needs.
#pragma omp declare target
int device_helper(int X) { return X + 1; }
#pragma omp end declare target

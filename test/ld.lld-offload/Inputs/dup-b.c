#pragma omp begin declare target device_type(nohost)
int twice(void) { return 2; }
#pragma omp end declare target

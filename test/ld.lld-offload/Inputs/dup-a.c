// Defines a device-only function that dup-b.c defines too: the host links,
// the device link cannot.
#pragma omp begin declare target device_type(nohost)
int twice(void) { return 1; }
#pragma omp end declare target
int main(void) { return 0; }

// A device library for CPU device links (--offload-device-lib=): its
// contents, not its name, are in a cached link's key.
int devlib_value(void) { return DEVLIB_VALUE; }

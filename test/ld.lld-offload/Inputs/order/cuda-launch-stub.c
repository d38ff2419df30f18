// With cuda-runtime-stub.c (test/offload-wrapper/Inputs), what a kernel
// launch calls first; the launch itself does nothing.
struct dim3 {
  unsigned X, Y, Z;
};
int __cudaPushCallConfiguration(struct dim3 Grid, struct dim3 Block,
                                unsigned long Shared, void *Stream) {
  return 0;
}

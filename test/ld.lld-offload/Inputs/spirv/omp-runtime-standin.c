// A stand-in for OpenMP's SPIR-V device runtime (libomptarget-spirv.bc
// upstream, in no package here): the two entry points a target region's
// kernel calls, compiled for spirv64-intel. Enough to link; it does no work.
int __kmpc_target_init(void *KernelEnvironment, void *LaunchEnvironment) {
  (void)KernelEnvironment;
  (void)LaunchEnvironment;
  return -1;
}
void __kmpc_target_deinit(void) {}

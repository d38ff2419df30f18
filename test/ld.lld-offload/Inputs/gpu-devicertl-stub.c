// Stands in for LLVM's OpenMP device runtime for AMDGPU and NVPTX, which
// Debian does not ship: it defines what a target region calls, so the device link
// resolves. Not meant to run.
int __kmpc_target_init(void *Env, void *Launch) { return -1; }
void __kmpc_target_deinit(void) {}

// Stands in for LLVM's OpenMP device runtime for AMDGPU (which Debian does
// not ship), as ../gpu-devicertl-stub.c does, with what a target region in
// generic mode calls too. Not meant to run.
int __kmpc_target_init(void *Env, void *Launch) { return -1; }
void __kmpc_target_deinit(void) {}
unsigned __kmpc_get_hardware_thread_id_in_block(void) { return 0; }

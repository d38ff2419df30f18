// Just enough of the CUDA runtime's registration interface to link a CUDA
// program without cudart; these tests never run it.
void **__cudaRegisterFatBinary(void *Wrapper) { return (void **)Wrapper; }
void __cudaRegisterFatBinaryEnd(void **Handle) {}
void __cudaUnregisterFatBinary(void **Handle) {}
int __cudaRegisterFunction(void) { return 0; }
void __cudaRegisterVar(void) {}
void __cudaRegisterManagedVar(void) {}
void __cudaRegisterSurface(void) {}
void __cudaRegisterTexture(void) {}
int __cudaPopCallConfiguration(void) { return 0; }
int cudaLaunchKernel(void) { return 0; }

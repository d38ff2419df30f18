// Just enough of the HIP runtime's registration interface to link a HIP
// program where no HIP runtime is installed; these tests never run it.
void *__hipRegisterFatBinary(void *Wrapper) { return Wrapper; }
void __hipUnregisterFatBinary(void *Handle) {}
int __hipRegisterFunction(void) { return 0; }
void __hipRegisterVar(void) {}
void __hipRegisterManagedVar(void) {}
void __hipRegisterSurface(void) {}
void __hipRegisterTexture(void) {}
int __hipPopCallConfiguration(void) { return 0; }
int hipLaunchKernel(void) { return 0; }

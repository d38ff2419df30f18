// A stand-in for libomptarget.so that needs a symbol of the program.
int pulled_by_runtime(void);
void __tgt_register_lib(void *Desc) { (void)Desc; }
void __tgt_unregister_lib(void *Desc) { (void)Desc; }
int __tgt_target_kernel(void *Loc, long long Device, int Teams, int Threads,
                        void *HostPtr, void *Args) {
  (void)Loc, (void)Device, (void)Teams, (void)Threads, (void)HostPtr;
  (void)Args;
  return 0;
}
int __tgt_runtime_ready(void) { return pulled_by_runtime(); }

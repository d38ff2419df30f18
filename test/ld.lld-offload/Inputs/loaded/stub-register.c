// A static stand-in for the runtime's registration entry points, with a
// target region: only the registration object asks for this member.
void __tgt_register_lib(void *Desc) {
  int X = 0;
#pragma omp target map(tofrom : X)
  X = 1;
  (void)Desc;
}
void __tgt_unregister_lib(void *Desc) { (void)Desc; }

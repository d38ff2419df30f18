// Calls what a member of libstub.a defines, a stand-in for the runtime's
// entry points that has device code of its own: the host link takes it.
void __tgt_unregister_lib(void *Desc);
int main(void) {
  __tgt_unregister_lib((void *)0);
  return 0;
}

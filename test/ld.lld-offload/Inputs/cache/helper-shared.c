// The same function as Inputs/loaded/helper.c, otherwise: a shared library
// after libhelper.a on a command line defines it too, and a device link
// that leaves libhelper.a out would take this one.
int helper(int x) { return x + 2; }

// A host library function, without device code: device code may call it
// (a CPU device link takes the host's libraries).
int helper(int x) { return x + 1; }

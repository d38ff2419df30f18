// A shared library larger than any linker script: its hash is kept under
// its identity.
const char big_table[100000] = {VALUE};
int big_value(void) { return big_table[0]; }

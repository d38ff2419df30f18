// Archive-order programs: a plain C++ main that calls order-b.hip's host
// function; its device code all comes from archives.
void runB(int *P);
int main() {
  runB(nullptr);
  return 0;
}

// A reduction over a large mapped array.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const int N = 1 << 22;
  double *A = malloc(sizeof(double) * N);
  for (int I = 0; I < N; ++I)
    A[I] = I % 7;
  double Sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : Sum) map(to : A[0 : N])
  for (int I = 0; I < N; ++I)
    Sum += A[I];
  printf("sum=%.0f\n", Sum);
  free(A);
  return 0;
}

// The other translation unit: a declare-target function and global.
#pragma omp declare target
#ifndef OFFSET
#define OFFSET 2
#endif
int Offset = OFFSET;
int scale(int X) { return X * 2; }
#pragma omp end declare target

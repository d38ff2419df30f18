// The other translation unit: a declare-target function and global.
#pragma omp declare target
int Offset = 2;
int scale(int X) { return X * 2; }
#pragma omp end declare target

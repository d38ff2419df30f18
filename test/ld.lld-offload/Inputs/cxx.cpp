// C++ on the device: a global with a constructor, and virtual calls.
#include <cstdio>

#pragma omp declare target
struct Shape {
  virtual ~Shape() = default;
  virtual int area() const = 0;
};
struct Square : Shape {
  int Side;
  explicit Square(int S) : Side(S) {}
  int area() const override { return Side * Side; }
};
struct Rect : Shape {
  int W, H;
  Rect(int W, int H) : W(W), H(H) {}
  int area() const override { return W * H; }
};
struct Counter {
  int Value;
  Counter() : Value(1000) {}
};
Counter Global;
#pragma omp end declare target

int main() {
  int Total = 0, Init = 0;
#pragma omp target map(tofrom : Total) map(from : Init)
  {
    Square S(3);
    Rect R(2, 5);
    const Shape *Shapes[] = {&S, &R};
    for (const Shape *P : Shapes)
      Total += P->area();
    Init = Global.Value;
  }
  std::printf("total=%d init=%d\n", Total, Init);
  return 0;
}

// C++ names in a trace: a namespace, a class's constructor, method and
// operator, overloads, a function template, and catcher() (issue 10's
// example).  Arguments come from argc and every function writes a volatile,
// so that gcc and clang keep every call and make no clone of any function
// (".isra", ".constprop"): both print the same trace.
#include <cstdio>

volatile int cx_sink;

namespace geo {
struct Point {
	int x, y;
	__attribute__((noinline)) Point(int a, int b);
	__attribute__((noinline)) int norm() const;
	__attribute__((noinline)) Point operator+(const Point &o) const;
};

Point::Point(int a, int b) : x(a), y(b)
{
	cx_sink = a;
}

int Point::norm() const
{
	cx_sink = x;
	return x * x + y * y;
}

Point Point::operator+(const Point &o) const
{
	cx_sink = o.x;
	return Point(x + o.x, y + o.y);
}

__attribute__((noinline)) int scale(int v)
{
	cx_sink = v;
	return v * 2;
}

__attribute__((noinline)) double scale(double v)
{
	cx_sink = 1;
	return v * 2.5;
}

template <typename T> __attribute__((noinline)) T twice(T v)
{
	cx_sink = 2;
	return scale(v) + scale(v);
}
} // namespace geo

__attribute__((noinline)) int catcher()
{
	cx_sink = 7;
	return 7;
}

int main(int argc, char **)
{
	geo::Point a(argc, 2);
	geo::Point b = a + a;
	int n = b.norm();
	int t = geo::twice(argc);
	double d = geo::twice(argc * 0.5);
	std::printf("%d %d %.1f %d\n", n, t, d, catcher());
	return 0;
}

// The C++ runtime under the graph tracer: an exception thrown through
// traced frames with destructors run during the unwinding, caught several
// frames up, caught and rethrown; a lambda called through std::function;
// a std::thread running a lambda.  Output identical traced and untraced;
// arguments come from argc so the compilers keep every call.
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <thread>

volatile int rt_sink;

struct Guard {
	int id;
	__attribute__((noinline)) explicit Guard(int i) : id(i) { rt_sink = i; }
	__attribute__((noinline)) ~Guard() { rt_sink = id; }
};

__attribute__((noinline)) void thrower(int x)
{
	Guard g(x);
	if (x)
		throw std::runtime_error("boom");
}

__attribute__((noinline)) int middle(int x)
{
	Guard g(10 + x);
	thrower(x);
	return 0;
}

__attribute__((noinline)) int catcher(int x)
{
	try {
		return middle(x);
	} catch (const std::exception &) {
		rt_sink = 1;
		return -1;
	}
}

__attribute__((noinline)) int rethrower(int x)
{
	try {
		middle(x);
	} catch (...) {
		Guard g(99);
		throw;
	}
	return 0;
}

__attribute__((noinline)) int outer(int x)
{
	try {
		return rethrower(x);
	} catch (const std::runtime_error &) {
		rt_sink = 2;
		return -2;
	}
}

__attribute__((noinline)) int apply(const std::function<int(int)> &f, int v)
{
	return f(v);
}

__attribute__((noinline)) int after(int x)
{
	rt_sink = x;
	return x + 1;
}

int main(int argc, char **)
{
	int k = argc + 2;
	auto add = [k](int v) { return after(v) + k; };
	int a = catcher(argc);
	int b = outer(argc);
	int c = apply(add, argc);
	int d = 0;
	std::thread t([&d, argc] { d = catcher(argc) + after(argc); });
	t.join();
	std::printf("%d %d %d %d\n", a, b, c, d);
	return 0;
}

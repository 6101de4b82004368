// C++ exceptions thrown through traced frames: caught several frames up,
// rethrown, and inside std::threads.  Output identical traced and untraced.
#include <cstdio>
#include <stdexcept>
#include <thread>

__attribute__((noinline)) int x_thrower(int x)
{
	if (x > 2)
		throw std::runtime_error("boom");
	return x;
}

__attribute__((noinline)) int x_mid2(int x)
{
	return x_thrower(x) + 1;
}

__attribute__((noinline)) int x_mid1(int x)
{
	try {
		return x_mid2(x) * 2;
	} catch (const std::logic_error &) {
		return -1;
	}
}

__attribute__((noinline)) int x_catcher(int x)
{
	try {
		return x_mid1(x);
	} catch (const std::runtime_error &e) {
		std::printf("caught %s at %d\n", e.what(), x);
		return -2;
	}
}

__attribute__((noinline)) int x_rethrow(int x)
{
	try {
		return x_mid1(x);
	} catch (...) {
		throw;
	}
}

int main()
{
	int s = 0;

	for (int i = 0; i < 5; i++)
		s += x_catcher(i);
	try {
		x_rethrow(5);
	} catch (const std::exception &e) {
		std::printf("rethrown %s\n", e.what());
	}
	std::thread t1([] { std::printf("thread 1: %d\n", x_catcher(7)); });
	t1.join();
	std::thread t2([] { std::printf("thread 2: %d\n", x_catcher(1)); });
	t2.join();
	std::printf("sum %d, after: %d\n", s, x_mid1(1));
	return 0;
}

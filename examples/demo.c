/*
 * The program `make demo` traces: a tiny request parser.  Built with
 * -fpatchable-function-entry=5, so every function below starts with a
 * 5-byte site that costs one nop until utrace turns it into a call.
 */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static int parse_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : -1;
}

__attribute__((noinline)) static int parse_number(const char *s)
{
	int v = 0;

	for (; *s; s++) {
		int d = parse_digit(*s);

		if (d < 0)
			break;
		v = v * 10 + d;
	}
	return v;
}

__attribute__((noinline)) static void parse_noise(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int handle_request(const char *req)
{
	parse_noise();
	return parse_number(req) * 2;
}

int main(void)
{
	const char *reqs[] = {"12", "7"};
	int sum = 0;

	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++)
		sum += handle_request(reqs[i]);
	printf("demo: sum of doubled requests = %d\n", sum);
	return 0;
}

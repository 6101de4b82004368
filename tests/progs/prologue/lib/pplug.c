// SPDX-License-Identifier: MIT
/* libpplug: a plain -O2 plugin for pdlopen (tests/progs/prologue). */
long plug_data[8] = {3, 1, 4, 1, 5, 9, 2, 6};
static long acc;

__attribute__((noinline)) long plug_step(long i)
{
	long r = plug_data[i & 7] * (i + 1) + acc;

	acc += r & 3;
	return r;
}

__attribute__((noinline)) long plug_total(void)
{
	long s = acc;

	for (int i = 0; i < 8; i++)
		s += plug_data[i];
	return s;
}

// SPDX-License-Identifier: MIT
/*
 * marker: trace_marker from inside a program through the in-program API
 * (looked up with dlsym, so it also runs without utrace).
 */
#include <dlfcn.h>
#include <stdio.h>

#include "progs.h"

DEFINE_SINK;

static int (*marker)(const char *);

NOINLINE int m_leaf(int x)
{
	SINK(x);
	return x + 1;
}

NOINLINE int m_work(int x)
{
	if (marker)
		marker("work begins");
	return m_leaf(x) * 2;
}

int main(void)
{
	marker = (int (*)(const char *))dlsym(RTLD_DEFAULT, "utrace_marker");
	printf("marker %d\n", m_work(1));
	return 0;
}

// SPDX-License-Identifier: MIT
/* libtplug (dlopen'ed): plug_work calls plug_hello once. */
#include "progs.h"

volatile long tplug_sink;

NOINLINE int plug_hello(int x)
{
	tplug_sink++;
	return x + 1;
}

NOINLINE int plug_work(int n)
{
	return plug_hello(n) * 2;
}

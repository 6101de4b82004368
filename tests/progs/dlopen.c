// SPDX-License-Identifier: MIT
/*
 * dlopen: twice, dlopen libtplug.<style>.so next to itself, call plug_hello
 * once and plug_work(3) (plug_work calls plug_hello... see tplug.c), dlclose.
 * Per round: plug_hello 2, plug_work 1.  Main calls d_round twice.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "progs.h"

DEFINE_SINK;

static char lib[PATH_MAX + 64];

NOINLINE int d_round(int r)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*hello)(int), (*work)(int);
	int v;

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	hello = (int (*)(int))dlsym(h, "plug_hello");
	work = (int (*)(int))dlsym(h, "plug_work");
	if (!hello || !work)
		return -1;
	v = hello(r) + work(3);
	dlclose(h);
	return v;
}

int main(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash, *dot;

	if (n <= 0)
		return 1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	dot = strchr(slash + 1, '.');
	if (!dot)
		return 1;
	*slash = '\0';
	snprintf(lib, sizeof(lib), "%s/libtplug%s.so", exe, dot);
	for (int r = 0; r < 2; r++)
		printf("round %d: %d\n", r, d_round(r));
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * dlforms ACTION...: dlopen in the forms programs use.  Each ACTION:
 *   now:NAME     dlopen(NAME, RTLD_NOW), plug_work(1), dlclose
 *   global:NAME  the same with RTLD_NOW | RTLD_GLOBAL
 *   lazy:NAME    the same with RTLD_LAZY
 *   twice:NAME   dlopen twice, dlclose once, plug_work(1), dlclose
 *   keep:NAME    dlopen(NAME, RTLD_NOW), plug_work(1), kept open
 *   call         plug_work(1) of the library kept open
 *   bylib:LIB:NAME  dlopen LIB (libtopen, kept open) and have it open NAME
 *                (topen_run)
 *   cd:DIR       chdir(DIR)
 * NAME is passed to dlopen as given (relative, bare, $ORIGIN/...).  Prints
 * "ACTION = value" per action (-1: failed, with dlerror on stderr).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "progs.h"

DEFINE_SINK;

static void *kept;

NOINLINE void *df_open(const char *name, int mode)
{
	void *h = dlopen(name, mode);

	if (!h)
		fprintf(stderr, "dlopen: %s\n", dlerror());
	return h;
}

NOINLINE int df_call(void *h, const char *sym, const char *arg)
{
	void *f = h ? dlsym(h, sym) : NULL;

	if (!f)
		return -1;
	if (arg)
		return ((int (*)(const char *))f)(arg);
	return ((int (*)(int))f)(1);
}

/* dlopen @name with @mode (twice if @twice), call plug_work, close unless @keep. */
NOINLINE static int open_call(const char *name, int mode, int twice, int keep)
{
	void *h = df_open(name, mode), *h2 = twice && h ? df_open(name, mode) : NULL;
	int v;

	if (h2)
		dlclose(h2);
	v = df_call(h, "plug_work", NULL);
	if (h && keep)
		kept = h;
	else if (h)
		dlclose(h);
	return v;
}

NOINLINE static int by_lib(const char *spec)
{
	char lib[4096];
	const char *colon = strchr(spec, ':');
	void *h;
	int v;

	if (!colon || (size_t)(colon - spec) >= sizeof(lib))
		return -1;
	snprintf(lib, sizeof(lib), "%.*s", (int)(colon - spec), spec);
	/*
	 * Kept open: a trace names addresses from one table for the whole run,
	 * so a library loaded later where this one was would take its names.
	 */
	h = df_open(lib, RTLD_NOW);
	v = df_call(h, "topen_run", colon + 1);
	return v;
}

NOINLINE static int action(const char *a)
{
	if (!strncmp(a, "now:", 4))
		return open_call(a + 4, RTLD_NOW, 0, 0);
	if (!strncmp(a, "global:", 7))
		return open_call(a + 7, RTLD_NOW | RTLD_GLOBAL, 0, 0);
	if (!strncmp(a, "lazy:", 5))
		return open_call(a + 5, RTLD_LAZY, 0, 0);
	if (!strncmp(a, "twice:", 6))
		return open_call(a + 6, RTLD_NOW, 1, 0);
	if (!strncmp(a, "keep:", 5))
		return open_call(a + 5, RTLD_NOW, 0, 1);
	if (!strcmp(a, "call"))
		return df_call(kept, "plug_work", NULL);
	if (!strncmp(a, "bylib:", 6))
		return by_lib(a + 6);
	if (!strncmp(a, "cd:", 3))
		return chdir(a + 3);
	return -1;
}

int main(int argc, char **argv)
{
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		int v = action(argv[i]);

		printf("%s = %d\n", argv[i], v);
		bad |= v < 0;
	}
	return bad;
}

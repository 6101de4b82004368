// SPDX-License-Identifier: MIT
/*
 * libtopen (dlopen'ed, linked with RUNPATH $ORIGIN): topen_run(name)
 * dlopens NAME itself, so a bare name is searched in libtopen's RUNPATH,
 * calls its plug_work(2) and closes it.
 */
#include <dlfcn.h>

#include "progs.h"

NOINLINE int topen_run(const char *name)
{
	void *h = dlopen(name, RTLD_NOW);
	int (*work)(int);
	int v;

	if (!h)
		return -1;
	work = (int (*)(int))dlsym(h, "plug_work");
	v = work ? work(2) : -1;
	dlclose(h);
	return v;
}

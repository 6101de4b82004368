// SPDX-License-Identifier: MIT
/*
 * Filters name C++ functions as demangled (common/cxxname.h), also inside
 * the program, which applies them.  The runtime does not link the C++
 * runtime: a program with mangled names is a C++ program and has libstdc++
 * (or libc++, which exports the same ABI function) loaded, so its
 * __cxa_demangle is looked up there.  A C++ program that calls nothing of
 * libstdc++ is linked without it (--as-needed): then libstdc++ is loaded,
 * with libc's dlopen (ours would take the runtime's lock, held here), once
 * a filter word first meets a mangled name.  Without it, names match as
 * mangled.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "internal.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn find_demangler(void)
{
	void *(*real_dlopen)(const char *, int);
	void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	void *h;

	if (!sym) {
		*(void **)&real_dlopen = dlsym(RTLD_NEXT, "dlopen");
		h = real_dlopen ? real_dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL) : NULL;
		sym = h ? dlsym(h, "__cxa_demangle") : NULL;
	}
	/* an object pointer to a function pointer: POSIX allows it for dlsym's result */
	return *(cxa_demangle_fn *)&sym;
}

char *ut_rt_demangle(const char *mangled)
{
	static cxa_demangle_fn fn;
	static bool looked;

	if (!looked) {
		fn = find_demangler();
		looked = true;
	}
	/* NULL status: the result is NULL unless @mangled demangles */
	return fn ? fn(mangled, NULL, NULL, NULL) : NULL;
}

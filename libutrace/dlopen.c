// SPDX-License-Identifier: MIT
/*
 * dlopen and dlclose, interposed: the sites of what a dlopen brings in are
 * found (and the filters applied to them) before it returns, and dlclose
 * forgets what went away.
 *
 * The dynamic loader looks at dlopen's return address to learn which object
 * called it: a bare name is searched for in that object's RPATH/RUNPATH, a
 * "$ORIGIN" in the name is that object's directory, and the new object joins
 * its namespace.  Called from here, the caller would be libutrace.so and a
 * program finding its plugins through its RUNPATH would fail to load them.
 * So the real dlopen is entered with a return address inside the caller's
 * object (a `ret` there, which comes back here): the loader decides exactly
 * as if the program had called it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>

#include "common/procevents.h"
#include "libutrace/internal.h"

typedef void *(*dlopen_fn)(const char *, int);

/* The real dlopen called with @caller's object as its caller, where possible. */
static void *open_as(dlopen_fn real, const char *file, int mode, const void *caller)
{
	struct link_map *lm = NULL;
	Dl_info info;
	void *ret = NULL;

	if (dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm &&
	    (uint64_t)info.dli_fbase != ut_rt.self_base)
		ret = ut_arch_object_ret(lm->l_ld, lm->l_addr);
	return ret ? ut_arch_call_returning_via(real, ret, file, mode) : real(file, mode);
}

/* utrace:dlopen or utrace:dlclose of handle @h (libutrace/procevents.c): its path and base. */
static void dl_event(unsigned id, void *h, const char *file, int mode)
{
	struct link_map *lm = NULL;
	struct ut_pev e;
	uint64_t base;

	if (!ut_procev_on(id) || dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
		return;
	base = lm->l_addr;
	ut_pev_init(&e, id);
	ut_pev_str(&e, 8, lm->l_name && lm->l_name[0] ? lm->l_name : file ? file : "");
	if (id == UT_PEV_DLOPEN)
		ut_pev_put(&e, 12, &mode, 4);
	ut_pev_put(&e, 16, &base, 8);
	ut_pev_emit(&e);
}

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	static dlopen_fn real;
	void *h;

	if (!real)
		real = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
	h = open_as(real, file, mode, __builtin_return_address(0));
	if (h && ut_rt.ready) {
		int saved = errno;

		ut_quiet++;
		pthread_mutex_lock(&ut_rt.lock);
		ut_sites_scan_all();
		ut_update_locked();
		pthread_mutex_unlock(&ut_rt.lock);
		ut_quiet--;
		dl_event(UT_PEV_DLOPEN, h, file, mode);
		errno = saved;
	}
	return h;
}

__attribute__((visibility("default"))) int dlclose(void *h)
{
	static int (*real)(void *);
	int ret;

	if (!real)
		real = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (ut_rt.ready)
		dl_event(UT_PEV_DLCLOSE, h, NULL, 0);
	ret = real(h);
	if (ut_rt.ready) {
		int saved = errno;

		ut_quiet++;
		pthread_mutex_lock(&ut_rt.lock);
		ut_sites_forget_unloaded();
		ut_update_locked();
		pthread_mutex_unlock(&ut_rt.lock);
		ut_quiet--;
		errno = saved;
	}
	return ret;
}

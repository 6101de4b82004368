// SPDX-License-Identifier: MIT
/*
 * Which sites are on: the tracer and the filters (set_ftrace_filter,
 * set_ftrace_notrace, through common/filter.c) decide each site's wanted
 * state; ut_patch_apply() then makes the bytes agree.  The filter engine's
 * function table grows in step with ut_rt.funcs (same indexes).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/filter.h"
#include "libutrace/internal.h"

static struct ut_ftable *table;
static struct ut_fset *filter, *notrace;
static bool configured;

/* Bring the filter table up to date with ut_rt.funcs; new modules get their pending entries. */
static int sync_table(void)
{
	size_t have;

	if (!table) {
		table = ut_ftable_new();
		filter = table ? ut_fset_new(table, UT_FSET_FILTER) : NULL;
		notrace = table ? ut_fset_new(table, UT_FSET_NOTRACE) : NULL;
		if (!filter || !notrace)
			return -ENOMEM;
	}
	have = ut_ftable_size(table);
	while (have < ut_rt.nr_funcs) {
		const struct ut_func *f = &ut_rt.funcs[have];

		if (ut_ftable_add(table, f->name, f->module) < 0)
			return -ENOMEM;
		if (f->module && (have == 0 || ut_rt.funcs[have - 1].mod != f->mod)) {
			ut_fset_apply_pending(filter, f->module);
			ut_fset_apply_pending(notrace, f->module);
		}
		have++;
	}
	return 0;
}

static int set_list(struct ut_fset *s, const char *text, const char *what, char *err,
		    size_t errlen)
{
	char bad[128];
	int ret;

	if (!text)
		return 0;
	ret = ut_fset_set(s, text, true, bad, sizeof(bad));
	if (ret == -EINVAL)
		snprintf(err, errlen, "%s: '%s' matches no traceable function", what, bad);
	else if (ret)
		snprintf(err, errlen, "%s: %s", what, strerror(-ret));
	return ret;
}

/**
 * ut_select_apply - recompute every site's wanted state
 *
 * The filter texts of the configuration are parsed once (at start-up);
 * later calls (after dlopen) only extend the table and re-decide.
 * Return: 0, or a negative errno with a message in @err.
 */
int ut_select_apply(char *err, size_t errlen)
{
	int ret = sync_table();

	if (ret) {
		snprintf(err, errlen, "filters: %s", strerror(-ret));
		return ret;
	}
	if (!configured) {
		configured = true;
		ret = set_list(filter, ut_rt.cfg.filter, "set_ftrace_filter", err, errlen);
		if (!ret)
			ret = set_list(notrace, ut_rt.cfg.notrace, "set_ftrace_notrace", err, errlen);
	}
	for (uint32_t i = 0; i < ut_rt.nr_funcs; i++) {
		struct ut_func *f = &ut_rt.funcs[i];
		struct ut_module *m = ut_rt.mods[f->mod];
		bool on;

		if (!m || !m->alive || !m->sites)
			continue;
		on = ut_rt.cfg.tracer == UT_TRACER_FUNCTION && !ut_rt.sites_off &&
		     ut_fset_traced(filter, notrace, i);
		m->sites[f->site].want = on ? UT_SITE_FUNC : UT_SITE_OFF;
	}
	return ret;
}

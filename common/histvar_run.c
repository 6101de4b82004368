// SPDX-License-Identifier: MIT
/*
 * What a hist trigger's variables do at a hit (common/histvar_run.h): the
 * rules the process and the mount share.
 */
#include <string.h>

#include "common/histvar_run.h"

int ut_histvar_source(const struct ut_evtrig *self, const struct ut_evtrig *o, const char *sys,
		      const char *evt, const char *name)
{
	const struct ut_hist_var *v = o->cmd == UT_ET_HIST ? ut_histvar_find(&o->hv, name) : NULL;

	if (!v)
		return -1;
	for (uint8_t i = 0; i < self->hv.nactions; i++) {
		const struct ut_hist_action *m = &self->hv.act[i];

		/* onmatch(SYS.EVT): the variables of the matched event's triggers */
		if (m->handler == UT_HH_ONMATCH && (strcmp(sys, m->sys) != 0 || strcmp(evt, m->evt) != 0))
			return -1;
	}
	return (int)(v - o->hv.vars);
}

bool ut_histvar_values(const struct ut_hist_defs *d, ut_histvar_operand_fn fn, void *ctx,
		       uint64_t *val)
{
	for (uint8_t i = 0; i < d->nvars && i < UT_HIST_MAX_VARS; i++) {
		const struct ut_hist_var *v = &d->vars[i];
		uint64_t xs[UT_HIST_MAX_OPS] = {0};

		for (uint8_t j = 0; j < v->nops && j < UT_HIST_MAX_OPS; j++) {
			const struct ut_hist_operand *o = &v->op[j];
			const struct ut_hist_var *own =
			    o->kind == UT_HO_VAR ? ut_histvar_find(d, o->name) : NULL;

			if (o->kind == UT_HO_CONST)
				xs[j] = o->k;
			else if (own && own < v) /* an earlier variable of the trigger's own */
				xs[j] = val[own - d->vars];
			else if (!fn(ctx, i, j, &xs[j]))
				return false;
		}
		val[i] = ut_histvar_eval(v->op, xs, v->nops);
		if (v->neg)
			val[i] = -val[i];
	}
	return true;
}

void ut_hist_var_put(struct ut_hist_vars *v, unsigned idx, uint64_t x)
{
	if (idx >= UT_HIST_VARS)
		return;
	__atomic_store_n(&v->v[idx], x, __ATOMIC_RELAXED);
	__atomic_fetch_or(&v->set, 1ULL << idx, __ATOMIC_RELEASE); /* the value before its bit */
}

bool ut_hist_var_take(struct ut_hist_vars *v, unsigned idx, uint64_t *x)
{
	uint64_t bit = 1ULL << idx;

	/* the kernel's tracing_map_read_var_once: one reader gets it, once */
	if (idx >= UT_HIST_VARS || !(__atomic_fetch_and(&v->set, ~bit, __ATOMIC_ACQUIRE) & bit))
		return false;
	*x = __atomic_load_n(&v->v[idx], __ATOMIC_RELAXED);
	return true;
}

// SPDX-License-Identifier: MIT
/* USDT probe events in a trace.dat being written (reader/tracedat_probes.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/tracedat_probes.h"

uint16_t td_probe_id(struct td_probe_ids *ids, uint64_t pc, uint32_t nargs)
{
	size_t lo = 0, hi = ids->n;
	struct td_probe_id *v;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids->v[mid].pc == pc)
			return ids->v[mid].id;
		if (ids->v[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (ids->n >= UT_EV_PROBE_MAX_IDS || nargs > UT_USDT_MAX_ARGS)
		return 0;
	v = realloc(ids->v, (ids->n + 1) * sizeof(*v));
	if (!v)
		return 0;
	ids->v = v;
	memmove(v + lo + 1, v + lo, (ids->n - lo) * sizeof(*v));
	v[lo] = (struct td_probe_id){.pc = pc, .id = (uint16_t)(UT_EV_PROBE_FIRST_ID + ids->n),
				     .nargs = (uint8_t)nargs};
	ids->n++;
	return v[lo].id;
}

/* The format of @e: named from @tab, else after its address. */
static void describe(const struct td_probe_id *e, const struct ut_probetab *tab, struct ut_evfmt *f)
{
	const struct ut_evfmt *known = ut_probetab_find(tab, e->pc);

	if (known && known->nargs == e->nargs) {
		*f = *known;
	} else {
		memset(f, 0, sizeof(*f));
		snprintf(f->system, sizeof(f->system), "usdt");
		snprintf(f->name, sizeof(f->name), "probe_%llx", (unsigned long long)e->pc);
		f->nargs = e->nargs;
		for (unsigned i = 0; i < e->nargs; i++)
			f->size[i] = 8;
	}
	f->id = e->id;
}

/* The system named @name in @v, added if new; NULL on ENOMEM. */
static struct td_probe_system *system_of(struct td_probe_system **v, size_t *n, const char *name)
{
	struct td_probe_system *nv;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name))
			return &(*v)[i];
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	*v = nv;
	memset(&nv[*n], 0, sizeof(nv[*n]));
	snprintf(nv[*n].name, sizeof(nv[*n].name), "%s", name);
	return &nv[(*n)++];
}

int td_probe_systems(const struct td_probe_ids *ids, const struct ut_probetab *tab,
		     struct td_probe_system **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	/* in id order, as they were met */
	for (uint16_t id = UT_EV_PROBE_FIRST_ID; id < UT_EV_PROBE_FIRST_ID + ids->n; id++) {
		const struct td_probe_id *e = NULL;
		struct td_probe_system *s;
		struct ut_evfmt f;
		char **nt, *text;

		for (size_t i = 0; i < ids->n && !e; i++)
			if (ids->v[i].id == id)
				e = &ids->v[i];
		if (!e)
			continue;
		describe(e, tab, &f);
		s = system_of(out, n, f.system);
		text = s ? ut_evfmt_text(&f) : NULL;
		nt = text ? realloc(s->texts, (s->n + 1) * sizeof(*nt)) : NULL;
		if (!nt) {
			free(text);
			td_probe_systems_free(*out, *n);
			*out = NULL;
			*n = 0;
			return -ENOMEM;
		}
		s->texts = nt;
		s->texts[s->n++] = text;
	}
	return 0;
}

void td_probe_systems_free(struct td_probe_system *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < v[i].n; k++)
			free(v[i].texts[k]);
		free(v[i].texts);
	}
	free(v);
}

void td_probe_ids_free(struct td_probe_ids *ids)
{
	free(ids->v);
	ids->v = NULL;
	ids->n = 0;
}

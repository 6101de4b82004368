// SPDX-License-Identifier: MIT
/*
 * The events a scope lists besides its processes' USDT probes: the
 * process events (common/procevents.h), which every traced process has,
 * as entries of the same table (tracefs/events.c lists, enables and
 * describes them all alike).  An entry of a process event has no address
 * and its fixed id; ftrace:print (trace_marker) has a directory with its
 * format and id, but, as the kernel's, is always on: it is not in
 * available_events nor set_event and has no enable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/procev_fields.h"
#include "common/procevents.h"
#include "common/usdt_events.h"
#include "tracefs/tracefs.h"

int tfs_evlist_add(struct ut_probetab *t)
{
	size_t n;
	const struct ut_procev *v = ut_procev_all(&n);
	struct ut_probetab_ent *nv = realloc(t->v, (t->n + n) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	t->v = nv;
	for (size_t i = 0; i < n; i++) {
		struct ut_probetab_ent *e = &t->v[t->n++];

		memset(e, 0, sizeof(*e));
		/* with their fields, that event filters compile against (not ftrace:print's: the mount's) */
		if (v[i].id == UT_PEV_PRINT || !ut_procev_evfmt(&v[i], &e->f)) {
			snprintf(e->f.system, sizeof(e->f.system), "%s", v[i].system);
			snprintf(e->f.name, sizeof(e->f.name), "%s", v[i].name);
		}
		e->f.id = v[i].id;
	}
	return 0;
}

bool tfs_evlist_always_on(const char *system)
{
	return !strcmp(system, "ftrace");
}

char *tfs_evlist_format(const struct ut_evfmt *f)
{
	const struct ut_procev *e = ut_procev_find(f->system, f->name);

	return e ? ut_procev_format(e) : NULL;
}

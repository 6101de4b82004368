// SPDX-License-Identifier: MIT
/*
 * The USDT probes of the objects sessions loaded, for the readers that
 * name probe events (record's write-out, show, trace_pipe, the mount):
 * each session's "modules" file names the objects and where they were
 * loaded; their notes come from the files (common/usdt_events.h).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/control.h"
#include "common/synth.h"
#include "common/usdt_events.h"

/* The synthetic events the session's process defined (its "synth" file, libutrace/evtrigger.c). */
static void add_synth(struct ut_probetab *t, const char *dir)
{
	char path[PATH_MAX + 16], defs[16384];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/synth", dir);
	f = ut_live_fopen(path, O_RDONLY, "re");
	if (!f)
		return;
	n = fread(defs, 1, sizeof(defs) - 1, f);
	defs[n] = '\0';
	fclose(f);
	ut_synth_add_all(t, defs);
}

/* The "load BIAS MODULE PATH" lines of one session's "modules" file. */
static void add_session(struct ut_probetab *t, const char *dir)
{
	char path[PATH_MAX + 16], line[PATH_MAX + 320], file[PATH_MAX], mod[128];
	unsigned long long bias;
	FILE *f;

	snprintf(path, sizeof(path), "%s/modules", dir);
	f = ut_live_fopen(path, O_RDONLY, "re");
	/* an object in several sessions (forks) adds its probes again: lookups find one */
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "load %llx %127s %4095[^\n]", &bias, mod, file) == 3)
			ut_probetab_add_object(t, file, bias);
	if (f)
		fclose(f);
	add_synth(t, dir);
}

struct ut_probetab *ut_live_probes(const char *const *dirs, size_t n)
{
	struct ut_probetab *t = calloc(1, sizeof(*t));

	for (size_t i = 0; t && i < n; i++)
		add_session(t, dirs[i]);
	if (t)
		ut_probetab_finish(t);
	return t;
}

// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: event-trigger lines (common/evtrigger.c), what a user
 * writes to events/SYS/EVT/trigger and what a traced process reads back
 * from its configuration.  Every accepted trigger is checked against an
 * event of a few arguments, printed back in each of its texts, and its
 * configuration text must parse to the same trigger.  The same bytes are
 * a synthetic_events line too (common/synth.c): an accepted definition
 * lists back to one that parses to the same definition.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/evtrigger.h"
#include "common/synth.h"
#include "common/usdt_events.h"

static void roundtrip(const struct ut_evtrig *t)
{
	char a[600], b[600];
	struct ut_evtrig u;
	struct ut_evtrig_err err;

	ut_evtrig_config_text(t, a, sizeof(a));
	if (strlen(a) >= sizeof(a) - 1)
		return; /* truncated: nothing to compare */
	if (ut_evtrig_parse(a, strlen(a), &u, &err))
		abort();
	ut_evtrig_config_text(&u, b, sizeof(b));
	if (strcmp(a, b) != 0)
		abort();
}

/* Two definitions alike, member by member (the struct has padding). */
static bool same_def(const struct ut_synth_def *a, const struct ut_synth_def *b)
{
	return !strcmp(a->name, b->name) && a->nfields == b->nfields &&
	       !memcmp(a->type, b->type, sizeof(a->type)) &&
	       !memcmp(a->field, b->field, sizeof(a->field)) &&
	       !memcmp(a->size, b->size, sizeof(a->size)) &&
	       !memcmp(a->is_signed, b->is_signed, sizeof(a->is_signed)) &&
	       !memcmp(a->is_string, b->is_string, sizeof(a->is_string)) &&
	       !memcmp(a->strsize, b->strsize, sizeof(a->strsize));
}

/* The bytes as a synthetic_events line: a definition lists back to itself. */
static void synth(const char *s, size_t size)
{
	struct ut_synth_def d, e;
	struct ut_synth_err err;
	char buf[1024];
	bool rm;

	if (ut_synth_parse(s, size, &d, &rm, &err)) {
		if (!err.msg || err.pos > size)
			abort();
		return;
	}
	if (rm || d.nfields > UT_SYNTH_MAX_FIELDS)
		return;
	ut_synth_print(&d, buf, sizeof(buf));
	if (strlen(buf) >= sizeof(buf) - 1)
		return;
	buf[strcspn(buf, "\t")] = ' '; /* "NAME\tFIELDS" is "NAME FIELDS" */
	if (ut_synth_parse(buf, strlen(buf), &e, &rm, &err) || !same_def(&d, &e))
		abort();
	(void)ut_synth_pc(d.name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;
	struct ut_evfmt fmt = {.nargs = 3, .size = {8, 4, 1}, .is_signed = {0, 1, 0}};
	char *s = malloc(size + 1), buf[600];

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!ut_evtrig_parse(s, size, &t, &err)) {
		if (t.nkeys > UT_HIST_MAX_KEYS || t.nvals > UT_HIST_MAX_VALS ||
		    t.nsort > UT_HIST_MAX_SORT)
			abort();
		ut_evtrig_check(&t, &fmt, s, &err);
		ut_evtrig_check(&t, NULL, s, &err);
		ut_evtrig_print(&t, t.count, buf, sizeof(buf));
		ut_evtrig_ident(&t, buf, sizeof(buf));
		if (!t.remove)
			roundtrip(&t);
		for (uint8_t i = 0; i < t.nkeys; i++)
			ut_hist_key_value(&t.keys[i], size);
	} else if (!err.msg || err.pos > size) {
		abort();
	}
	synth(s, size);
	free(s);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * available_events and set_event: the USDT probes of the scope's processes
 * as the kernel lists its trace events ("system:event", the provider as
 * the system), with the process events every process has
 * (tracefs/evlist.c), and the ones enabled.  set_event takes the kernel's words:
 * `provider:name`, globs in either part, `name` alone, `provider:*`,
 * `!word` to disable; O_TRUNC replaces the set, `>>` adds.  A word naming
 * no probe of the scope's processes is EINVAL and changes nothing, with
 * the reason in error_log.  The words are the configuration's `events`
 * (common/config.h), which each process applies (libutrace/usdt.c).
 *
 * events/PROVIDER/NAME/ has each event's enable (0/1), format and id;
 * events/PROVIDER/enable and events/enable read 0, 1 or X (mixed) and
 * set every event below them.  An event's id is its place in the sorted
 * list from UT_EV_PROBE_FIRST_ID (a trace.dat numbers them as they come).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/control.h"
#include "common/ring_headers.h"
#include "common/usdt_events.h"
#include "tracefs/tracefs.h"

struct ut_probetab *tfs_pid_probes(int32_t pid)
{
	struct ut_live_sess *v = NULL;
	long n = ut_live_list(tfs_rundir, &v);
	const char **dirs = n > 0 ? calloc((size_t)n, sizeof(*dirs)) : NULL;
	struct ut_probetab *t;
	size_t k = 0;

	for (long i = 0; dirs && i < n; i++)
		if (!v[i].markers && (pid ? v[i].pid == pid
					  : v[i].alive || tfs_sess_has_triggers(v[i].dir)))
			dirs[k++] = v[i].dir;
	t = ut_live_probes(dirs, k);
	if (t && (tfs_evlist_add(t) || tfs_synth_add(t))) { /* the process and synthetic events */
		ut_probetab_free(t);
		t = NULL;
	}
	free(dirs);
	if (n > 0)
		free(v);
	return t;
}

struct ut_probetab *tfs_scope_probes(const struct tfs_scope *sc)
{
	return tfs_pid_probes(sc->pid);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The probes' "provider:name" texts, sorted, each once; NULL if none (or ENOMEM). */
static char **event_names(const struct ut_probetab *t, size_t *n)
{
	char **v = t && t->n ? calloc(t->n, sizeof(*v)) : NULL;
	size_t k = 0;

	*n = 0;
	for (size_t i = 0; v && i < t->n; i++)
		if (asprintf(&v[k], "%s:%s", t->v[i].f.system, t->v[i].f.name) >= 0)
			k++;
	if (!v)
		return NULL;
	qsort(v, k, sizeof(*v), cmp_name);
	for (size_t i = 0; i < k; i++) {
		if (*n && !strcmp(v[*n - 1], v[i])) {
			free(v[i]);
			continue;
		}
		v[(*n)++] = v[i];
	}
	return v;
}

static void names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Print the events of the scope's probes that @events selects (all of
 * them when @all).
 */
static int show_events(struct tfs_req *r, FILE *f, const char *events, bool all)
{
	struct ut_probetab *t = tfs_scope_probes(r->sc);
	size_t n;
	char **v = event_names(t, &n);

	for (size_t i = 0; i < n; i++) {
		char *colon = strchr(v[i], ':');

		*colon = '\0';
		if (tfs_evlist_always_on(v[i]))
			continue;
		if (all || ut_usdt_selected(events, v[i], colon + 1))
			fprintf(f, "%s:%s\n", v[i], colon + 1);
	}
	names_free(v, n);
	ut_probetab_free(t);
	return 0;
}

int tfs_show_available_events(struct tfs_req *r, FILE *f)
{
	return show_events(r, f, NULL, true);
}

int tfs_show_set_event(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	int ret = tfs_scope_config(r->sc, &c);

	if (!ret)
		ret = show_events(r, f, c.events, false);
	ut_cfg_free(&c);
	return ret;
}

struct events_arg {
	const char *words;
	bool append;
};

static int edit_events(struct ut_cfg *c, const void *p)
{
	const struct events_arg *a = p;

	if (!a->append) {
		free(c->events);
		c->events = NULL;
	}
	return ut_cfg_set_words(&c->events, a->words, true);
}

/* The first word of @words naming no event of @t, into @bad; false if none. */
static bool unknown_word(const struct ut_probetab *t, const char *words, char *bad, size_t len)
{
	const char *w = words;

	for (;;) {
		size_t n = strcspn(w += strspn(w, " \t\n"), " \t\n");
		bool neg = *w == '!', found = false;

		if (!*w)
			return false;
		for (size_t i = 0; t && i < t->n && !found; i++)
			found = !tfs_evlist_always_on(t->v[i].f.system) &&
				ut_usdt_word_matches(w + neg, n - neg, t->v[i].f.system,
						     t->v[i].f.name);
		if (!found) {
			snprintf(bad, len, "%.*s", (int)(n - neg), w + neg);
			return true;
		}
		w += n;
	}
}

int tfs_store_set_event(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct events_arg a = {.append = append};
	struct ut_probetab *t;
	char *words, bad[128], msg[256];
	int ret = 0;

	if (memchr(buf, '\0', len))
		return -EINVAL;
	words = strndup(buf, len);
	if (!words)
		return -ENOMEM;
	a.words = words;
	t = tfs_scope_probes(r->sc);
	if (unknown_word(t, words, bad, sizeof(bad))) {
		snprintf(msg, sizeof(msg), "set_event: '%s' names no event (no USDT probe of the "
			 "traced processes: see available_events)", bad);
		tfs_errlog_add(r->sc, msg, words);
		ret = -EINVAL;
	}
	ut_probetab_free(t);
	if (!ret)
		ret = tfs_scope_edit(r->sc, edit_events, &a, false, words);
	free(words);
	return ret;
}

/* ------------------------------------------------------------------ */
/* events/                                                             */
/* ------------------------------------------------------------------ */

/* Whether event "provider:name" @ev is in the words' selection. */
static bool ev_selected(const char *events, const char *ev)
{
	char sys[64];
	const char *colon = strchr(ev, ':');

	if (!colon || (size_t)(colon - ev) >= sizeof(sys))
		return false;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev), ev);
	return ut_usdt_selected(events, sys, colon + 1);
}

/* Whether @ev ("provider:name") is under @under ("": all, "P": provider P, "P:N": itself). */
static bool ev_under(const char *ev, const char *under)
{
	size_t n = strlen(under);

	return !n || (!strncmp(ev, under, n) && (ev[n] == ':' || !ev[n]));
}

bool tfs_event_exists(int32_t pid, const char *sys, const char *name)
{
	struct ut_probetab *t = tfs_pid_probes(pid);
	bool yes = false;

	for (size_t i = 0; t && i < t->n && !yes; i++)
		yes = !strcmp(t->v[i].f.system, sys) && (!name || !strcmp(t->v[i].f.name, name));
	ut_probetab_free(t);
	return yes;
}

void tfs_event_list(int32_t pid, const char *sys, tfs_fill_fn fill, void *ctx)
{
	struct ut_probetab *t = tfs_pid_probes(pid);
	size_t n;
	char **v = event_names(t, &n);

	for (size_t i = 0; i < n; i++) {
		char *colon = strchr(v[i], ':');

		*colon = '\0';
		if (!sys && (!i || strcmp(v[i - 1], v[i]) != 0))
			fill(ctx, v[i], true, 0750);
		else if (sys && !strcmp(v[i], sys))
			fill(ctx, colon + 1, true, 0750);
	}
	names_free(v, n);
	ut_probetab_free(t);
}

/* enable: 1 if every event under the file is enabled, 0 if none, else X; an event's with `*` in soft mode. */
static int show_enable(struct tfs_req *r, FILE *f)
{
	struct ut_probetab *t = tfs_scope_probes(r->sc);
	size_t n, on = 0, all = 0;
	char **v = event_names(t, &n);
	struct ut_cfg c;
	int digit;
	int ret = tfs_scope_config(r->sc, &c);

	for (size_t i = 0; !ret && i < n; i++) {
		if (!ev_under(v[i], r->ev) || !strncmp(v[i], "ftrace:", 7))
			continue;
		all++;
		on += ev_selected(c.events, v[i]);
	}
	if (!ret && strchr(r->ev, ':') && tfs_evtrig_soft_mode(r, on > 0, &digit))
		fprintf(f, "%d*\n", digit); /* triggers: the kernel's soft mode */
	else if (!ret)
		fputs(!on ? "0\n" : on == all ? "1\n" : "X\n", f);
	ut_cfg_free(&c);
	names_free(v, n);
	ut_probetab_free(t);
	return ret;
}

static int store_enable(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct events_arg a = {.append = true};
	unsigned long long v;
	char word[160];

	(void)append;
	if (tfs_parse_ulong(buf, len, 9, &v) || v > 1)
		return -EINVAL; /* 0 or 1, as the kernel's enable */
	if (!r->ev[0]) { /* events/enable: all of them, or none */
		a.append = false;
		a.words = v ? "*:*" : "";
	} else {
		snprintf(word, sizeof(word), "%s%s%s", v ? "" : "!", r->ev,
			 strchr(r->ev, ':') ? "" : ":*");
		a.words = word;
	}
	return tfs_scope_edit(r->sc, edit_events, &a, false, v ? "1" : "0");
}

/* The event's format, with the id the mount gives it (its place in the sorted list). */
static int show_format(struct tfs_req *r, FILE *f, bool id_only)
{
	struct ut_probetab *t = tfs_scope_probes(r->sc);
	size_t n, k;
	char **v = event_names(t, &n), *text = NULL;
	struct ut_evfmt fmt;

	for (k = 0; k < n && strcmp(v[k], r->ev) != 0; k++)
		;
	for (size_t i = 0; k < n && t && i < t->n; i++) {
		if (!ev_under(r->ev, t->v[i].f.system) ||
		    strcmp(t->v[i].f.name, strchr(r->ev, ':') + 1) != 0)
			continue;
		fmt = t->v[i].f;
		if (!fmt.id) /* a probe: its place in the list; a process event has its own */
			fmt.id = (uint16_t)(UT_EV_PROBE_FIRST_ID + k);
		if (id_only)
			fprintf(f, "%u\n", fmt.id);
		else if ((text = t->v[i].f.id ? tfs_evlist_format(&fmt) : ut_evfmt_text(&fmt)))
			fputs(text, f);
		break;
	}
	free(text);
	names_free(v, n);
	ut_probetab_free(t);
	return k < n ? 0 : -ENOENT;
}

static int show_event_format(struct tfs_req *r, FILE *f)
{
	return show_format(r, f, false);
}

static int show_event_id(struct tfs_req *r, FILE *f)
{
	return show_format(r, f, true);
}

static int show_header_page(struct tfs_req *r, FILE *f)
{
	(void)r;
	fwrite(ut_header_page, 1, ut_header_page_len, f);
	return 0;
}

static int show_header_event(struct tfs_req *r, FILE *f)
{
	(void)r;
	fwrite(ut_header_event, 1, ut_header_event_len, f);
	return 0;
}

#define EV_FILES (TFS_TOP | TFS_PROC)

const struct tfs_file tfs_events_files[] = {
	{"enable", 0640, EV_FILES, show_enable, store_enable, NULL, 0},
	{"header_event", 0440, EV_FILES, show_header_event, NULL, NULL, 0},
	{"header_page", 0440, EV_FILES, show_header_page, NULL, NULL, 0},
};
const size_t tfs_nr_events_files = sizeof(tfs_events_files) / sizeof(tfs_events_files[0]);

const struct tfs_file tfs_evsys_files[] = {
	{"enable", 0640, EV_FILES, show_enable, store_enable, NULL, 0},
	{"filter", 0640, EV_FILES, tfs_show_evsys_filter, tfs_store_evsys_filter, NULL, 0},
};
const size_t tfs_nr_evsys_files = sizeof(tfs_evsys_files) / sizeof(tfs_evsys_files[0]);

const struct tfs_file tfs_event_files[] = {
	{"enable", 0640, EV_FILES, show_enable, store_enable, NULL, 0},
	{"filter", 0640, EV_FILES, tfs_show_event_filter, tfs_store_event_filter, NULL, 0},
	{"format", 0440, EV_FILES, show_event_format, NULL, NULL, 0},
	{"hist", 0440, EV_FILES, tfs_show_event_hist, NULL, NULL, 0},
	{"id", 0440, EV_FILES, show_event_id, NULL, NULL, 0},
	{"trigger", 0640, EV_FILES, tfs_show_event_trigger, tfs_store_event_trigger, NULL, 0},
};
const size_t tfs_nr_event_files = sizeof(tfs_event_files) / sizeof(tfs_event_files[0]);

/* events/ftrace/print/: the kernel's are always on, without enable; triggers as any event's */
const struct tfs_file tfs_ftevent_files[] = {
	{"filter", 0640, EV_FILES, tfs_show_event_filter, tfs_store_event_filter, NULL, 0},
	{"format", 0440, EV_FILES, show_event_format, NULL, NULL, 0},
	{"hist", 0440, EV_FILES, tfs_show_event_hist, NULL, NULL, 0},
	{"id", 0440, EV_FILES, show_event_id, NULL, NULL, 0},
	{"trigger", 0640, EV_FILES, tfs_show_event_trigger, tfs_store_event_trigger, NULL, 0},
};
const size_t tfs_nr_ftevent_files = sizeof(tfs_ftevent_files) / sizeof(tfs_ftevent_files[0]);

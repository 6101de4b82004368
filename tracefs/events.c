// SPDX-License-Identifier: MIT
/*
 * available_events and set_event: the USDT probes of the scope's processes
 * as the kernel lists its trace events ("system:event", the provider as
 * the system), and the ones enabled.  set_event takes the kernel's words:
 * `provider:name`, globs in either part, `name` alone, `provider:*`,
 * `!word` to disable; O_TRUNC replaces the set, `>>` adds.  A word naming
 * no probe of the scope's processes is EINVAL and changes nothing, with
 * the reason in error_log.  The words are the configuration's `events`
 * (common/config.h), which each process applies (libutrace/usdt.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/control.h"
#include "common/usdt_events.h"
#include "tracefs/tracefs.h"

/* The probes of the scope's processes: every live one (top), or processes/PID. */
static struct ut_probetab *scope_probes(const struct tfs_scope *sc)
{
	struct ut_live_sess *v = NULL;
	long n = ut_live_list(tfs_rundir, &v);
	const char **dirs = n > 0 ? calloc((size_t)n, sizeof(*dirs)) : NULL;
	struct ut_probetab *t;
	size_t k = 0;

	for (long i = 0; dirs && i < n; i++)
		if (!v[i].markers && (sc->pid ? v[i].pid == sc->pid : v[i].alive))
			dirs[k++] = v[i].dir;
	t = ut_live_probes(dirs, k);
	free(dirs);
	if (n > 0)
		free(v);
	return t;
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
	struct ut_probetab *t = scope_probes(r->sc);
	size_t n;
	char **v = event_names(t, &n);

	for (size_t i = 0; i < n; i++) {
		char *colon = strchr(v[i], ':');

		*colon = '\0';
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
			found = ut_usdt_word_matches(w + neg, n - neg, t->v[i].f.system,
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
	t = scope_probes(r->sc);
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

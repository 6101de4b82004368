// SPDX-License-Identifier: MIT
/* set_event words checked against objects' USDT probes (cli/usdt_words.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/usdt_words.h"
#include "common/evtrigger.h"
#include "common/synth.h"
#include "common/procev_fields.h"
#include "common/procevents.h"
#include "common/usdt_events.h"
#include "common/usdt.h"

/* One object's probes read once for all the words. */
struct probes {
	struct ut_usdt_list *v;
	size_t n;
};

static bool names_one(const struct probes *p, const char *w, size_t n)
{
	if (ut_procev_word_matches(w, n)) /* a process event: every process has them */
		return true;
	for (size_t i = 0; i < p->n; i++)
		for (size_t k = 0; k < p->v[i].n; k++)
			if (ut_usdt_word_matches(w, n, p->v[i].v[k].provider, p->v[i].v[k].name))
				return true;
	return false;
}

/* Whether the provider part of `provider:name` word @w names a provider of @p. */
static bool provider_known(const struct probes *p, const char *w, size_t n)
{
	const char *colon = memchr(w, ':', n);

	/* "provider:*" matches any of its probes */
	return colon && names_one(p, w, (size_t)(colon - w + 1));
}

enum ut_usdt_word ut_usdt_check_words(const struct ut_objlist *objs, const char *events,
				      char *word, size_t len)
{
	struct ut_usdt_list *lists = calloc(objs->n + 1, sizeof(*lists));
	struct probes p = {lists, objs->n};
	const char *w = events ? events : "";
	enum ut_usdt_word worst = UT_USDT_WORD_OK;

	if (!lists)
		return UT_USDT_WORD_OK; /* cannot tell: the processes decide */
	for (size_t i = 0; i < objs->n; i++)
		ut_usdt_read_file(objs->v[i].path, &lists[i]);
	while (worst != UT_USDT_WORD_UNKNOWN) {
		size_t n = strcspn(w += strspn(w, " "), " ");
		bool neg = *w == '!';

		if (!*w)
			break;
		if (!names_one(&p, w + neg, n - neg)) {
			enum ut_usdt_word k = provider_known(&p, w + neg, n - neg)
						      ? UT_USDT_WORD_UNKNOWN
						      : UT_USDT_WORD_ELSEWHERE;

			if (k > worst) {
				snprintf(word, len, "%.*s", (int)(n - neg), w + neg);
				worst = k;
			}
		}
		w += n;
	}
	for (size_t i = 0; i < objs->n; i++)
		ut_usdt_list_free(&lists[i]);
	free(lists);
	return worst;
}

/* The event format of probe @sys:@evt in @objs' files (or of a process event) into @f. */
static bool probe_format(const struct ut_objlist *objs, const char *sys, const char *evt,
			 struct ut_evfmt *f)
{
	bool found = ut_procev_evfmt_named(sys, evt, f);

	for (size_t i = 0; i < objs->n && !found; i++) {
		struct ut_usdt_list l = {0};

		ut_usdt_read_file(objs->v[i].path, &l);
		for (size_t k = 0; k < l.n && !found; k++) {
			const struct ut_usdt_probe *p = &l.v[k];

			if (strcmp(p->provider, sys) != 0 || strcmp(p->name, evt) != 0 || p->nargs < 0)
				continue;
			ut_evfmt_from_probe(f, p); /* with the names a description gives */
			found = true;
		}
		ut_usdt_list_free(&l);
	}
	return found;
}

/* @t's onmatch().trace() actions against the synthetic events @synth defines; 0 or -2. */
static int check_actions(const struct ut_evtrig *t, const char *synth, const char *line, size_t n,
			 char *why, size_t len)
{
	for (uint8_t i = 0; i < t->hv.nactions; i++) {
		const struct ut_hist_action *a = &t->hv.act[i];
		struct ut_synth_def d;
		const char *msg = NULL;

		if (a->action != UT_HA_TRACE)
			continue;
		if (!ut_synth_find(synth, a->synth, &d))
			msg = "Couldn't find synthetic event";
		else if (d.nfields != a->nparams)
			msg = "Param count doesn't match synthetic event field count";
		if (msg) {
			snprintf(why, len, "'%.*s': %s", (int)n, line, msg);
			return -2;
		}
	}
	return 0;
}

/* A trigger on synthetic event @evt: its fields there (the definitions in @synth). */
static int check_synth_trigger(const struct ut_evtrig *t, const char *synth, const char *evt,
			       const char *text, const char *line, size_t n, char *why, size_t len)
{
	struct ut_synth_def d;
	struct ut_evtrig_err err;
	struct ut_evfmt fmt;

	if (!ut_synth_find(synth, evt, &d)) {
		snprintf(why, len, "'%.*s': no synthetic event %s (--synth)", (int)n, line, evt);
		return -2;
	}
	ut_synth_evfmt(&d, &fmt);
	if (ut_evtrig_check(t, &fmt, text, &err)) {
		snprintf(why, len, "'%.*s': %s", (int)n, line, err.msg);
		return -2;
	}
	return check_actions(t, synth, line, n, why, len);
}

/*
 * A trigger on ftrace:print, trace_marker's event: no probe, but the
 * kernel's fields (ip, buf, common_pid).  The program runs it on its own
 * utrace_marker(), the mount when processes/PID/trace_marker of the
 * process is written (tracefs/marker_trig.c, which keeps no hist
 * variables: refused for both).
 */
static int check_marker_trigger(const struct ut_evtrig *t, const char *text, const char *line,
				size_t n, char *why, size_t len)
{
	const struct ut_procev *e = ut_procev_find("ftrace", "print");
	struct ut_evtrig_err err;
	struct ut_evfmt fmt;

	if (e && ut_procev_evfmt(e, &fmt) && ut_evtrig_check(t, &fmt, text, &err)) {
		snprintf(why, len, "'%.*s': %s", (int)n, line, err.msg);
		return -2;
	}
	if (t->cmd == UT_ET_HIST && (t->hv.nvars || t->hv.nactions)) {
		snprintf(why, len, "'%.*s': ftrace:print's hist triggers take no variables or actions",
			 (int)n, line);
		return -2;
	}
	return 0;
}

/* One trigger line: its events named, its fields there.  As ut_usdt_check_triggers(). */
static int check_trigger(const struct ut_objlist *objs, const char *line, size_t n, char *why,
			 size_t len)
{
	const char *sp = memchr(line, ' ', n), *colon = memchr(line, ':', n);
	char words[4 * UT_EVTRIG_NAME_MAX + 8], sys[UT_EVTRIG_NAME_MAX], evt[UT_EVTRIG_NAME_MAX];
	char word[256];
	struct ut_evtrig t;
	struct ut_evtrig_err err;
	enum ut_usdt_word k;
	struct ut_evfmt fmt;

	if (!sp || !colon || colon > sp || ut_evtrig_parse(sp + 1, (size_t)(line + n - sp - 1), &t, &err))
		return 0; /* the option's parser refused it already */
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - line), line);
	snprintf(evt, sizeof(evt), "%.*s", (int)(sp - colon - 1), colon + 1);
	if (!strcmp(sys, UT_SYNTH_SYSTEM))
		return 0; /* no probe: ut_usdt_check_synth() checks it */
	if (!strcmp(sys, "ftrace") && !strcmp(evt, "print")) {
		int r = check_marker_trigger(&t, sp + 1, line, n, why, len);

		if (r || !t.sys[0])
			return r;
		snprintf(words, sizeof(words), "%s:%s", t.sys, t.evt); /* its target only */
	} else {
		snprintf(words, sizeof(words), "%s:%s %s%s%s", sys, evt, t.sys, t.sys[0] ? ":" : "",
			 t.evt);
	}
	k = ut_usdt_check_words(objs, words, word, sizeof(word));
	if (k != UT_USDT_WORD_OK) {
		snprintf(why, len, "'%s' names no USDT probe", word);
		return k == UT_USDT_WORD_UNKNOWN ? -1 : 1;
	}
	if (probe_format(objs, sys, evt, &fmt) && ut_evtrig_check(&t, &fmt, sp + 1, &err)) {
		snprintf(why, len, "'%.*s': %s", (int)n, line, err.msg);
		return -2;
	}
	return 0;
}

int ut_usdt_check_synth(const char *triggers, const char *synth, char *why, size_t len)
{
	for (const char *l = triggers; l && *l;
	     l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		size_t n = strcspn(l, "\n");
		const char *sp = memchr(l, ' ', n), *colon = memchr(l, ':', n);
		char evt[UT_EVTRIG_NAME_MAX];
		struct ut_evtrig t;
		struct ut_evtrig_err err;
		int r;

		if (!sp || !colon || colon > sp ||
		    ut_evtrig_parse(sp + 1, (size_t)(l + n - sp - 1), &t, &err))
			continue; /* the option's parser refused it already */
		snprintf(evt, sizeof(evt), "%.*s", (int)(sp - colon - 1), colon + 1);
		if ((size_t)(colon - l) == strlen(UT_SYNTH_SYSTEM) &&
		    !memcmp(l, UT_SYNTH_SYSTEM, (size_t)(colon - l)))
			r = check_synth_trigger(&t, synth, evt, sp + 1, l, n, why, len);
		else
			r = check_actions(&t, synth, l, n, why, len);
		if (r)
			return r;
	}
	return 0;
}

int ut_usdt_check_triggers(const struct ut_objlist *objs, const char *triggers, char *why,
			   size_t len)
{
	int worst = 0;

	for (const char *l = triggers; l && *l && worst >= 0; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		int r = check_trigger(objs, l, strcspn(l, "\n"), why, len);

		if (r < 0 || (r > 0 && !worst))
			worst = r; /* why: this line's */
	}
	return worst;
}

// SPDX-License-Identifier: MIT
/* -f FILTER after -e EVENT, compiled against the events' formats: probes, process events (cli/evfilter_opt.h). */
#include "cli/evfilter_opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/evfilter.h"
#include "common/procev_fields.h"
#include "common/procevents.h"
#include "common/usdt_events.h"

/* The -f options in the order given, each with the -e words before it. */
static struct pending {
	char *events, *text;
} *pend;
static size_t npend;

void ut_evf_opt_add(const char *events, const char *text)
{
	struct pending *v;

	if (!events)
		ut_usage_die("-f '%s': a filter is for the events of the -e before it "
			     "(-e EVENT -f FILTER)", text);
	v = realloc(pend, (npend + 1) * sizeof(*v));
	if (!v)
		ut_usage_die("out of memory");
	pend = v;
	pend[npend].events = strdup(events);
	pend[npend].text = strdup(text);
	if (!pend[npend].events || !pend[npend].text)
		ut_usage_die("out of memory");
	npend++;
}

bool ut_evf_opt_pending(void)
{
	return npend > 0;
}

/* Whether a word of @events (not a `!` one) names provider:name. */
static bool named(const char *events, const char *provider, const char *name)
{
	size_t n;

	for (const char *w = ut_cfg_word(events, &n); w; w = ut_cfg_word(w + n, &n))
		if (*w != '!' && ut_usdt_word_matches(w, n, provider, name))
			return true;
	return false;
}

/* Compile @p's filter for the event of format @fmt into @c; exit 2 with the kernel's report if it does not parse. */
static void compile_one(struct ut_cfg *c, const struct pending *p, const struct ut_evfmt *fmt)
{
	struct ut_evf_field fields[UT_USDT_MAX_ARGS];
	struct ut_evf_error e;
	struct ut_evf *f;
	char ev[160], report[1024], *word;
	size_t n;

	n = ut_evfmt_fields(fmt, fields);
	snprintf(ev, sizeof(ev), "%s:%s", fmt->system, fmt->name);
	if (ut_evf_parse(p->text, fields, n, &f, &e)) {
		ut_evf_error_file(report, sizeof(report), p->text, &e);
		report[strcspn(report, "") - 2] = '\0'; /* the file's empty last line and newline */
		ut_usage_die("-f: the filter of %s does not parse (Invalid argument):\n%s", ev,
			     report);
	}
	word = ut_evf_encode(f);
	ut_evf_free(f);
	if (!word || ut_cfg_set_evf(c, ev, word, p->text))
		ut_usage_die("out of memory");
	free(word);
}

/* The process events (sched:*, signal:*, utrace:*) @p's words name: each compiled; how many. */
static size_t compile_procevs(struct ut_cfg *c, const struct pending *p)
{
	size_t n, hits = 0;
	const struct ut_procev *v = ut_procev_all(&n);

	for (size_t i = 0; i < n; i++) {
		struct ut_evfmt fmt;

		if (v[i].id != UT_PEV_PRINT && named(p->events, v[i].system, v[i].name) &&
		    ut_procev_evfmt(&v[i], &fmt)) {
			compile_one(c, p, &fmt);
			hits++;
		}
	}
	return hits;
}

void ut_evf_opt_compile(struct ut_cfg *c, const struct ut_objlist *objs)
{
	for (size_t k = 0; k < npend; k++) {
		size_t hits = compile_procevs(c, &pend[k]);

		for (size_t i = 0; i < objs->n; i++) {
			struct ut_usdt_list l = {0};

			ut_usdt_read_file(objs->v[i].path, &l);
			for (size_t j = 0; j < l.n; j++) {
				if (l.v[j].nargs < 0 ||
				    !named(pend[k].events, l.v[j].provider, l.v[j].name))
					continue;
				struct ut_evfmt fmt;

				ut_evfmt_from_probe(&fmt, &l.v[j]);
				compile_one(c, &pend[k], &fmt);
				hits++;
			}
			ut_usdt_list_free(&l);
		}
		if (!hits)
			ut_usage_die("-f '%s': no probe that -e %s names is known before the "
				     "program runs, so the filter has no format to be read against",
				     pend[k].text, pend[k].events);
	}
}

// SPDX-License-Identifier: MIT
/* set_event words checked against objects' USDT probes (cli/usdt_words.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/usdt_words.h"
#include "common/procevents.h"
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

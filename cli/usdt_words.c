// SPDX-License-Identifier: MIT
/* set_event words checked against objects' USDT probes (cli/usdt_words.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/usdt_words.h"
#include "common/usdt.h"

/* One object's probes read once for all the words. */
struct probes {
	struct ut_usdt_list *v;
	size_t n;
};

static bool names_one(const struct probes *p, const char *w, size_t n)
{
	for (size_t i = 0; i < p->n; i++)
		for (size_t k = 0; k < p->v[i].n; k++)
			if (ut_usdt_word_matches(w, n, p->v[i].v[k].provider, p->v[i].v[k].name))
				return true;
	return false;
}

bool ut_usdt_unknown_word(const struct ut_objlist *objs, const char *events, char *word,
			  size_t len)
{
	struct ut_usdt_list *lists = calloc(objs->n + 1, sizeof(*lists));
	struct probes p = {lists, objs->n};
	const char *w = events ? events : "";
	bool unknown = false;

	if (!lists)
		return false; /* cannot tell: the processes decide */
	for (size_t i = 0; i < objs->n; i++)
		ut_usdt_read_file(objs->v[i].path, &lists[i]);
	while (!unknown) {
		size_t n;
		bool neg;

		w += strspn(w, " ");
		if (!*w)
			break;
		n = strcspn(w, " ");
		neg = *w == '!';
		if (!names_one(&p, w + neg, n - neg)) {
			snprintf(word, len, "%.*s", (int)(n - neg), w + neg);
			unknown = true;
		}
		w += n;
	}
	for (size_t i = 0; i < objs->n; i++)
		ut_usdt_list_free(&lists[i]);
	free(lists);
	return unknown;
}

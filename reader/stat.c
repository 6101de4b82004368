// SPDX-License-Identifier: MIT
/* The trace_stat printer (reader/stat.h). */
#include "reader/stat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/output/graph.h"

static struct ut_stat_row *row_of(struct ut_stat_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].name, name))
			return &t->rows[i];
	if (t->n == t->cap && ut_grow(&t->rows, &t->cap, sizeof(*t->rows), 64))
		return NULL;
	t->rows[t->n] = (struct ut_stat_row){.name = name};
	return &t->rows[t->n++];
}

static int by_time(const void *a, const void *b)
{
	const struct ut_stat_row *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	return strcmp(x->name, y->name);
}

#define WIDE_MAX 100

/* trace_stat/function: sorted by Time; s^2 as the kernel computes it. */
void ut_stat_print(FILE *f, struct ut_stat_table *t, uint64_t thresh_ns, struct ut_demangler *dm,
		   bool wide)
{
	int w = 30;

	/*
	 * wide: the column fits the longest name up to WIDE_MAX; a longer one
	 * (a template instance's can take a thousand characters) is printed
	 * whole and pushes its own row's numbers right.
	 */
	if (t->n)
		qsort(t->rows, t->n, sizeof(*t->rows), by_time);
	for (size_t i = 0; wide && i < t->n; i++) {
		size_t n = strlen(ut_demangle(dm, t->rows[i].name));

		if (n > (size_t)w)
			w = n > WIDE_MAX ? WIDE_MAX : (int)n;
	}
	fprintf(f, "  %-*s  %10s    Time            Avg             s^2\n", w, "Function", "Hit");
	fprintf(f, "  %-*s  %10s    ----            ---             ---\n", w, "--------", "---");
	for (size_t i = 0; i < t->n; i++) {
		const struct ut_stat_row *p = &t->rows[i];
		long double n = (long double)p->hits, avg = n > 0 ? p->time / n : 0, s2 = 0;

		if (thresh_ns && avg < (long double)thresh_ns)
			continue;
		if (p->hits > 1)
			s2 = (n * p->sq - p->time * p->time) / (n * (n - 1)) / 1000;
		if (s2 < 0)
			s2 = 0;
		fprintf(f, "  %-*.*s  %10llu    ", w, wide ? INT_MAX : w, ut_demangle(dm, p->name),
			(unsigned long long)p->hits);
		ut_graph_print_duration(f, (uint64_t)p->time);
		fputs("    ", f);
		ut_graph_print_duration(f, (uint64_t)avg);
		fputs("    ", f);
		ut_graph_print_duration(f, (uint64_t)s2);
		fputc('\n', f);
	}
}

void ut_stat_add(struct ut_stat_table *t, const char *name, uint64_t hits, long double time,
		 long double sq)
{
	struct ut_stat_row *p = row_of(t, name);

	if (p) {
		p->hits += hits;
		p->time += time;
		p->sq += sq;
	}
}

void ut_stat_free(struct ut_stat_table *t)
{
	free(t->rows);
	*t = (struct ut_stat_table){0};
}

// SPDX-License-Identifier: MIT
/*
 * read_trace: how many times each function was called, from a trace.dat or
 * from the running processes utrace traces -- a small program on the reader
 * library's public API alone (include/utrace/read.h, libutread).
 *
 *   read_trace FILE            a trace.dat (utrace record, extract)
 *   read_trace -l [PID]...     a snapshot of running processes' buffers
 *                              (the run-time directory: $UTRACE_DIR, else
 *                              /dev/shm/utrace-<uid>)
 *
 * Prints "COUNT FUNCTION" lines, the most called first, then a line with
 * the records lost if any were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "utrace/read.h"

struct count {
	const char *name;
	unsigned long n;
};

static struct count *counts;
static size_t ncounts;

/* Linear search: a demo over a few hundred names at most. */
static void add(const char *name)
{
	for (size_t i = 0; i < ncounts; i++)
		if (!strcmp(counts[i].name, name)) {
			counts[i].n++;
			return;
		}
	counts = realloc(counts, (ncounts + 1) * sizeof(*counts));
	if (!counts) {
		perror("read_trace");
		exit(1);
	}
	counts[ncounts++] = (struct count){name, 1};
}

static int by_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

static struct ut_reader *open_reader(int argc, char **argv, char *err, size_t len)
{
	static int32_t pids[64];
	char rundir[4096];
	const char *env = getenv("UTRACE_DIR");
	size_t n = 0;

	if (argc < 2 || strcmp(argv[1], "-l") != 0)
		return ut_reader_open_file(argv[1], NULL, err, len);
	for (int i = 2; i < argc && n < 64; i++)
		pids[n++] = atoi(argv[i]);
	if (env && *env)
		snprintf(rundir, sizeof(rundir), "%s", env);
	else
		snprintf(rundir, sizeof(rundir), "/dev/shm/utrace-%u", (unsigned)getuid());
	return ut_reader_open_live(rundir, n ? pids : NULL, n, NULL, err, len);
}

int main(int argc, char **argv)
{
	struct ut_reader *r;
	struct ut_record rec;
	unsigned long long lost = 0;
	char err[512];
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: read_trace FILE | read_trace -l [PID]...\n");
		return 2;
	}
	r = open_reader(argc, argv, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "read_trace: %s\n", err);
		return 1;
	}
	while ((ret = ut_reader_next(r, &rec, err, sizeof(err))) == 1) {
		lost += rec.lost;
		if (rec.kind == UT_RECORD_CALL)
			add(rec.func ? rec.func : "?");
	}
	qsort(counts, ncounts, sizeof(*counts), by_count);
	for (size_t i = 0; i < ncounts; i++)
		printf("%8lu %s\n", counts[i].n, counts[i].name);
	if (lost)
		printf("%llu records lost\n", lost);
	if (ret < 0)
		fprintf(stderr, "read_trace: %s\n", err);
	ut_reader_close(r);
	free(counts);
	return ret < 0;
}

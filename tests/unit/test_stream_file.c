// SPDX-License-Identifier: MIT
/*
 * A trace.dat read through the merged stream (reader/stream_file.c): each
 * of the file's CPUs is a source, so the one k-way merge orders them (the
 * lower CPU first at the same time), the stream's filters apply, and a
 * page's lost count comes with the next event of its CPU -- or goes with
 * it when the filter drops it.  ut_tracedat_next() gives the same order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/stream_file.h"
#include "reader/tracedat.h"
#include "ut_test.h"

static char path[64];

#define EV(t, tid, c) {.ts = (t), .pid = (tid), .cpu = (c), .type = UT_EV_FUNCTION, .ip = (t)}

/*
 * CPU 0: thread 1 at 10, 30 (5 lost before it), 40; CPU 1: thread 2 at 10,
 * 20, thread 3 at 30 (7 lost before it).
 */
static void write_file(void)
{
	static const int32_t pids[] = {1, 2, 3}, tgids[] = {1, 1, 1};
	static const char *const comms[] = {"a", "b", "c"};
	static const struct ut_event ev[] = {EV(10, 1, 0), EV(10, 2, 1), EV(20, 2, 1),
					     EV(30, 1, 0), EV(30, 3, 1), EV(40, 1, 0)};
	struct ut_tracedat_meta m = {.nr_cpus = 2, .nr_cmdlines = 3, .cmd_pids = pids,
				     .cmd_comms = comms, .nr_tgids = 3, .tgid_pids = pids,
				     .tgid_tgids = tgids};
	struct ut_tracedat_writer *w;
	char err[256];

	strcpy(path, "/tmp/ut_stream_file.XXXXXX");
	close(mkstemp(path));
	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);
	for (size_t i = 0; w && i < sizeof(ev) / sizeof(ev[0]); i++) {
		if (ev[i].ts == 30)
			ut_tracedat_lost(w, ev[i].cpu, ev[i].cpu ? 7 : 5);
		CHECK(!ut_tracedat_write(w, &ev[i]));
	}
	CHECK(!ut_tracedat_close(w));
}

struct got {
	uint64_t ts[8], lost[8];
	int32_t tid[8];
	size_t n;
};

/* The file through a stream keeping what @f lets through. */
static void read_all(const struct ut_stream_filter *f, struct got *g)
{
	char err[256];
	struct ut_tracedat *td = ut_tracedat_open(path, err, sizeof(err));
	struct ut_stream *st = ut_stream_new(f);
	struct ut_file_src file;
	struct ut_stream_item it;

	memset(g, 0, sizeof(*g));
	CHECK(td && st);
	if (!td || !st)
		return;
	CHECK(!ut_file_src_add(&file, td, st, true));
	while (g->n < 8 && ut_stream_next(st, &it) == 1) {
		CHECK(it.ev != NULL); /* a file's losses come with an event */
		g->ts[g->n] = it.ev ? it.ev->ts : 0;
		g->tid[g->n] = it.ev ? it.ev->pid : -1;
		g->lost[g->n++] = it.lost;
	}
	CHECK(!file.err);
	ut_file_src_free(&file);
	ut_stream_free(st);
	ut_tracedat_close_reader(td);
}

TEST(cpus_merged)
{
	static const int32_t tids[] = {1, 2, 2, 1, 3, 1};
	static const uint64_t lost[] = {0, 0, 0, 5, 7, 0};
	struct got g;

	read_all(NULL, &g);
	CHECK_EQ_INT(g.n, 6);
	for (size_t i = 0; i < 6; i++) {
		CHECK_EQ_INT(g.tid[i], tids[i]); /* at 10 and 30: CPU 0 first */
		CHECK(g.lost[i] == lost[i]);
	}
}

TEST(filters_and_losses)
{
	long one = 1, cpu1 = 1;
	struct ut_idlist t1 = {&one, 1}, c1 = {&cpu1, 1};
	struct ut_stream_filter by_tid = {.tids = &t1}, by_cpu = {.cpus = &c1},
				by_time = {.ts_min = 15, .ts_max = 30};
	struct got g;

	read_all(&by_tid, &g);
	CHECK_EQ_INT(g.n, 3);
	CHECK(g.lost[1] == 5); /* its own CPU's loss */
	read_all(&by_cpu, &g);
	CHECK_EQ_INT(g.n, 3);
	CHECK_EQ_INT(g.tid[0], 2);
	CHECK(g.lost[2] == 7);
	read_all(&by_time, &g); /* 20, 30, 30 */
	CHECK_EQ_INT(g.n, 3);
	CHECK_EQ_INT(g.tid[0], 2);
	CHECK_EQ_INT(g.tid[1], 1);
	CHECK(g.lost[1] == 5);
}

TEST(tracedat_next_same_order)
{
	static const int32_t tids[] = {1, 2, 2, 1, 3, 1};
	char err[256];
	struct ut_tracedat *td = ut_tracedat_open(path, err, sizeof(err));
	struct ut_event ev;
	uint64_t lost;
	size_t n = 0;

	CHECK(td);
	while (td && n < 6 && ut_tracedat_next(td, &ev, &lost, err, sizeof(err)) == 1) {
		CHECK_EQ_INT(ev.pid, tids[n]);
		CHECK(lost == (n == 3 ? 5 : n == 4 ? 7 : 0));
		n++;
	}
	CHECK_EQ_INT(n, 6);
	ut_tracedat_close_reader(td);
}

int main(void)
{
	write_file();
	RUN(cpus_merged);
	RUN(filters_and_losses);
	RUN(tracedat_next_same_order);
	unlink(path);
	TEST_EXIT();
}

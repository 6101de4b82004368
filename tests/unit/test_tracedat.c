// SPDX-License-Identifier: MIT
/*
 * trace.dat writer and reader: round trip, truncation, random corruption,
 * and (when trace-cmd is installed) what `trace-cmd report` makes of a file.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ut_test.h"
#include "reader/tracedat.h"
#include "common/ring_buffer.h"
#include "common/usdt_events.h"

#define NR_EV 1200
#define BIG_PRINT 3000
#define HUGE_PRINT 5000
/* A print string is cut to fit a page: 4056 payload bytes - 16 - NUL. */
#define MAX_PRINT 4039
/* Corrupted copies to try; raise with -DFUZZ_ITERS=... for a longer run. */
#ifndef FUZZ_ITERS
#define FUZZ_ITERS 400
#endif

struct gen {
	struct ut_event ev[NR_EV];
	uint64_t lost[NR_EV];         /* lost before ev[i] on its CPU */
	char str[NR_EV][64];
	uint64_t callers[NR_EV][12];
	char *big, *huge;
	size_t n;
};

static struct gen G;
static char dir[64];

static struct ut_symtab *make_syms(void)
{
	struct ut_symtab *st = ut_symtab_new();

	CHECK(st);
	CHECK(!ut_symtab_add(st, 0x401000, 0x100, "main", NULL));
	CHECK(!ut_symtab_add(st, 0x401100, 0x100, "parse_args", NULL));
	CHECK(!ut_symtab_add(st, 0x401200, 0x100, "compute", NULL));
	CHECK(!ut_symtab_add(st, 0x401300, 0x80, "helper", NULL));
	CHECK(!ut_symtab_add(st, 0x7f1200001000, 0x200, "inflate", "libz"));
	ut_symtab_finish(st);
	return st;
}

static const uint64_t func_addrs[] = { 0x401010, 0x401104, 0x401220, 0x401308, 0x7f1200001040 };

static uint32_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/*
 * Build the events: mostly function events on 2 CPUs, plus prints (small,
 * multi-word, page-sized, oversized), graph entries/exits, kernel and user
 * stacks, equal timestamps across CPUs, gaps needing time extends and one
 * needing a new page, a non-monotonic timestamp (clamped), and lost events.
 */
static void gen_events(void)
{
	uint64_t ts[2] = { 5000000000ULL, 5000000000ULL };
	size_t i;

	memset(&G, 0, sizeof(G));
	rnd_state = 42;
	G.big = malloc(BIG_PRINT + 1);
	G.huge = malloc(HUGE_PRINT + 1);
	CHECK(G.big && G.huge);
	for (i = 0; i < BIG_PRINT; i++)
		G.big[i] = (char)('a' + i % 26);
	G.big[BIG_PRINT] = 0;
	for (i = 0; i < HUGE_PRINT; i++)
		G.huge[i] = (char)('A' + i % 26);
	G.huge[HUGE_PRINT] = 0;

	for (i = 0; i < NR_EV; i++) {
		struct ut_event *e = &G.ev[i];
		unsigned cpu = rnd() % 2;
		uint32_t k = rnd() % 100;

		e->cpu = cpu;
		e->pid = cpu ? 2001 : 1000 + (int32_t)(rnd() % 3);
		e->flags = (uint8_t)(rnd() % 4);
		e->preempt = (uint8_t)(rnd() % 3);
		/* small steps, sometimes equal, sometimes big gaps */
		if (i == 600)
			ts[cpu] += 1ULL << 40;         /* time extend */
		else if (i == 700)
			ts[cpu] += 1ULL << 60;         /* beyond an extend: new page */
		else if (k < 5)
			ts[cpu] += 200000000;          /* > 2^27 ns: extend */
		else if (k >= 10)
			ts[cpu] += rnd() % 2000;
		e->ts = ts[cpu];
		if (i == 5) {
			/* equal across CPUs: lower CPU must come first */
			ts[0] = ts[1] = ts[0] > ts[1] ? ts[0] : ts[1];
			e->ts = ts[cpu];
		}
		if (k < 67) {
			e->type = UT_EV_FUNCTION;
			e->ip = func_addrs[rnd() % 5];
			e->parent_ip = func_addrs[rnd() % 5] + 3;
		} else if (k < 70) {
			uint64_t back = rnd() % 5000;

			/* func-no-repeats: the last call up to 48 bits back */
			e->type = UT_EV_FUNC_REPEATS;
			e->ip = func_addrs[rnd() % 5];
			e->parent_ip = func_addrs[rnd() % 5] + 3;
			e->repeats = 1 + rnd() % 65535;
			e->last_ts = e->ts > back ? e->ts - back : 0;
		} else if (k < 80) {
			e->type = UT_EV_PRINT;
			e->ip = 0x401000;
			snprintf(G.str[i], sizeof(G.str[i]), "marker %zu: value=%u\n", i, rnd());
			e->str = G.str[i];
		} else if (k < 86) {
			e->type = UT_EV_FUNCGRAPH_ENTRY;
			e->ip = func_addrs[rnd() % 5];
			e->depth = rnd() % 10;
		} else if (k < 92) {
			e->type = UT_EV_FUNCGRAPH_EXIT;
			e->ip = func_addrs[rnd() % 5];
			e->depth = rnd() % 10;
			e->overrun = rnd() % 3;
			e->calltime = e->ts - 1000;
			e->rettime = e->ts;
			e->retval = (uint64_t)rnd() << (rnd() % 33);
		} else if (k < 96) {
			e->type = UT_EV_KERNEL_STACK;
			e->nr_callers = rnd() % 12;
			for (uint32_t j = 0; j < e->nr_callers; j++)
				G.callers[i][j] = func_addrs[rnd() % 5] + j;
			e->callers = G.callers[i];
		} else {
			e->type = UT_EV_USER_STACK;
			e->tgid = 2000;
			e->nr_callers = 1 + rnd() % 8;
			for (uint32_t j = 0; j < e->nr_callers; j++)
				G.callers[i][j] = func_addrs[rnd() % 5] + j;
			e->callers = G.callers[i];
		}
		if (i == 300) {
			e->type = UT_EV_PRINT;
			e->str = G.big;
		}
		if (i == 301) {
			e->type = UT_EV_PRINT;
			e->str = G.huge;
		}
		if (i == 50 || i == 51 || i == 400 || i == 900)
			G.lost[i] = 1000 + i;
	}
	G.n = NR_EV;
}

static void expect_tgid(struct ut_event *e)
{
	if (e->type == UT_EV_USER_STACK)
		return;
	e->tgid = e->pid == 2001 ? 2000 : e->pid == 1000 ? 1000 : 0;
}

static char *path_in_dir(const char *name)
{
	static char buf[8][128];
	static int k;
	char *p = buf[k++ % 8];

	snprintf(p, 128, "%s/%s", dir, name);
	return p;
}

static void make_dir(void)
{
	if (dir[0])
		return;
	strcpy(dir, "/tmp/ut_tracedat.XXXXXX");
	CHECK(mkdtemp(dir));
}

static const int32_t cmd_pids[] = { 1000, 1001, 2001 };
static const char *const cmd_comms[] = { "demo", "demo-helper", "worker" };
static const int32_t tg_pids[] = { 1000, 2001 };
static const int32_t tg_tgids[] = { 1000, 2000 };

/* write_file() writes the calls through ut_tracedat_write_call() when set. */
static bool g_calls;
/* write_file() writes version 7, zstd-compressed, when set. */
static bool g_compress;

/* A call through the record writer's fast path, anything else as usual. */
static int write_via_call(struct ut_tracedat_writer *w, const struct ut_event *ev)
{
	struct ut_call c = {.ts = ev->ts, .ip = ev->ip, .parent_ip = ev->parent_ip,
			    .calltime = ev->calltime, .retval = ev->retval, .cpu = ev->cpu,
			    .depth = ev->depth, .overrun = ev->overrun, .type = ev->type};

	if (ev->type != UT_EV_FUNCTION && ev->type != UT_EV_FUNCGRAPH_ENTRY &&
	    ev->type != UT_EV_FUNCGRAPH_EXIT)
		return ut_tracedat_write(w, ev);
	CHECK(ev->type != UT_EV_FUNCGRAPH_EXIT || ev->rettime == ev->ts);
	return ut_tracedat_write_call(w, ev->pid, &c);
}

/* Write G to @path; ev[i].cpu ordering is as generated (per-CPU monotonic). */
static void write_file(const char *path)
{
	struct ut_symtab *st = make_syms();
	struct ut_tracedat_meta m = {
		.nr_cpus = 2,
		.clock = "[local] global counter uptime perf mono mono_raw boot x86-tsc",
		.syms = st,
		.nr_cmdlines = 3, .cmd_pids = cmd_pids, .cmd_comms = cmd_comms,
		.nr_tgids = 2, .tgid_pids = tg_pids, .tgid_tgids = tg_tgids,
		.uname = "Linux testhost 6.1.0 x86_64",
		.compress = g_compress, .zstd_level = 1,
	};
	char err[256] = "";
	struct ut_tracedat_writer *w = ut_tracedat_create(path, &m, err, sizeof(err));

	if (!w)
		fprintf(stderr, "%s\n", err);
	CHECK(w);
	for (size_t i = 0; i < G.n; i++) {
		if (G.lost[i])
			CHECK_EQ_INT(ut_tracedat_lost(w, G.ev[i].cpu, G.lost[i]), 0);
		CHECK_EQ_INT(g_calls ? write_via_call(w, &G.ev[i]) : ut_tracedat_write(w, &G.ev[i]), 0);
	}
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	ut_symtab_free(st);
}

/* The expected read order: by time, lower CPU first, per-CPU order kept. */
static size_t order[NR_EV];

static int cmp_order(const void *a, const void *b)
{
	const struct ut_event *x = &G.ev[*(const size_t *)a], *y = &G.ev[*(const size_t *)b];
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static void make_order(void)
{
	for (size_t i = 0; i < G.n; i++)
		order[i] = i;
	qsort(order, G.n, sizeof(order[0]), cmp_order);
}

static void check_event(size_t idx, const struct ut_event *got, uint64_t lost)
{
	struct ut_event want = G.ev[idx];

	expect_tgid(&want);
	if (got->ts != want.ts || got->type != want.type || got->cpu != want.cpu)
		fprintf(stderr, "event %zu: ts %llu/%llu type %u/%u cpu %u/%u\n", idx,
			(unsigned long long)got->ts, (unsigned long long)want.ts, got->type, want.type,
			got->cpu, want.cpu);
	CHECK(got->ts == want.ts);
	CHECK_EQ_INT(got->type, want.type);
	CHECK_EQ_INT(got->cpu, want.cpu);
	CHECK_EQ_INT(got->pid, want.pid);
	CHECK_EQ_INT(got->tgid, want.tgid);
	CHECK_EQ_INT(got->flags, want.flags);
	CHECK_EQ_INT(got->preempt, want.preempt);
	CHECK(lost == G.lost[idx]);
	switch (want.type) {
	case UT_EV_FUNCTION:
		CHECK(got->ip == want.ip);
		CHECK(got->parent_ip == want.parent_ip);
		break;
	case UT_EV_FUNC_REPEATS:
		CHECK(got->ip == want.ip);
		CHECK(got->parent_ip == want.parent_ip);
		CHECK_EQ_INT(got->repeats, want.repeats);
		CHECK(got->last_ts == want.last_ts);
		break;
	case UT_EV_PRINT:
		CHECK(got->ip == want.ip);
		CHECK(got->str);
		if (want.str == G.huge) {
			CHECK_EQ_INT(strlen(got->str), MAX_PRINT);
			CHECK(!strncmp(got->str, G.huge, MAX_PRINT));
		} else {
			CHECK_EQ_STR(got->str, want.str);
		}
		break;
	case UT_EV_FUNCGRAPH_ENTRY:
		CHECK(got->ip == want.ip);
		CHECK_EQ_INT(got->depth, want.depth);
		break;
	case UT_EV_FUNCGRAPH_EXIT:
		CHECK(got->ip == want.ip);
		CHECK_EQ_INT(got->depth, want.depth);
		CHECK_EQ_INT(got->overrun, want.overrun);
		CHECK(got->calltime == want.calltime);
		CHECK(got->rettime == want.rettime);
		CHECK(got->retval == want.retval);
		break;
	case UT_EV_KERNEL_STACK:
	case UT_EV_USER_STACK:
		CHECK_EQ_INT(got->nr_callers, want.nr_callers);
		for (uint32_t j = 0; j < want.nr_callers; j++)
			CHECK(got->callers[j] == want.callers[j]);
		break;
	}
}

TEST(round_trip)
{
	const char *path;
	struct ut_tracedat *r;
	struct ut_event ev;
	uint64_t lost;
	char err[256] = "";
	size_t n = 0;
	int ret;

	make_dir();
	gen_events();
	make_order();
	path = path_in_dir("rt.dat");
	write_file(path);

	r = ut_tracedat_open(path, err, sizeof(err));
	if (!r)
		fprintf(stderr, "%s\n", err);
	CHECK(r);
	CHECK_EQ_INT(ut_tracedat_nr_cpus(r), 2);
	CHECK_EQ_STR(ut_tracedat_clock(r), "local");
	CHECK_EQ_STR(ut_tracedat_uname(r), "Linux testhost 6.1.0 x86_64");
	CHECK_EQ_STR(ut_tracedat_comm(r, 1000), "demo");
	CHECK_EQ_STR(ut_tracedat_comm(r, 1001), "demo-helper");
	CHECK_EQ_STR(ut_tracedat_comm(r, 2001), "worker");
	CHECK(ut_tracedat_comm(r, 5) == NULL);
	CHECK_EQ_INT(ut_tracedat_tgid(r, 2001), 2000);
	CHECK_EQ_INT(ut_tracedat_tgid(r, 1000), 1000);
	CHECK_EQ_INT(ut_tracedat_tgid(r, 1001), -1);

	const struct ut_symtab *st = ut_tracedat_symbols(r);

	CHECK(st);
	CHECK_EQ_INT(ut_symtab_count(st), 5);
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x401234)->name, "compute");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x7f1200001040)->name, "inflate");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x7f1200001040)->module, "libz");
	CHECK(ut_symtab_lookup(st, 0x401000)->module == NULL);

	while ((ret = ut_tracedat_next(r, &ev, &lost, err, sizeof(err))) == 1) {
		CHECK(n < G.n);
		check_event(order[n], &ev, lost);
		n++;
	}
	if (ret < 0)
		fprintf(stderr, "%s\n", err);
	CHECK_EQ_INT(ret, 0);
	CHECK_EQ_INT(n, G.n);
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 0);
	ut_tracedat_close_reader(r);
}

TEST(writer_edges)
{
	struct ut_tracedat_meta m = { .nr_cpus = 3 }; /* no clock, syms, tasks */
	struct ut_event e = { .type = UT_EV_FUNCTION, .pid = 7, .ip = 1, .parent_ip = 2 };
	struct ut_tracedat_writer *w;
	struct ut_tracedat *r;
	const char *path;
	uint64_t lost;
	char err[256];

	make_dir();
	path = path_in_dir("edges.dat");
	CHECK(!ut_tracedat_create(path, &(struct ut_tracedat_meta){ .nr_cpus = 0 }, err,
				  sizeof(err)));
	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);
	e.cpu = 3;
	CHECK_EQ_INT(ut_tracedat_write(w, &e), -EINVAL);
	CHECK_EQ_INT(ut_tracedat_lost(w, 3, 1), -EINVAL);
	e.cpu = 2;
	e.type = 99;
	CHECK_EQ_INT(ut_tracedat_write(w, &e), -EINVAL);
	e.type = UT_EV_FUNCTION;
	e.ts = 100;
	CHECK_EQ_INT(ut_tracedat_write(w, &e), 0);
	e.ts = 50; /* goes backwards: clamped to 100 */
	CHECK_EQ_INT(ut_tracedat_write(w, &e), 0);
	CHECK_EQ_INT(ut_tracedat_lost(w, 2, 5), 0); /* after the last event: dropped */
	CHECK_EQ_INT(ut_tracedat_lost(w, 0, 5), 0); /* CPU with no events */
	/* task names learnt late */
	CHECK_EQ_INT(ut_tracedat_update_meta(w, &(struct ut_tracedat_meta){ .nr_cpus = 2 }),
		     -EINVAL);
	m.nr_cmdlines = 1;
	m.cmd_pids = cmd_pids;
	m.cmd_comms = cmd_comms;
	CHECK_EQ_INT(ut_tracedat_update_meta(w, &m), 0);
	m.nr_cmdlines = 0;
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	if (!system("command -v trace-cmd >/dev/null 2>&1")) {
		char cmd[256];

		/* empty CPUs are fine for trace-cmd too */
		snprintf(cmd, sizeof(cmd), "trace-cmd report '%s' 2>&1 | grep -q '<...>-7 .*\\[002\\]'",
			 path);
		CHECK_EQ_INT(system(cmd), 0);
	}

	r = ut_tracedat_open(path, err, sizeof(err));
	CHECK(r);
	CHECK_EQ_INT(ut_tracedat_nr_cpus(r), 3);
	CHECK_EQ_STR(ut_tracedat_clock(r), "local");
	CHECK(ut_tracedat_uname(r) == NULL);
	CHECK_EQ_STR(ut_tracedat_comm(r, 1000), "demo");
	CHECK_EQ_INT(ut_symtab_count(ut_tracedat_symbols(r)), 0);
	CHECK_EQ_INT(ut_tracedat_next(r, &e, &lost, err, sizeof(err)), 1);
	CHECK(e.ts == 100 && e.cpu == 2 && e.pid == 7 && e.tgid == 0 && lost == 0);
	CHECK_EQ_INT(ut_tracedat_next(r, &e, &lost, err, sizeof(err)), 1);
	CHECK(e.ts == 100);
	CHECK_EQ_INT(ut_tracedat_next(r, &e, &lost, err, sizeof(err)), 0);
	ut_tracedat_close_reader(r);

	/* a bare clock name is bracketed so trace-cmd finds it */
	m.clock = "x86-tsc";
	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	r = ut_tracedat_open(path, err, sizeof(err));
	CHECK(r);
	CHECK_EQ_STR(ut_tracedat_clock(r), "x86-tsc");
	CHECK_EQ_INT(ut_tracedat_next(r, &e, &lost, err, sizeof(err)), 0);
	ut_tracedat_close_reader(r);

	/* not a trace.dat */
	int fd = open(path, O_WRONLY | O_TRUNC);

	CHECK(fd >= 0);
	CHECK(write(fd, "hello world, not a trace", 24) == 24);
	close(fd);
	CHECK(!ut_tracedat_open(path, err, sizeof(err)));
	CHECK(strstr(err, "offset 0x0"));
	CHECK(!ut_tracedat_open(path_in_dir("missing.dat"), err, sizeof(err)));
}

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *p;
	int fd = open(path, O_RDONLY);

	CHECK(fd >= 0);
	CHECK(!fstat(fd, &st));
	p = malloc((size_t)st.st_size);
	CHECK(p);
	CHECK(read(fd, p, (size_t)st.st_size) == st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static void spit(const char *path, const unsigned char *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	CHECK(write(fd, p, len) == (ssize_t)len);
	close(fd);
}

/*
 * Read @path to the end.  Returns the number of events; *ret gets the final
 * status, per_cpu[] the count per CPU.  With @check, each CPU's events must
 * be the first ones written to it, merged in time order.
 */
static size_t read_all(const char *path, int *ret, char *err, size_t errlen, bool check,
		       bool *opened, size_t per_cpu[2])
{
	struct ut_tracedat *r = ut_tracedat_open(path, err, errlen);
	static size_t seq[2][NR_EV];
	size_t nseq[2] = { 0, 0 };
	struct ut_event ev;
	uint64_t lost, last_ts = 0;
	size_t n = 0;

	per_cpu[0] = per_cpu[1] = 0;
	for (size_t i = 0; i < G.n; i++)
		seq[G.ev[i].cpu][nseq[G.ev[i].cpu]++] = i;
	*opened = r != NULL;
	if (!r) {
		*ret = -1;
		return 0;
	}
	/* bounded: corrupt files must not loop forever */
	while ((*ret = ut_tracedat_next(r, &ev, &lost, err, errlen)) == 1 && n < 100000) {
		if (check) {
			CHECK(ev.cpu < 2 && per_cpu[ev.cpu] < nseq[ev.cpu]);
			check_event(seq[ev.cpu][per_cpu[ev.cpu]], &ev, lost);
			CHECK(ev.ts >= last_ts);
			last_ts = ev.ts;
		}
		if (ev.cpu < 2)
			per_cpu[ev.cpu]++;
		if (ev.type == UT_EV_PRINT)
			CHECK(ev.str && strlen(ev.str) < 65536);
		n++;
	}
	ut_tracedat_close_reader(r);
	return n;
}

TEST(truncation)
{
	const char *full = path_in_dir("full.dat"), *cut = path_in_dir("cut.dat");
	unsigned char *data;
	size_t len, cuts[40], nc = 0, n;
	char err[256];
	bool opened;
	int ret;

	make_dir();
	gen_events();
	make_order();
	write_file(full);
	data = slurp(full, &len);
	CHECK(len % 4096 == 0 && len > (size_t)4 * 4096);

	/* in the header, at the data start, inside pages, at page boundaries */
	size_t fixed[] = { 0, 1, 3, 10, 12, 40, 200, 1000, 2000, 3000, 4095, 4096, 4097,
			   4096 + 100, 8192 - 1, 8192, 8192 + 16, 8192 + 2000, (size_t)3 * 4096 };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		cuts[nc++] = fixed[i];
	for (size_t k = 1; k < 12; k++)
		cuts[nc++] = len * k / 12;
	cuts[nc++] = len - 4096;
	cuts[nc++] = len - 1;

	size_t prev[2] = { 0, 0 }, cnt[2], all[2] = { 0, 0 };
	bool header_fail_seen = false, data_fail_seen = false;

	for (size_t i = 0; i < G.n; i++)
		all[G.ev[i].cpu]++;
	/* cuts are visited in increasing order from here on */
	for (size_t i = 0; i < nc; i++)
		for (size_t j = i + 1; j < nc; j++)
			if (cuts[j] < cuts[i]) {
				size_t t = cuts[i];

				cuts[i] = cuts[j];
				cuts[j] = t;
			}
	for (size_t i = 0; i < nc; i++) {
		if (cuts[i] >= len)
			continue;
		spit(cut, data, cuts[i]);
		err[0] = 0;
		n = read_all(cut, &ret, err, sizeof(err), true, &opened, cnt);
		CHECK_EQ_INT(ret, -1);
		if (!strstr(err, "offset 0x"))
			fprintf(stderr, "cut %zu: no offset in \"%s\"\n", cuts[i], err);
		CHECK(strstr(err, "offset 0x"));
		CHECK(strstr(err, cut));
		if (!opened) {
			header_fail_seen = true;
			CHECK(!data_fail_seen); /* the header comes first */
			continue;
		}
		data_fail_seen = true;
		/* a longer file never yields fewer events of a CPU */
		CHECK(cnt[0] >= prev[0] && cnt[1] >= prev[1]);
		prev[0] = cnt[0];
		prev[1] = cnt[1];
		CHECK_EQ_INT(n, cnt[0] + cnt[1]);
	}
	/* cut one byte short: CPU 0 (stored first) is whole, CPU 1 lacks one page */
	CHECK_EQ_INT(prev[0], all[0]);
	CHECK(prev[1] < all[1] && prev[1] + 200 > all[1]);
	CHECK(header_fail_seen && data_fail_seen);
	free(data);
}

TEST(random_corruption)
{
	const char *full = path_in_dir("full2.dat"), *bad = path_in_dir("bad.dat");
	unsigned char *data, *copy;
	size_t len;
	char err[256];
	bool opened;
	int ret, fails = 0, oks = 0;

	make_dir();
	gen_events();
	make_order();
	write_file(full);
	data = slurp(full, &len);
	copy = malloc(len);
	CHECK(copy);
	rnd_state = 12345;
	for (int iter = 0; iter < FUZZ_ITERS; iter++) {
		int flips = 1 + (int)(rnd() % 8);

		memcpy(copy, data, len);
		for (int f = 0; f < flips; f++) {
			size_t at;

			/* half the flips hit the header, where every size lives */
			if (rnd() % 2)
				at = rnd() % 8192;
			else
				at = rnd() % len;
			if (at >= len)
				at = len - 1;
			if (rnd() % 3 == 0)
				copy[at] = (unsigned char)rnd();
			else
				copy[at] ^= (unsigned char)(1u << (rnd() % 8));
		}
		/* sometimes also cut it short */
		size_t l = rnd() % 4 == 0 ? rnd() % len : len;

		spit(bad, copy, l);
		err[0] = 0;
		size_t cnt[2];

		read_all(bad, &ret, err, sizeof(err), false, &opened, cnt);
		if (ret < 0) {
			fails++;
			CHECK(strstr(err, "offset 0x") || strstr(err, "out of memory"));
		} else {
			oks++;
		}
	}
	fprintf(stderr, "random_corruption: %d rejected, %d read to the end\n", fails, oks);
	CHECK(fails > 0);
	free(copy);
	free(data);
}

/* File offset and size of CPU @cpu's stream, from the flyrecord table. */
static void cpu_stream(const unsigned char *data, size_t len, int cpu, size_t *off, size_t *size)
{
	const unsigned char *fly = memmem(data, len < 8192 ? len : 8192, "flyrecord", 10);
	uint64_t v[2];

	CHECK(fly);
	memcpy(v, fly + 10 + (size_t)16 * (size_t)cpu, 16);
	*off = (size_t)v[0];
	*size = (size_t)v[1];
}

/*
 * Read every CPU's stream through its cursor; @got[cpu] counts the events,
 * checked against G in order with their losses.  Returns the last return
 * value of CPU @want_cpu's cursor, its message in @err.
 */
static int read_cursors(const char *path, size_t got[2], int want_cpu, char *err, size_t errlen)
{
	char oerr[256];
	struct ut_tracedat *r = ut_tracedat_open(path, oerr, sizeof(oerr));
	static size_t seq[2][NR_EV];
	size_t nseq[2] = { 0, 0 };
	int result = 0;

	CHECK(r);
	CHECK_EQ_INT(ut_tracedat_nr_cpus(r), 2);
	for (size_t i = 0; i < G.n; i++)
		seq[G.ev[i].cpu][nseq[G.ev[i].cpu]++] = i;
	/* CPU 1 read to its end before CPU 0 starts: the streams are independent */
	for (int cpu = 1; cpu >= 0; cpu--) {
		struct ut_event ev;
		uint64_t lost;
		char e[256] = "";
		int ret;

		got[cpu] = 0;
		while ((ret = ut_tracedat_cpu_next(r, cpu, &ev, &lost, e, sizeof(e))) == 1) {
			CHECK(got[cpu] < nseq[cpu]);
			check_event(seq[cpu][got[cpu]], &ev, lost);
			got[cpu]++;
		}
		/* and it stays where it stopped */
		CHECK_EQ_INT(ut_tracedat_cpu_next(r, cpu, &ev, &lost, NULL, 0), ret);
		if (cpu == want_cpu) {
			result = ret;
			snprintf(err, errlen, "%s", e);
		} else {
			CHECK_EQ_INT(ret, 0);
			CHECK_EQ_INT(got[cpu], nseq[cpu]);
		}
	}
	ut_tracedat_close_reader(r);
	return result;
}

TEST(cpu_cursors)
{
	const char *full = path_in_dir("cur.dat"), *bad = path_in_dir("cur_bad.dat");
	unsigned char *data;
	size_t len, got[2], all[2] = { 0, 0 }, off, size;
	char err[256];
	struct ut_tracedat *r;

	make_dir();
	gen_events();
	write_file(full);
	for (size_t i = 0; i < G.n; i++)
		all[G.ev[i].cpu]++;
	CHECK_EQ_INT(read_cursors(full, got, 1, err, sizeof(err)), 0);
	CHECK_EQ_INT(got[1], all[1]);

	/* no such CPU: an error naming the file, not a crash */
	r = ut_tracedat_open(full, err, sizeof(err));
	CHECK(r);
	CHECK_EQ_INT(ut_tracedat_cpu_next(r, 2, NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, full) && strstr(err, "no CPU 2"));
	CHECK_EQ_INT(ut_tracedat_cpu_next(r, -1, NULL, NULL, err, sizeof(err)), -1);
	ut_tracedat_close_reader(r);

	/* CPU 1's third page has a bad commit word: its first two pages still come out */
	data = slurp(full, &len);
	cpu_stream(data, len, 1, &off, &size);
	CHECK(size >= (size_t)4 * 4096);
	data[off + (size_t)2 * 4096 + 15] = 0x7f;
	spit(bad, data, len);
	CHECK_EQ_INT(read_cursors(bad, got, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, bad) && strstr(err, "commit word"));
	CHECK(got[1] > 0 && got[1] < all[1]);
	size_t two_pages = got[1];

	/* cut in the middle of CPU 1's third page: the same events, then "truncated" */
	data[off + (size_t)2 * 4096 + 15] = 0;
	spit(bad, data, off + (size_t)2 * 4096 + 2000);
	CHECK_EQ_INT(read_cursors(bad, got, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, bad) && strstr(err, "truncated"));
	CHECK_EQ_INT(got[1], two_pages);
	free(data);
}

/* Damage in one header section: open fails, naming the file and the section. */
static void header_damage(const unsigned char *data, size_t len, size_t at, unsigned char v,
			  const char *section)
{
	const char *bad = path_in_dir("hdr_bad.dat");
	unsigned char *copy = malloc(len);
	char err[256] = "";

	CHECK(copy);
	memcpy(copy, data, len);
	copy[at] = v;
	spit(bad, copy, len);
	CHECK(!ut_tracedat_open(bad, err, sizeof(err)));
	if (!strstr(err, section))
		fprintf(stderr, "byte 0x%zx: \"%s\" does not name %s\n", at, err, section);
	CHECK(strstr(err, bad) && strstr(err, section));
	free(copy);
}

TEST(header_sections)
{
	const char *full = path_in_dir("hdr.dat");
	unsigned char *data, *p;
	size_t len;

	make_dir();
	gen_events();
	write_file(full);
	data = slurp(full, &len);
	header_damage(data, len, 3, 'x', "file header");
	header_damage(data, len, 10, '8', "version string"); /* 6 and 7 are read */
	header_damage(data, len, 14, 3, "page size");
	header_damage(data, len, 18, 'X', "header_page");
	/* a size running past the end of the file, in each sized section */
	p = memmem(data, 8192, "header_event", 13);
	CHECK(p);
	header_damage(data, len, (size_t)(p - data) + 13 + 5, 0x7f, "header_event");
	uint64_t hev_len;

	memcpy(&hev_len, p + 13, 8);
	/* the first ftrace format's u64 size: after the text and the u32 count */
	header_damage(data, len, (size_t)(p - data) + 13 + 8 + (size_t)hev_len + 4 + 5, 0x7f,
		      "ftrace format");
	p = memmem(data, 8192, "utrace", 7);
	CHECK(p);
	header_damage(data, len, (size_t)(p - data) + 7 + 4 + 5, 0x7f, "event format");
	p = memmem(data, 8192, "flyrecord", 10);
	CHECK(p);
	header_damage(data, len, (size_t)(p - data), 'g', "section tag");
	free(data);
}

static void ex_put(struct ut_tracedat_writer *w, const struct ut_event *ev)
{
	CHECK_EQ_INT(ut_tracedat_write(w, ev), 0);
}

/* The file of docs/file-format.md's worked example (section 5). */
static void write_example(const char *path)
{
	struct ut_symtab *st = ut_symtab_new();
	static const int32_t pids[] = { 100, 101 }, tgids[] = { 100, 100 };
	static const char *const comms[] = { "demo", "worker" };
	static const uint64_t stack[] = { 0x401105, 0x401205, 0x401010 };
	struct ut_tracedat_meta m = {
		.nr_cpus = 2, .clock = "[local] global counter uptime perf mono mono_raw boot x86-tsc",
		.syms = st, .nr_cmdlines = 2, .cmd_pids = pids, .cmd_comms = comms,
		.nr_tgids = 2, .tgid_pids = pids, .tgid_tgids = tgids, .uname = "Linux host 6.1 x86_64",
	};
	const uint64_t t = 2000001517;
	char err[256] = "";
	struct ut_tracedat_writer *w;

	CHECK(st);
	CHECK(!ut_symtab_add(st, 0x401000, 0x100, "main", NULL));
	CHECK(!ut_symtab_add(st, 0x401100, 0x100, "foo", NULL));
	CHECK(!ut_symtab_add(st, 0x401200, 0x100, "bar", NULL));
	CHECK(!ut_symtab_add(st, 0x7f0000001000, 0x100, "inflate", "libz"));
	ut_symtab_finish(st);
	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);
	/* CPU 0: foo <-- main, bar <-- foo; CPU 1: inflate <-- bar, 42 lost, the same 1 s later */
	ex_put(w, &(struct ut_event){ .ts = 1000000000, .pid = 100, .type = UT_EV_FUNCTION,
				      .ip = 0x401105, .parent_ip = 0x401010 });
	ex_put(w, &(struct ut_event){ .ts = 1000001500, .pid = 100, .type = UT_EV_FUNCTION,
				      .ip = 0x401200, .parent_ip = 0x401105 });
	ex_put(w, &(struct ut_event){ .ts = 1000001510, .pid = 101, .cpu = 1, .type = UT_EV_FUNCTION,
				      .ip = 0x7f0000001010, .parent_ip = 0x401200 });
	CHECK_EQ_INT(ut_tracedat_lost(w, 1, 42), 0);
	ex_put(w, &(struct ut_event){ .ts = 2000001510, .pid = 101, .cpu = 1, .type = UT_EV_FUNCTION,
				      .ip = 0x7f0000001010, .parent_ip = 0x401200 });
	/* CPU 0 after a time extend: a print, a stack, foo() { bar(); } */
	ex_put(w, &(struct ut_event){ .ts = 2000001515, .pid = 100, .type = UT_EV_PRINT,
				      .ip = 0x401000, .str = "hello world\n" });
	ex_put(w, &(struct ut_event){ .ts = 2000001516, .pid = 100, .type = UT_EV_KERNEL_STACK,
				      .callers = stack, .nr_callers = 3 });
	ex_put(w, &(struct ut_event){ .ts = t, .pid = 100, .type = UT_EV_FUNCGRAPH_ENTRY,
				      .ip = 0x401100 });
	ex_put(w, &(struct ut_event){ .ts = t + 100, .pid = 100, .type = UT_EV_FUNCGRAPH_ENTRY,
				      .ip = 0x401200, .depth = 1 });
	ex_put(w, &(struct ut_event){ .ts = t + 600, .pid = 100, .type = UT_EV_FUNCGRAPH_EXIT,
				      .ip = 0x401200, .depth = 1, .calltime = t + 100,
				      .rettime = t + 600 });
	ex_put(w, &(struct ut_event){ .ts = t + 700, .pid = 100, .type = UT_EV_FUNCGRAPH_EXIT,
				      .ip = 0x401100, .calltime = t, .rettime = t + 700 });
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	ut_symtab_free(st);
}

/* docs/file-format.md, found from the test binary (BUILD/tests/unit/) upwards; NULL if not. */
static FILE *open_format_doc(void)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);

	if (n <= 0)
		return NULL;
	path[n] = 0;
	for (int up = 0; up < 6; up++) {
		char *slash = strrchr(path, '/');
		FILE *f;

		if (!slash)
			return NULL;
		snprintf(slash, sizeof(path) - (size_t)(slash - path), "/docs/file-format.md");
		f = fopen(path, "r");
		if (f)
			return f;
		*slash = 0;
	}
	return NULL;
}

/* One "OFFSET: xxxx xxxx ...  text" dump line against the file's bytes; 1 if it was one. */
static int check_dump_line(const char *line, const unsigned char *data, size_t len)
{
	unsigned long off;
	char *p;
	int n = 0;

	if (strlen(line) < 10 || line[8] != ':' || line[9] != ' ')
		return 0;
	off = strtoul(line, &p, 16);
	if (p != line + 8)
		return 0;
	p = (char *)line + 10;
	/* groups of two bytes, one space apart; two spaces end the hex */
	while (n < 16 && isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1])) {
		unsigned int byte;

		CHECK(sscanf(p, "%2x", &byte) == 1);
		if (off + (size_t)n >= len || data[off + (size_t)n] != byte)
			fprintf(stderr, "worked example: byte 0x%zx is not 0x%02x\n", (size_t)off + (size_t)n, byte);
		CHECK(off + (size_t)n < len && data[off + (size_t)n] == byte);
		n++;
		p += 2;
		if (n % 2 == 0)
			p++;
	}
	return n > 0;
}

TEST(worked_example)
{
	const char *path = path_in_dir("example.dat");
	FILE *doc = open_format_doc();
	unsigned char *data;
	char line[512];
	bool in = false;
	size_t len;
	int lines = 0;

	if (!doc) {
		fprintf(stderr, "worked_example: docs/file-format.md not found, skipped\n");
		return;
	}
	make_dir();
	write_example(path);
	data = slurp(path, &len);
	CHECK_EQ_INT(len, 20480);
	/* scripts/worked-example.py redraws the doc's dump from this copy */
	const char *keep = getenv("UTRACE_WORKED_EXAMPLE");

	if (keep)
		spit(keep, data, len);
	while (fgets(line, sizeof(line), doc)) {
		if (!strncmp(line, "## ", 3))
			in = strstr(line, "Worked example") != NULL;
		else if (in)
			lines += check_dump_line(line, data, len);
	}
	fclose(doc);
	/* the start, the end of the header, CPU 0's page and CPU 1's loss */
	CHECK(lines >= 30);
	free(data);
}

/* Run a shell command, return its stdout (malloc'd). */
static char *run(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	size_t got;

	CHECK(f && out);
	while ((got = fread(out + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len < 4096) {
			char *bigger = realloc(out, cap * 2);

			CHECK(bigger);
			out = bigger;
			cap *= 2;
		}
	}
	out[len] = 0;
	pclose(f);
	return out;
}

static void expect_line(const char *out, const char *want)
{
	if (!strstr(out, want)) {
		fprintf(stderr, "trace-cmd report output lacks \"%s\"; output:\n%s\n", want, out);
		exit(1);
	}
}

/*
 * funcgraph_exit with the return value (the kernel's layout with
 * CONFIG_FUNCTION_GRAPH_RETVAL, which the writer uses) and without it (a
 * kernel built without: depth at offset 16).  The reader learns which from
 * the format text; here the retval field of a written file is renamed to
 * turn it into the other layout.
 */
TEST(exit_layouts)
{
	struct ut_tracedat_meta m = { .nr_cpus = 1 };
	struct ut_event e = { .type = UT_EV_FUNCGRAPH_EXIT, .pid = 7, .ip = 0x401000, .ts = 500,
			      .depth = 3, .overrun = 1, .calltime = 400, .rettime = 500,
			      .retval = 0xfffffffb };
	static const char field[] = "\tfield:unsigned long retval;\toffset:16;";
	struct ut_tracedat_writer *w;
	struct ut_tracedat *r;
	const char *path = (make_dir(), path_in_dir("exit.dat"));
	unsigned char *p, *hit;
	struct ut_event ev;
	uint64_t lost;
	char err[256];
	size_t len;

	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);
	CHECK_EQ_INT(ut_tracedat_write(w, &e), 0);
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	r = ut_tracedat_open(path, err, sizeof(err));
	CHECK(r);
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 1);
	CHECK(ev.retval == 0xfffffffb && ev.depth == 3 && ev.overrun == 1);
	CHECK(ev.calltime == 400 && ev.rettime == 500);
	ut_tracedat_close_reader(r);

	p = slurp(path, &len);
	hit = memmem(p, len, field, sizeof(field) - 1);
	CHECK(hit);
	hit[strlen("\tfield:unsigned long re")] = 'x'; /* "retval" -> "rexval" */
	spit(path, p, len);
	free(p);
	r = ut_tracedat_open(path, err, sizeof(err));
	CHECK(r);
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 1);
	/* the old layout: depth and overrun where retval is */
	CHECK(ev.retval == 0 && ev.depth == 0xfffffffb && ev.overrun == 0);
	CHECK(ev.calltime == (3 | (1ULL << 32)) && ev.rettime == 400);
	ut_tracedat_close_reader(r);
}

/* utrace's signal_enter / signal_exit events (event system "utrace") round-trip. */
TEST(signal_events)
{
	struct ut_tracedat_meta m = { .nr_cpus = 1 };
	struct ut_event e = { .type = UT_EV_SIGNAL_ENTER, .pid = 7, .ts = 500, .sig = 10,
			      .depth = 2 };
	const char *path = (make_dir(), path_in_dir("sig.dat"));
	struct ut_tracedat_writer *w;
	struct ut_tracedat *r;
	struct ut_event ev;
	uint64_t lost;
	char err[256];

	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);
	CHECK_EQ_INT(ut_tracedat_write(w, &e), 0);
	e.type = UT_EV_SIGNAL_EXIT;
	e.ts = 600;
	e.sig = 64;
	CHECK_EQ_INT(ut_tracedat_write(w, &e), 0);
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	r = ut_tracedat_open(path, err, sizeof(err));
	CHECK(r);
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 1);
	CHECK(ev.type == UT_EV_SIGNAL_ENTER && ev.sig == 10 && ev.depth == 2 && ev.pid == 7);
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 1);
	CHECK(ev.type == UT_EV_SIGNAL_EXIT && ev.sig == 64 && ev.depth == 2);
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 0);
	ut_tracedat_close_reader(r);
}

/*
 * USDT probe events: each probe address gets an id from 1100 as first met
 * and a format under its provider's system, named from the probe table;
 * the reader gives them back with the format and the values cut to the
 * fields' sizes, an unknown address as usdt:probe_<address>.
 */
TEST(probe_events)
{
	struct ut_probetab tab = {0};
	struct ut_probetab_ent ent[2] = {
		{.pc = 0x401000, .f = {.system = "utest", .name = "pair", .nargs = 2,
				       .size = {4, 8}, .is_signed = {1, 1}}},
		{.pc = 0x401010, .f = {.system = "other", .name = "one", .nargs = 1,
				       .size = {1}, .is_signed = {0}}},
	};
	struct ut_tracedat_meta m = {.nr_cpus = 1};
	uint64_t a1[2] = {(uint64_t)-7, (uint64_t)-1000}, a2[1] = {0x1ff}, a3[1] = {5};
	struct ut_event e = {.type = UT_EV_PROBE, .pid = 7, .ts = 500, .ip = 0x401000,
			     .args = a1, .nargs = 2};
	const char *path = (make_dir(), path_in_dir("probe.dat"));
	struct ut_tracedat_writer *w;
	struct ut_tracedat *r;
	struct ut_event ev;
	uint64_t lost;
	char err[256], text[128];

	tab.v = ent;
	tab.n = 2;
	m.probes = &tab;
	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);
	CHECK_EQ_INT(ut_tracedat_write(w, &e), 0);
	e = (struct ut_event){.type = UT_EV_PROBE, .pid = 7, .ts = 600, .ip = 0x401010,
			      .args = a2, .nargs = 1};
	CHECK_EQ_INT(ut_tracedat_write(w, &e), 0);
	e = (struct ut_event){.type = UT_EV_PROBE, .pid = 7, .ts = 700, .ip = 0x402000,
			      .args = a3, .nargs = 1};
	CHECK_EQ_INT(ut_tracedat_write(w, &e), 0);
	CHECK_EQ_INT(ut_tracedat_update_meta(w, &m), 0);
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	r = ut_tracedat_open(path, err, sizeof(err));
	CHECK(r);
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 1);
	CHECK(ev.type == UT_EV_PROBE && ev.probe && ev.pid == 7);
	CHECK_EQ_STR(ev.probe->system, "utest");
	CHECK_EQ_STR(ev.probe->name, "pair");
	CHECK_EQ_INT(ev.probe->id, 1100);
	ut_evfmt_print(text, sizeof(text), ev.probe, ev.args, ev.argbytes);
	CHECK_EQ_STR(text, "arg1=-7 arg2=-1000");
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 1);
	CHECK_EQ_STR(ev.probe->name, "one");
	CHECK_EQ_INT(ev.probe->id, 1101);
	ut_evfmt_print(text, sizeof(text), ev.probe, ev.args, ev.argbytes);
	CHECK_EQ_STR(text, "arg1=255"); /* a u8 field: the low byte */
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 1);
	CHECK_EQ_STR(ev.probe->system, "usdt");
	CHECK_EQ_STR(ev.probe->name, "probe_402000");
	ut_evfmt_print(text, sizeof(text), ev.probe, ev.args, ev.argbytes);
	CHECK_EQ_STR(text, "arg1=5");
	CHECK_EQ_INT(ut_tracedat_next(r, &ev, &lost, err, sizeof(err)), 0);
	ut_tracedat_close_reader(r);
}

TEST(trace_cmd_report)
{
	struct ut_symtab *st;
	struct ut_tracedat_writer *w;
	char cmd[512], err[256], *out;
	const char *path, *errpath;
	struct stat sb;

	if (system("command -v trace-cmd >/dev/null 2>&1")) {
		fprintf(stderr, "# SKIP trace_cmd_report: trace-cmd is not installed\n");
		return;
	}
	make_dir();
	path = path_in_dir("report.dat");
	errpath = path_in_dir("report.err");
	st = make_syms();

	struct ut_tracedat_meta m = {
		.nr_cpus = 2, .clock = "[local] global counter uptime perf mono mono_raw boot x86-tsc",
		.syms = st,
		.nr_cmdlines = 3, .cmd_pids = cmd_pids, .cmd_comms = cmd_comms,
		.nr_tgids = 2, .tgid_pids = tg_pids, .tgid_tgids = tg_tgids,
	};
	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);

	struct ut_event e = { .type = UT_EV_FUNCTION, .cpu = 0, .pid = 1000 };
	uint64_t stack[] = { 0x401208, 0x401104, 0x401010 };

	e.ts = 1234567891000ULL;
	e.ip = 0x401104;
	e.parent_ip = 0x401010;
	CHECK(!ut_tracedat_write(w, &e));
	e.ts += 2000;
	e.ip = 0x7f1200001040; /* the highest symbol must resolve too */
	e.parent_ip = 0x401220;
	CHECK(!ut_tracedat_write(w, &e));
	e.cpu = 1;
	e.pid = 2001;
	e.ts += 1000;
	e.ip = 0x401308;
	e.parent_ip = 0x401104;
	CHECK(!ut_tracedat_write(w, &e));
	CHECK(!ut_tracedat_lost(w, 1, 42));
	e.ts += 1000000;
	CHECK(!ut_tracedat_write(w, &e));

	struct ut_event p = { .type = UT_EV_PRINT, .cpu = 0, .pid = 1000, .ip = 0x401000,
			      .ts = e.ts + 1000, .str = "hello from utrace" };

	CHECK(!ut_tracedat_write(w, &p));

	struct ut_event k = { .type = UT_EV_KERNEL_STACK, .cpu = 0, .pid = 1000, .ts = p.ts + 1,
			      .callers = stack, .nr_callers = 3 };

	CHECK(!ut_tracedat_write(w, &k));
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	ut_symtab_free(st);

	snprintf(cmd, sizeof(cmd), "trace-cmd report -O parent=1 '%s' 2>'%s'", path, errpath);
	out = run(cmd);
	fprintf(stderr, "%s", out);
	/* trace-cmd prints microseconds for the local clock */
	expect_line(out, "cpus=2");
	expect_line(out, "demo-1000 ");
	expect_line(out, "[000]  1234.567891: function:");
	expect_line(out, "parse_args <-- main");
	expect_line(out, "[000]  1234.567893: function:");
	expect_line(out, "inflate <-- compute");
	expect_line(out, "worker-2001 ");
	expect_line(out, "[001]  1234.567894: function:");
	expect_line(out, "helper <-- parse_args");
	/* trace-cmd's wording for a page's lost events */
	expect_line(out, "CPU:1 [42 EVENTS DROPPED]");
	expect_line(out, "[001]  1234.568894: function:");
	expect_line(out, "print:");
	expect_line(out, "main: hello from utrace");
	expect_line(out, "kernel_stack:");
	expect_line(out, "=> compute (401208)");
	expect_line(out, "=> parse_args (401104)");
	expect_line(out, "=> main (401010)");
	free(out);
	/* no complaints, e.g. about our private tgid option */
	CHECK(!stat(errpath, &sb));
	if (sb.st_size) {
		snprintf(cmd, sizeof(cmd), "cat '%s'", errpath);
		out = run(cmd);
		fprintf(stderr, "trace-cmd stderr: %s\n", out);
		free(out);
	}
	CHECK_EQ_INT(sb.st_size, 0);

	/* raw timestamps for a counter clock */
	m.clock = "local global [counter] uptime";
	m.syms = NULL;
	w = ut_tracedat_create(path, &m, err, sizeof(err));
	CHECK(w);
	e.ts = 987654321;
	CHECK(!ut_tracedat_write(w, &e));
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
	snprintf(cmd, sizeof(cmd), "trace-cmd report '%s' 2>/dev/null", path);
	out = run(cmd);
	expect_line(out, " 987654321: function:");
	free(out);
}

static void cleanup(void)
{
	char cmd[128];

	if (!dir[0])
		return;
	if (getenv("UT_KEEP")) {
		fprintf(stderr, "# kept %s\n", dir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

/* trace-cmd report of @path, its header lines (version, compression) dropped. */
static char *tc_report(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "trace-cmd report '%s' 2>&1 | grep -v '^cpus=\\|version\\|compress'",
		 path);
	return run(cmd);
}

/*
 * The same events written as version 6 and as version 7 (zstd): read back
 * identical, both by this reader and by trace-cmd, and the compressed file
 * is smaller; a cut compressed file reads up to its last whole chunk.
 */
/*
 * The record writer's fast path (ut_tracedat_write_call) writes the very
 * bytes ut_tracedat_write() does for the same calls (the ring has no flags
 * nor preempt count: 0), every other event alike.
 */
TEST(write_call_same_bytes)
{
	const char *a = path_in_dir("plain.dat"), *b = path_in_dir("calls.dat");
	unsigned char *da, *db;
	size_t la, lb, calls = 0;

	make_dir();
	gen_events();
	for (size_t i = 0; i < G.n; i++) {
		G.ev[i].flags = G.ev[i].preempt = 0;
		if (G.ev[i].type == UT_EV_FUNCGRAPH_EXIT)
			G.ev[i].rettime = G.ev[i].ts; /* as the ring's decoders give it */
		calls += G.ev[i].type == UT_EV_FUNCTION || G.ev[i].type == UT_EV_FUNCGRAPH_ENTRY ||
			 G.ev[i].type == UT_EV_FUNCGRAPH_EXIT;
	}
	CHECK(calls > G.n / 2);
	g_compress = false;
	write_file(a);
	g_calls = true;
	write_file(b);
	g_calls = false;
	da = slurp(a, &la);
	db = slurp(b, &lb);
	CHECK_EQ_INT(la, lb);
	CHECK(la == lb && !memcmp(da, db, la));
	free(da);
	free(db);
}

/*
 * Ring pages for the record writer's ways (below): a page of FUNCTION
 * records on one CPU after a graph exit (the function tracer's stream:
 * its trace.dat page fills up in the middle of a run); a page of calls on two CPUs with a
 * marker among them, deltas small and one at the ring's largest; a page
 * of runs of FUNCTION records changing CPU, with a jump in time (a time
 * extend) in the middle of one; and a page ending early (the rest zero).
 */
#define RW_PAGES 4
static uint64_t rw_ring[RW_PAGES * UT_PAGE_SIZE / 8] __attribute__((aligned(4096)));
static uint64_t rw_mid_raw;  /* the time of a record in the third page */
static uint64_t rw_last_raw; /* and of the last record */
static uint64_t rw_ncalls;   /* the calls among them */
static uint64_t rw_nbefore;  /* the records before the one at rw_mid_raw */

static void rw_fill(void)
{
	uint64_t *q = rw_ring;
	uint64_t ts = 1000000;

	memset(rw_ring, 0, sizeof(rw_ring));
	rw_ncalls = 0;
	rw_nbefore = 0;
	rw_mid_raw = 0;
	for (int pg = 0; pg < RW_PAGES; pg++) {
		uint64_t *p = q + (size_t)pg * (UT_PAGE_SIZE / 8), *end = p + UT_PAGE_SIZE / 8;
		int i = 0;

		*p++ = ut_rec_word0(UT_REC_TIME, 0, 0);
		*p++ = ts;
		while (p + 4 <= end && !(pg == 3 && i == 100)) {
			uint64_t d = i == 50 ? 0xffff : (uint64_t)(7 + i % 5);
			uint64_t cpu = pg ? (i / 37) & 1 : 0;
			int kind = !pg ? (i ? 0 : 2) : pg == 2 && i % 40 < 36 ? 0 : i % 3;

			if (pg == 2 && i == 90) { /* a jump in time, mid-run: a time extend */
				*p++ = ut_rec_word0(UT_REC_TIME, 0, 0);
				*p++ = ts += 1ull << 28;
			}
			ts += d;
			rw_last_raw = ts;
			if (pg == 2 && i == 60)
				rw_mid_raw = ts;
			if (!rw_mid_raw)
				rw_nbefore++;
			rw_ncalls += !(i == 20 && pg == 1);
			if (i == 20 && pg == 1) { /* a marker: "hi" */
				*p++ = ut_rec_word0(UT_REC_MARKER, cpu, 2);
				*p++ = d << UT_REC_DELTA_SHIFT;
				memcpy(p, "hi", 3);
				p += 2;
			} else if (kind == 0) {
				*p++ = ut_rec_word0(UT_REC_FUNCTION, cpu, 0x401000 + i);
				*p++ = (d << UT_REC_DELTA_SHIFT) | (0x402000 + (uint64_t)pg);
			} else if (kind == 1) {
				*p++ = ut_rec_word0(UT_REC_GRAPH_ENTRY, cpu, 0x401100);
				*p++ = (d << UT_REC_DELTA_SHIFT) | 3;
			} else {
				*p++ = ut_rec_word0(UT_REC_GRAPH_EXIT, cpu, 0x401100);
				*p++ = (d << UT_REC_DELTA_SHIFT) | (2ull << 32) | 3;
				*p++ = 5 + (uint64_t)i; /* the duration */
				*p++ = (uint64_t)i;     /* the return value */
			}
			i++;
		}
	}
}

struct rw_writer {
	struct ut_tracedat_writer *w;
	const struct ut_clockconv *clk;
};

static void rw_event(struct ut_tracedat_writer *w, const struct ut_clockconv *clk,
		     const uint8_t *rec, uint64_t raw)
{
	struct ut_event ev;

	ut_rb_decode_one(rec, raw, 77, 70, clk, &ev);
	CHECK_EQ_INT(ut_tracedat_write(w, &ev), 0);
}

/* Way 1: each record decoded, calls through ut_tracedat_write_call(). */
static int rw_each(void *ctx, const uint8_t *rec, uint64_t raw)
{
	struct rw_writer *k = ctx;
	struct ut_call c;

	if (ut_rb_decode_call(rec, raw, ut_clock_to_trace(k->clk, raw), k->clk, &c))
		CHECK_EQ_INT(ut_tracedat_write_call(k->w, 77, &c), 0);
	else
		rw_event(k->w, k->clk, rec, raw);
	return 0;
}

static int rw_other(void *ctx, const uint8_t *rec, uint64_t raw, uint64_t ts, int err)
{
	struct rw_writer *k = ctx;

	(void)ts;
	CHECK_EQ_INT(err, 0);
	rw_event(k->w, k->clk, rec, raw);
	return 0;
}

static struct ut_rb_ref rw_refs[sizeof(rw_ring) / UT_REC_SIZE];
static size_t rw_nlater;
static uint64_t rw_limit;

static int rw_later(void *ctx, const uint8_t *rec, uint64_t raw, uint64_t ts)
{
	(void)ctx;
	rw_refs[rw_nlater++] = (struct ut_rb_ref){ts, raw, rec};
	return 0;
}

/* Indexed records out: runs of calls in one loop, the rest one by one. */
static void rw_refs_out(struct ut_tracedat_writer *w, const struct ut_clockconv *clk,
			const struct ut_rb_ref *refs, size_t n)
{
	size_t at = 0;
	int werr = 0;

	while (at < n) {
		at += ut_tracedat_write_refs(w, 77, clk, refs + at, n - at, &werr);
		CHECK_EQ_INT(werr, 0);
		if (at < n)
			rw_event(w, clk, refs[at].rec, refs[at].raw), at++;
	}
}

static void rw_write(const char *path, int way, const struct ut_clockconv *clk)
{
	struct ut_tracedat_meta m = {.nr_cpus = 2, .clock = "[local] global", .compress = false};
	char err[256] = "";
	struct ut_tracedat_writer *w = ut_tracedat_create(path, &m, err, sizeof(err));
	struct rw_writer k = {w, clk};
	struct ut_rb_decoder d = {0};
	struct ut_rb_ref *refs = rw_refs;
	size_t n;

	CHECK(w);
	if (!w)
		return;
	if (way == 0) {
		ut_rb_walk(&d, (const uint8_t *)rw_ring, sizeof(rw_ring), 0, rw_each, &k);
	} else if (way == 1) { /* indexed, runs of calls in one loop, the rest one by one */
		n = ut_rb_index(&d, (const uint8_t *)rw_ring, sizeof(rw_ring), 0, clk, refs);
		rw_refs_out(w, clk, refs, n);
	} else { /* one pass, a page at a time; way 3: up to a time, the rest indexed */
		struct ut_tracedat_ring_run run = {.pid = 77, .clk = clk, .other = rw_other,
						   .later = rw_later, .ctx = &k,
						   .limit = way == 2 ? UINT64_MAX : rw_limit,
						   .late_before = way == 2 ? rw_limit : 0};

		rw_nlater = 0;
		for (int pg = 0; pg < RW_PAGES; pg++)
			ut_tracedat_write_ring(w, &run, &d, (const uint8_t *)rw_ring + (size_t)pg * UT_PAGE_SIZE,
					       UT_PAGE_SIZE, (uint64_t)pg * UT_PAGE_SIZE);
		CHECK_EQ_INT(run.err, 0);
		CHECK_EQ_INT(run.unwritten, 0);
		CHECK(way == 2 ? run.calls == rw_ncalls : run.calls > 300);
		CHECK(way != 2 || run.last_ts == ut_clock_to_trace(clk, rw_last_raw));
		CHECK_EQ_INT(run.late, way == 2 ? rw_nbefore : 0); /* counted, written all the same */
		CHECK(way == 2 ? !run.held && !rw_nlater : run.held && rw_nlater > 100);
		CHECK(run.last_ts <= (way == 2 ? UINT64_MAX : rw_limit)); /* nothing past it */
		rw_refs_out(w, clk, refs, rw_nlater);
	}
	CHECK_EQ_INT(ut_tracedat_close(w), 0);
}

/*
 * The record writer's ways to the file -- each record decoded then
 * written, an index then runs of calls (ut_tracedat_write_refs), one pass
 * from the ring's layout (ut_tracedat_write_ring), the same up to a time
 * and the rest indexed -- write the very same bytes, with a clock
 * conversion (a graph exit's calltime too).
 */
TEST(record_writer_ways_same_bytes)
{
	struct ut_clockconv clk = {.clock = UT_CLOCK_LOCAL, .tsc0 = 900000, .mono0 = 5000000000ull,
				   .mult = 3u << 20, .shift = 21};
	const char *path[4] = {path_in_dir("each.dat"), path_in_dir("refs.dat"),
			       path_in_dir("ring.dat"), path_in_dir("ringlimit.dat")};
	unsigned char *d[4];
	size_t len[4];

	make_dir();
	rw_fill();
	rw_limit = ut_clock_to_trace(&clk, rw_mid_raw);
	for (int i = 0; i < 4; i++) {
		rw_write(path[i], i, &clk);
		d[i] = slurp(path[i], &len[i]);
	}
	CHECK(len[0] > (size_t)3 * 4096);
	for (int i = 1; i < 4; i++) {
		CHECK_EQ_INT(len[i], len[0]);
		CHECK(len[i] == len[0] && !memcmp(d[i], d[0], len[0]));
	}
	for (int i = 0; i < 4; i++)
		free(d[i]);
}

TEST(compressed)
{
	const char *v6 = path_in_dir("v6.dat"), *v7 = path_in_dir("v7.dat");
	const char *cut = path_in_dir("v7cut.dat");
	size_t len6, len7, cnt[2], n;
	unsigned char *d6, *d7;
	char err[256];
	bool opened;
	int ret;

	make_dir();
	gen_events();
	make_order();
	g_compress = false;
	write_file(v6);
	g_compress = true;
	write_file(v7);
	g_compress = false;
	d6 = slurp(v6, &len6);
	d7 = slurp(v7, &len7);
	CHECK(d7[10] == '7' && memmem(d7, 64, "zstd", 5));
	CHECK(len7 < len6);
	n = read_all(v7, &ret, err, sizeof(err), true, &opened, cnt);
	CHECK_EQ_INT(ret, 0);
	CHECK_EQ_INT(n, G.n);
	if (!system("command -v trace-cmd >/dev/null 2>&1")) {
		char *a = tc_report(v6), *b = tc_report(v7);

		CHECK(strstr(a, "function:"));
		if (strcmp(a, b) != 0)
			fprintf(stderr, "trace-cmd report differs:\n--- v6\n%.2000s\n--- v7\n%.2000s\n", a, b);
		CHECK(!strcmp(a, b));
		free(a);
		free(b);
	}
	/* cut short: the options come last, so the file is refused, named */
	spit(cut, d7, len7 / 2);
	n = read_all(cut, &ret, err, sizeof(err), true, &opened, cnt);
	CHECK(!opened && n == 0);
	CHECK(strstr(err, "options") && strstr(err, "past the end") && strstr(err, cut));
	/*
	 * a damaged frame (the first chunk, at the page after the header):
	 * an error naming the chunk
	 */
	memcpy(d6, d7, len7);
	for (size_t i = 0; i < 64; i++)
		d6[4096 + 4 + 8 + 16 + i] ^= 0x5a;
	spit(cut, d6, len7);
	read_all(cut, &ret, err, sizeof(err), false, &opened, cnt);
	CHECK(opened);
	CHECK_EQ_INT(ret, -1);
	CHECK(strstr(err, "compressed chunk") && strstr(err, "offset 0x"));
	free(d6);
	free(d7);
}

int main(void)
{
	make_dir();
	RUN(round_trip);
	RUN(writer_edges);
	RUN(truncation);
	RUN(random_corruption);
	RUN(cpu_cursors);
	RUN(header_sections);
	RUN(worked_example);
	RUN(exit_layouts);
	RUN(signal_events);
	RUN(probe_events);
	RUN(trace_cmd_report);
	RUN(compressed);
	RUN(write_call_same_bytes);
	RUN(record_writer_ways_same_bytes);
	cleanup();
	TEST_EXIT();
}

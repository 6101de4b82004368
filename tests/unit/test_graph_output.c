// SPDX-License-Identifier: MIT
/*
 * Unit tests for the function_graph formatter (common/output/function_graph.c).
 * Expected texts follow SPEC §13 and the kernel's trace_functions_graph.c
 * printer: column widths, duration formatting, markers, braces, comments
 * and task-switch blocks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/output/graph.h"
#include "common/output/output.h"
#include "ut_test.h"

/* ---- fixtures ---- */

#define F_MAIN 0x1000
#define F_WORK 0x2000
#define F_READ 0x3000
#define F_INFLATE 0x7f0000004000ULL

static const char *test_comm(void *ctx, int32_t pid)
{
	switch (pid) {
	case 100: return "bash";
	case 200: return "kworker/0:1";
	case 1234567: return "kworker/u8:2";
	}
	return NULL;
}

static struct ut_symtab *syms;

static const struct ut_symtab *test_syms(void)
{
	if (syms)
		return syms;
	syms = ut_symtab_new();
	CHECK(syms);
	CHECK(!ut_symtab_add(syms, F_MAIN, 0x100, "main", NULL));
	CHECK(!ut_symtab_add(syms, F_WORK, 0x100, "do_work", NULL));
	CHECK(!ut_symtab_add(syms, F_READ, 0x100, "read_file", NULL));
	CHECK(!ut_symtab_add(syms, F_INFLATE, 0x100, "inflate", "libz"));
	ut_symtab_finish(syms);
	return syms;
}

struct fixture {
	struct ut_out *o;
	struct ut_graph_out *g;
};

/* A function_graph formatter for @nr_cpus CPUs with up to 3 option words. */
static struct fixture new_fix(int nr_cpus, const char *o1, const char *o2, const char *o3)
{
	struct ut_out_cfg cfg = {
		.tracer = "function_graph",
		.syms = test_syms(),
		.comm = test_comm,
		.nr_cpus = nr_cpus,
		.release = "6.18.44-test",
		.preempt_model = "PREEMPT(none)",
	};
	struct fixture fx;
	const char *words[] = { o1, o2, o3 };
	size_t i;

	fx.o = ut_out_new(&cfg);
	CHECK(fx.o);
	for (i = 0; i < 3; i++)
		if (words[i])
			CHECK_EQ_INT(ut_out_set_option(fx.o, words[i]), 0);
	fx.g = ut_graph_out_new(fx.o);
	CHECK(fx.g);
	return fx;
}

static void free_fix(struct fixture *fx)
{
	ut_graph_out_free(fx->g);
	ut_out_free(fx->o);
}

static struct ut_event ent(int32_t pid, uint32_t cpu, uint64_t ts, uint64_t func, uint32_t depth)
{
	struct ut_event ev = {
		.ts = ts, .pid = pid, .cpu = cpu, .type = UT_EV_FUNCGRAPH_ENTRY,
		.ip = func, .depth = depth,
	};
	return ev;
}

/* A return at @ts from a call that began at @calltime. */
static struct ut_event ret(int32_t pid, uint32_t cpu, uint64_t calltime, uint64_t ts,
			   uint64_t func, uint32_t depth)
{
	struct ut_event ev = {
		.ts = ts, .pid = pid, .cpu = cpu, .type = UT_EV_FUNCGRAPH_EXIT,
		.ip = func, .depth = depth, .calltime = calltime, .rettime = ts,
	};
	return ev;
}

static struct ut_event marker(int32_t pid, uint32_t cpu, uint64_t ts, const char *text)
{
	struct ut_event ev = {
		.ts = ts, .pid = pid, .cpu = cpu, .type = UT_EV_PRINT, .preempt = 1, .str = text,
	};
	return ev;
}

/* Output to a string. */
struct sink {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *sink_open(struct sink *s)
{
	s->buf = NULL;
	s->len = 0;
	s->f = open_memstream(&s->buf, &s->len);
	CHECK(s->f);
	return s->f;
}

static const char *sink_text(struct sink *s)
{
	fclose(s->f);
	s->f = NULL;
	return s->buf;
}

/*
 * Print @evs (already in timestamp order) the way a `trace` reader would:
 * each event with the next one of its CPU, skipping events consumed as a
 * leaf's return, unhandled ones through the ordinary formatter.
 */
static const char *render(struct fixture *fx, struct sink *s, const struct ut_event *evs, int n,
			  int header)
{
	char done[64] = { 0 };
	int i, j;

	CHECK(n <= 64);
	sink_open(s);
	ut_graph_start(fx->g);
	ut_out_start(fx->o, 0);
	if (header)
		ut_graph_print_header(fx->g, s->f, (uint64_t)n, (uint64_t)n);
	for (i = 0; i < n; i++) {
		const struct ut_event *next = NULL;
		int r;

		if (done[i])
			continue;
		for (j = i + 1; j < n; j++) {
			if (evs[j].cpu == evs[i].cpu) {
				next = &evs[j];
				break;
			}
		}
		r = ut_graph_print_event(fx->g, s->f, &evs[i], next);
		if (r == UT_GRAPH_CONSUMED)
			done[j] = 1;
		else if (r == UT_GRAPH_UNHANDLED)
			ut_out_print_event(fx->o, s->f, &evs[i], next);
		else
			CHECK_EQ_INT(r, UT_GRAPH_PRINTED);
	}
	return sink_text(s);
}

/* Render @evs with the given CPU count and options; compare with @want. */
static void expect(int nr_cpus, const char *o1, const char *o2, const char *o3,
		   const struct ut_event *evs, int n, int header, const char *want)
{
	struct fixture fx = new_fix(nr_cpus, o1, o2, o3);
	struct sink s;

	CHECK_EQ_STR(render(&fx, &s, evs, n, header), want);
	free(s.buf);
	free_fix(&fx);
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A call of main with a leaf do_work inside: the basic shape. */
static const struct ut_event basic[] = {
	{ .ts = 1000, .pid = 100, .cpu = 0, .type = UT_EV_FUNCGRAPH_ENTRY, .ip = F_MAIN, .depth = 0 },
	{ .ts = 2000, .pid = 100, .cpu = 0, .type = UT_EV_FUNCGRAPH_ENTRY, .ip = F_WORK, .depth = 1 },
	{ .ts = 3234, .pid = 100, .cpu = 0, .type = UT_EV_FUNCGRAPH_EXIT, .ip = F_WORK, .depth = 1,
	  .calltime = 2000, .rettime = 3234 },
	{ .ts = 6000, .pid = 100, .cpu = 0, .type = UT_EV_FUNCGRAPH_EXIT, .ip = F_MAIN, .depth = 0,
	  .calltime = 1000, .rettime = 6000 },
};

/* ---- header ---- */

TEST(header_default)
{
	expect(2, NULL, NULL, NULL, basic, 0, 1,
	       "# tracer: function_graph\n"
	       "#\n"
	       "# CPU  DURATION                  FUNCTION CALLS\n"
	       "# |     |   |                     |   |   |   |\n");
}

TEST(header_columns)
{
	/* each optional column adds its piece, in order TIME, CPU, TASK/PID, DURATION */
	expect(2, "funcgraph-abstime", "funcgraph-proc", NULL, basic, 0, 1,
	       "# tracer: function_graph\n"
	       "#\n"
	       "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
	       "#      |          |     |    |           |   |                     |   |   |   |\n");
	expect(2, "nofuncgraph-cpu", "nofuncgraph-duration", NULL, basic, 0, 1,
	       "# tracer: function_graph\n"
	       "#\n"
	       "#               FUNCTION CALLS\n"
	       "#               |   |   |   |\n");
	/* context-info=0: the two column lines go */
	expect(2, "nocontext-info", NULL, NULL, basic, 0, 1,
	       "# tracer: function_graph\n"
	       "#\n");
}

TEST(header_latency)
{
	struct ut_event evs[] = { basic[1], basic[2] };

	expect(2, "latency-format", NULL, NULL, evs, N(evs), 1,
	       "# tracer: function_graph\n"
	       "#\n"
	       "# function_graph latency trace v1.1.5 on 6.18.44-test\n"
	       "# --------------------------------------------------------------------\n"
	       "# latency: 0 us, #2/2, CPU#0 | (M:PREEMPT(none) VP:0, KP:0, SP:0 HP:0 #P:2)\n"
	       "#    -----------------\n"
	       "#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n"
	       "#    -----------------\n"
	       "#\n"
	       "#      _-----=> irqs-off        \n"
	       "#     / _----=> need-resched    \n"
	       "#    | / _---=> hardirq/softirq \n"
	       "#    || / _--=> preempt-depth   \n"
	       "#    ||| /                      \n"
	       "# CPU||||     DURATION                  FUNCTION CALLS\n"
	       "# |  ||||      |   |                     |   |   |   |\n"
	       " 0)  ..... |   1.234 us    |    do_work();\n");
	/* an empty buffer prints no banner and no columns */
	expect(2, "latency-format", NULL, NULL, evs, 0, 1, "# tracer: function_graph\n#\n");
}

/* ---- lines ---- */

TEST(default_leaf_nested_close)
{
	expect(2, NULL, NULL, NULL, basic, N(basic), 0,
	       " 0)               |  main() {\n"
	       " 0)   1.234 us    |    do_work();\n"
	       " 0)   5.000 us    |  }\n");
}

TEST(duration_text)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0.000 us    " },
		{ 999, "0.999 us    " },
		{ 1234, "1.234 us    " },
		{ 12345, "12.345 us   " },
		{ 123456, "123.456 us  " },
		{ 1234567, "1234.567 us " },
		{ 12345678, "12345.67 us " },
		{ 123456789, "123456.7 us " },
		{ 1234567890, "1234567 us  " },
		{ 12345678901ULL, "12345678 us " },
		{ 123456789012ULL, "123456789 us " },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sink s;

		ut_graph_print_duration(sink_open(&s), cases[i].ns);
		CHECK_EQ_STR(sink_text(&s), cases[i].text);
		free(s.buf);
	}
}

/* One leaf call of @ns, printed with the given options. */
static void expect_leaf(uint64_t ns, const char *o1, const char *want)
{
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_WORK, 0),
		ret(100, 0, 1000, 1000 + ns, F_WORK, 0),
	};

	expect(2, o1, NULL, NULL, evs, 2, 0, want);
}

TEST(duration_markers)
{
	/* marks are strictly-greater thresholds in ns */
	expect_leaf(10000, NULL, " 0)   10.000 us   |  do_work();\n");
	expect_leaf(10001, NULL, " 0) + 10.001 us   |  do_work();\n");
	expect_leaf(12345, NULL, " 0) + 12.345 us   |  do_work();\n");
	expect_leaf(100000, NULL, " 0) + 100.000 us  |  do_work();\n");
	expect_leaf(123456, NULL, " 0) ! 123.456 us  |  do_work();\n");
	expect_leaf(1234567, NULL, " 0) # 1234.567 us |  do_work();\n");
	expect_leaf(12345678, NULL, " 0) * 12345.67 us |  do_work();\n");
	expect_leaf(123456789, NULL, " 0) @ 123456.7 us |  do_work();\n");
	expect_leaf(1234567890, NULL, " 0) $ 1234567 us  |  do_work();\n");
	/* funcgraph-overhead=0: no mark, a space */
	expect_leaf(1234567890, "nofuncgraph-overhead", " 0)   1234567 us  |  do_work();\n");
	expect_leaf(123456, "nofuncgraph-overhead", " 0)   123.456 us  |  do_work();\n");
}

TEST(no_overhead_return)
{
	struct ut_event evs[] = {
		basic[0],
		ret(100, 0, 1000, 1000 + 2000000, F_MAIN, 0),
	};

	evs[0].ts = 1000;
	expect(2, NULL, NULL, NULL, evs, 2, 0, " 0) # 2000.000 us |  main();\n");
	/* a return line takes the mark too */
	{
		struct ut_event evs2[] = { basic[0], basic[1], basic[2],
					   ret(100, 0, 1000, 1000 + 2000000, F_MAIN, 0) };

		expect(2, NULL, NULL, NULL, evs2, 4, 0,
		       " 0)               |  main() {\n"
		       " 0)   1.234 us    |    do_work();\n"
		       " 0) # 2000.000 us |  }\n");
		expect(2, "nofuncgraph-overhead", NULL, NULL, evs2, 4, 0,
		       " 0)               |  main() {\n"
		       " 0)   1.234 us    |    do_work();\n"
		       " 0)   2000.000 us |  }\n");
	}
}

TEST(cpu_width)
{
	struct ut_event evs[] = {
		ent(100, 1, 1000, F_WORK, 0), ret(100, 1, 1000, 2500, F_WORK, 0),
		ent(200, 11, 3000, F_READ, 0), ret(200, 11, 3000, 3100, F_READ, 0),
	};

	/* nr_cpus 2: one digit */
	expect(2, NULL, NULL, NULL, evs, 2, 0, " 1)   1.500 us    |  do_work();\n");
	/* nr_cpus 16: CPU numbers go to 15, two digits, right-aligned */
	expect(16, NULL, NULL, NULL, evs, 4, 0,
	       "  1)   1.500 us    |  do_work();\n"
	       " 11)   0.100 us    |  read_file();\n");
	/* nr_cpus 101: three digits */
	expect(101, NULL, NULL, NULL, evs, 2, 0, "   1)   1.500 us    |  do_work();\n");
	/* no CPU column */
	expect(2, "nofuncgraph-cpu", NULL, NULL, evs, 2, 0, "  1.500 us    |  do_work();\n");
}

TEST(proc_column)
{
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_MAIN, 0),
		ent(100, 0, 2000, F_WORK, 1),
		ret(100, 0, 2000, 3234, F_WORK, 1),
		ret(100, 0, 1000, 6000, F_MAIN, 0),
	};

	/* "bash-100" is 8 wide: 3 spaces each side */
	expect(2, "funcgraph-proc", NULL, NULL, evs, 4, 0,
	       " 0)    bash-100    |               |  main() {\n"
	       " 0)    bash-100    |   1.234 us    |    do_work();\n"
	       " 0)    bash-100    |   5.000 us    |  }\n");
}

TEST(proc_centring)
{
	struct ut_event e1[] = { ent(200, 0, 1000, F_WORK, 0), ret(200, 0, 1000, 2000, F_WORK, 0) };
	struct ut_event e2[] = { ent(4321, 0, 1000, F_WORK, 0), ret(4321, 0, 1000, 2000, F_WORK, 0) };
	struct ut_event e3[] = { ent(1234567, 0, 1000, F_WORK, 0),
				 ret(1234567, 0, 1000, 2000, F_WORK, 0) };
	struct ut_event e4[] = { ent(0, 0, 1000, F_WORK, 0), ret(0, 0, 1000, 2000, F_WORK, 0) };

	/* comm cut to 7 ("kworker"); odd padding puts the extra space right */
	expect(2, "funcgraph-proc", NULL, NULL, e1, 2, 0,
	       " 0)  kworker-200   |   1.000 us    |  do_work();\n");
	/* unknown task */
	expect(2, "funcgraph-proc", NULL, NULL, e2, 2, 0,
	       " 0)   <...>-4321   |   1.000 us    |  do_work();\n");
	/* 15 wide: no padding, the column grows */
	expect(2, "funcgraph-proc", NULL, NULL, e3, 2, 0,
	       " 0) kworker-1234567 |   1.000 us    |  do_work();\n");
	/* pid 0 */
	expect(2, "funcgraph-proc", NULL, NULL, e4, 2, 0,
	       " 0)    <idle>-0    |   1.000 us    |  do_work();\n");
}

TEST(abstime)
{
	struct ut_event evs[] = {
		ent(100, 0, 2427295849999ULL, F_MAIN, 0),
		ent(100, 0, 2427295850500ULL, F_WORK, 1),
		ret(100, 0, 2427295850500ULL, 2427295851734ULL, F_WORK, 1),
		ret(100, 0, 2427295849999ULL, 2427296000000ULL, F_MAIN, 0),
		ent(100, 1, 5000, F_READ, 0),
		ret(100, 1, 5000, 6000, F_READ, 0),
	};

	/* the entry's time for entries and leaves, the return's for returns;
	 * microseconds truncated */
	expect(2, "funcgraph-abstime", NULL, NULL, evs, N(evs), 0,
	       " 2427.295849 |   0)               |  main() {\n"
	       " 2427.295850 |   0)   1.234 us    |    do_work();\n"
	       " 2427.296000 |   0) ! 150.001 us  |  }\n"
	       "    0.000005 |   1)   1.000 us    |  read_file();\n");
}

TEST(tail)
{
	expect(2, "funcgraph-tail", NULL, NULL, basic, N(basic), 0,
	       " 0)               |  main() {\n"
	       " 0)   1.234 us    |    do_work();\n"
	       " 0)   5.000 us    |  } /* main */\n");
}

TEST(retval)
{
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_MAIN, 0),
		ent(100, 0, 2000, F_WORK, 1),
		ret(100, 0, 2000, 3000, F_WORK, 1),
		ent(100, 0, 4000, F_READ, 1),
		ret(100, 0, 4000, 5000, F_READ, 1),
		ent(100, 0, 6000, F_READ, 1),
		ret(100, 0, 6000, 7000, F_READ, 1),
		ent(100, 0, 8000, F_READ, 1),
		ret(100, 0, 8000, 9000, F_READ, 1),
		ent(100, 0, 10000, F_READ, 1),
		ret(100, 0, 10000, 11000, F_READ, 1),
		ret(100, 0, 1000, 12000, F_MAIN, 0),
	};

	evs[2].retval = 0;
	evs[4].retval = 0x1234;
	evs[6].retval = 0xffffffea;              /* -22 as a 32-bit int */
	evs[8].retval = (uint64_t)-5000;         /* below -MAX_ERRNO: hex */
	evs[10].retval = (uint64_t)-4095;
	evs[11].retval = (uint64_t)-22;
	expect(2, "funcgraph-retval", NULL, NULL, evs, N(evs), 0,
	       " 0)               |  main() {\n"
	       " 0)   1.000 us    |    do_work(); /* ret=0x0 */\n"
	       " 0)   1.000 us    |    read_file(); /* ret=0x1234 */\n"
	       " 0)   1.000 us    |    read_file(); /* ret=-22 */\n"
	       " 0)   1.000 us    |    read_file(); /* ret=0xffffffffffffec78 */\n"
	       " 0)   1.000 us    |    read_file(); /* ret=-4095 */\n"
	       " 0) + 11.000 us   |  } /* main ret=-22 */\n");
	expect(2, "funcgraph-retval", "funcgraph-retval-hex", NULL, evs, N(evs), 0,
	       " 0)               |  main() {\n"
	       " 0)   1.000 us    |    do_work(); /* ret=0x0 */\n"
	       " 0)   1.000 us    |    read_file(); /* ret=0x1234 */\n"
	       " 0)   1.000 us    |    read_file(); /* ret=0xffffffea */\n"
	       " 0)   1.000 us    |    read_file(); /* ret=0xffffffffffffec78 */\n"
	       " 0)   1.000 us    |    read_file(); /* ret=0xfffffffffffff001 */\n"
	       " 0) + 11.000 us   |  } /* main ret=0xffffffffffffffea */\n");
	/* retval-hex alone changes nothing */
	expect(2, "funcgraph-retval-hex", NULL, NULL, basic, N(basic), 0,
	       " 0)               |  main() {\n"
	       " 0)   1.234 us    |    do_work();\n"
	       " 0)   5.000 us    |  }\n");
}

TEST(retaddr)
{
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_MAIN, 0),
		ent(100, 0, 2000, F_WORK, 1),
		ret(100, 0, 2000, 3000, F_WORK, 1),
		ret(100, 0, 1000, 4000, F_MAIN, 0),
	};

	evs[0].parent_ip = F_READ + 0x42;
	evs[1].parent_ip = F_MAIN + 0x10;
	expect(2, "funcgraph-retaddr", NULL, NULL, evs, N(evs), 0,
	       " 0)               |  main() { /* <-read_file+0x42/0x100 */\n"
	       " 0)   1.000 us    |    do_work(); /* <-main+0x10/0x100 */\n"
	       " 0)   3.000 us    |  }\n");
	expect(2, "funcgraph-retaddr", "funcgraph-retval", NULL, evs, N(evs), 0,
	       " 0)               |  main() { /* <-read_file+0x42/0x100 */\n"
	       " 0)   1.000 us    |    do_work(); /* <-main+0x10/0x100 ret=0x0 */\n"
	       " 0)   3.000 us    |  } /* main ret=0x0 */\n");
	/* without the option the addresses stay hidden */
	expect(2, NULL, NULL, NULL, evs, N(evs), 0,
	       " 0)               |  main() {\n"
	       " 0)   1.000 us    |    do_work();\n"
	       " 0)   3.000 us    |  }\n");
}

TEST(no_duration)
{
	expect(2, "nofuncgraph-duration", NULL, NULL, basic, N(basic), 0,
	       " 0) main() {\n"
	       " 0)   do_work();\n"
	       " 0) }\n");
	/* and with nothing else either */
	expect(2, "nofuncgraph-duration", "nofuncgraph-cpu", NULL, basic, N(basic), 0,
	       "main() {\n"
	       "  do_work();\n"
	       "}\n");
}

TEST(no_context_info)
{
	expect(2, "nocontext-info", "funcgraph-proc", "funcgraph-abstime", basic, N(basic), 0,
	       "main() {\n"
	       "  do_work();\n"
	       "}\n");
}

TEST(overrun)
{
	struct ut_event evs[] = { basic[0], basic[1], basic[2], basic[3] };

	evs[3].overrun = 3;
	evs[2].overrun = 7; /* a leaf shows none */
	expect(2, "funcgraph-overrun", NULL, NULL, evs, N(evs), 0,
	       " 0)               |  main() {\n"
	       " 0)   1.234 us    |    do_work();\n"
	       " 0)   5.000 us    |  }\n"
	       " (Overruns: 3)\n");
}

TEST(task_switch)
{
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_MAIN, 0),
		ret(100, 0, 1000, 2000, F_MAIN, 0),
		ent(200, 1, 2500, F_READ, 0),   /* another CPU: no block */
		ret(200, 1, 2500, 2600, F_READ, 0),
		ent(200, 0, 3000, F_WORK, 0),   /* CPU 0 goes from bash to kworker */
		ret(200, 0, 3000, 5000, F_WORK, 0),
		ent(200, 0, 6000, F_WORK, 0),   /* same task: no block */
		ret(200, 0, 6000, 7000, F_WORK, 0),
		ent(100, 0, 8000, F_MAIN, 0),   /* and back */
	};

	expect(2, NULL, NULL, NULL, evs, N(evs), 0,
	       " 0)   1.000 us    |  main();\n"
	       " 1)   0.100 us    |  read_file();\n"
	       " ------------------------------------------\n"
	       " 0)    bash-100    =>  kworker-200  \n"
	       " ------------------------------------------\n"
	       "\n"
	       " 0)   2.000 us    |  do_work();\n"
	       " 0)   1.000 us    |  do_work();\n"
	       " ------------------------------------------\n"
	       " 0)  kworker-200   =>    bash-100   \n"
	       " ------------------------------------------\n"
	       "\n"
	       " 0)               |  main() {\n");
	/* the block keeps its CPU number without the CPU column */
	expect(16, "nofuncgraph-cpu", NULL, NULL, evs + 4, 5, 0,
	       "  2.000 us    |  do_work();\n"
	       "  1.000 us    |  do_work();\n"
	       " ------------------------------------------\n"
	       "  0)  kworker-200   =>    bash-100   \n"
	       " ------------------------------------------\n"
	       "\n"
	       "              |  main() {\n");
}

TEST(start_forgets)
{
	struct fixture fx = new_fix(2, NULL, NULL, NULL);
	struct ut_event a[] = { ent(100, 0, 1000, F_MAIN, 0) };
	struct ut_event b[] = { ent(200, 0, 2000, F_WORK, 1),
				ret(200, 0, 2000, 3000, F_MAIN, 0) };
	struct sink s;

	render(&fx, &s, a, 1, 0);
	free(s.buf);
	/* a new pass: no task switch from the old pass, no open call of main */
	CHECK_EQ_STR(render(&fx, &s, b, 2, 0),
		     " 0)               |    do_work() {\n"
		     " 0)   1.000 us    |  } /* main */\n");
	free(s.buf);
	free_fix(&fx);
}

TEST(comments)
{
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_MAIN, 0),
		marker(100, 0, 1100, "in main\n"),
		ent(100, 0, 1200, F_WORK, 1),
		marker(100, 0, 1300, "in do_work\n"),
		ent(100, 0, 1400, F_READ, 2),
		ret(100, 0, 1400, 1500, F_READ, 2),
		marker(100, 0, 1600, "after a leaf"),
		ret(100, 0, 1200, 1700, F_WORK, 1),
		marker(100, 0, 1800, "two\nlines\n\n"),
		ret(100, 0, 1000, 1900, F_MAIN, 0),
		marker(100, 0, 2000, "outside\n"),
	};

	/* depth+1 indentation, except directly inside a depth-0 call */
	expect(2, NULL, NULL, NULL, evs, N(evs), 0,
	       " 0)               |  main() {\n"
	       " 0)               |  /* in main */\n"
	       " 0)               |    do_work() {\n"
	       " 0)               |      /* in do_work */\n"
	       " 0)   0.100 us    |      read_file();\n"
	       " 0)               |      /* after a leaf */\n"
	       " 0)   0.500 us    |    }\n"
	       " 0)               |  /* two\nlines\n */\n"
	       " 0)   0.900 us    |  }\n"
	       " 0)               |  /* outside */\n");
	/* without the duration column */
	expect(2, "funcgraph-proc", "nofuncgraph-duration", NULL, evs, 2, 0,
	       " 0)    bash-100    | main() {\n"
	       " 0)    bash-100    | /* in main */\n");
}

TEST(comment_task_switch_and_stack)
{
	uint64_t callers[] = { 0x7f00dead0000ULL, 0x401234 };
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_MAIN, 0),
		marker(200, 0, 1100, "from kworker\n"),
		{ .ts = 1200, .pid = 100, .cpu = 0, .type = UT_EV_USER_STACK,
		  .nr_callers = 2, .callers = callers },
	};

	expect(2, NULL, NULL, NULL, evs, N(evs), 0,
	       " 0)               |  main() {\n"
	       " ------------------------------------------\n"
	       " 0)    bash-100    =>  kworker-200  \n"
	       " ------------------------------------------\n"
	       "\n"
	       " 0)               |  /* from kworker */\n"
	       " ------------------------------------------\n"
	       " 0)  kworker-200   =>    bash-100   \n"
	       " ------------------------------------------\n"
	       "\n"
	       " 0)               |  /* <user stack trace>\n"
	       " =>  <00007f00dead0000>\n"
	       " =>  <0000000000401234> */\n");
}

TEST(function_events_unhandled)
{
	struct fixture fx = new_fix(2, NULL, NULL, NULL);
	struct ut_event fn = {
		.ts = 1000, .pid = 100, .cpu = 0, .type = UT_EV_FUNCTION,
		.ip = F_WORK, .parent_ip = F_MAIN,
	};
	struct ut_event stack = { .ts = 1000, .pid = 100, .cpu = 0, .type = UT_EV_KERNEL_STACK };
	struct ut_event unknown = { .ts = 1000, .pid = 100, .cpu = 0, .type = 99 };
	struct sink s;

	sink_open(&s);
	CHECK_EQ_INT(ut_graph_print_event(fx.g, s.f, &fn, NULL), UT_GRAPH_UNHANDLED);
	CHECK_EQ_INT(ut_graph_print_event(fx.g, s.f, &stack, NULL), UT_GRAPH_UNHANDLED);
	CHECK_EQ_INT(ut_graph_print_event(fx.g, s.f, &unknown, NULL), UT_GRAPH_UNHANDLED);
	CHECK_EQ_STR(sink_text(&s), "");
	free(s.buf);

	/* through render(): the ordinary line of the function tracer */
	CHECK_EQ_STR(render(&fx, &s, &fn, 1, 0),
		     "            bash-100     [000] .....     0.000001: do_work <-main\n");
	free(s.buf);
	free_fix(&fx);
}

TEST(exit_without_entry)
{
	struct ut_event evs[] = {
		ret(100, 0, 500, 1500, F_READ, 1),  /* entry lost */
		ret(100, 0, 100, 2000, F_MAIN, 0),
		ent(100, 0, 3000, F_WORK, 0),
		ret(100, 0, 2900, 4000, F_READ, 0), /* not do_work's return */
	};

	expect(2, NULL, NULL, NULL, evs, N(evs), 0,
	       " 0)   1.000 us    |    } /* read_file */\n"
	       " 0)   1.900 us    |  } /* main */\n"
	       " 0)               |  do_work() {\n"
	       " 0)   1.100 us    |  } /* read_file */\n");
}

TEST(leaf_needs_same_task_and_function)
{
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_MAIN, 0),
		ret(200, 0, 900, 1100, F_MAIN, 0),   /* another task's return */
	};
	struct ut_event evs2[] = {
		ent(100, 0, 1000, F_MAIN, 0),
		ret(100, 1, 1000, 1100, F_MAIN, 0),  /* returned on another CPU */
	};

	expect(2, NULL, NULL, NULL, evs, N(evs), 0,
	       " 0)               |  main() {\n"
	       " ------------------------------------------\n"
	       " 0)    bash-100    =>  kworker-200  \n"
	       " ------------------------------------------\n"
	       "\n"
	       " 0)   0.200 us    |  }\n");
	expect(2, NULL, NULL, NULL, evs2, N(evs2), 0,
	       " 0)               |  main() {\n"
	       " 1)   0.100 us    |  } /* main */\n");
}

TEST(symbols)
{
	struct ut_event evs[] = {
		ent(100, 0, 1000, F_INFLATE + 8, 0), ret(100, 0, 1000, 2000, F_INFLATE + 8, 0),
		ent(100, 0, 3000, 0x500, 0), ret(100, 0, 3000, 4000, 0x500, 0),
	};

	/* %ps: the bare name plus the module; sym-offset/sym-addr don't apply */
	expect(2, "sym-offset", "sym-addr", NULL, evs, N(evs), 0,
	       " 0)   1.000 us    |  inflate [libz]();\n"
	       " 0)   1.000 us    |  0x500();\n");
}

TEST(latency_lines)
{
	struct ut_event evs[] = { basic[0], basic[1], basic[2], basic[3] };

	evs[0].flags = UT_FLAG_IRQS_OFF;
	evs[0].preempt = 1;
	expect(2, "latency-format", "funcgraph-proc", NULL, evs, N(evs), 0,
	       " 0)    bash-100    |  d..1. |               |  main() {\n"
	       " 0)    bash-100    |  ..... |   1.234 us    |    do_work();\n"
	       " 0)    bash-100    |  ..... |   5.000 us    |  }\n");
}

int main(void)
{
	RUN(header_default);
	RUN(header_columns);
	RUN(header_latency);
	RUN(default_leaf_nested_close);
	RUN(duration_text);
	RUN(duration_markers);
	RUN(no_overhead_return);
	RUN(cpu_width);
	RUN(proc_column);
	RUN(proc_centring);
	RUN(abstime);
	RUN(tail);
	RUN(retval);
	RUN(retaddr);
	RUN(no_duration);
	RUN(no_context_info);
	RUN(overrun);
	RUN(task_switch);
	RUN(start_forgets);
	RUN(comments);
	RUN(comment_task_switch_and_stack);
	RUN(function_events_unhandled);
	RUN(exit_without_entry);
	RUN(leaf_needs_same_task_and_function);
	RUN(symbols);
	RUN(latency_lines);
	ut_symtab_free(syms);
	TEST_EXIT();
}

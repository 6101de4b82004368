// SPDX-License-Identifier: MIT
/*
 * Unit tests for the output formatter (common/output/).  Expected texts of
 * headers and marker lines are copied from the kernel captures in
 * shared/reference/ftrace/10_trace_header_variants_nop.txt and friends; the
 * test picks event values that reproduce those lines.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/output/output.h"
#include "ut_test.h"

/* ---- fixtures ---- */

static const char *test_comm(void *ctx, int32_t pid)
{
	switch (pid) {
	case 1977: return "bash";
	case 6660: case 6688: case 6712: case 6747: case 6856: case 6900: case 6989:
		return "refmark";
	case 6661: case 6690: case 6713: case 6748: case 6858: case 6990:
		return "sh";
	case 4242: return "a-very-long-command-name";
	}
	return NULL;
}

static int32_t test_tgid(void *ctx, int32_t pid)
{
	return pid == 4242 ? 4000 : -1;
}

static struct ut_symtab *test_syms(void)
{
	struct ut_symtab *st = ut_symtab_new();

	CHECK(st);
	CHECK(!ut_symtab_add(st, 0x401000, 0x20, "do_sys_open", NULL));
	CHECK(!ut_symtab_add(st, 0x402000, 0x40, "__x64_sys_openat", NULL));
	CHECK(!ut_symtab_add(st, 0x7f0000001000, 0x100, "inflate", "libz"));
	ut_symtab_finish(st);
	return st;
}

static struct ut_out_cfg base_cfg(const char *tracer)
{
	struct ut_out_cfg cfg = {
		.tracer = tracer,
		.comm = test_comm,
		.tgid = test_tgid,
		.nr_cpus = 2,
		.release = "6.18.44-fc-v657",
		.preempt_model = "PREEMPT(none)",
	};
	return cfg;
}

/* An output sink: a growing string. */
struct sink {
	char *buf;
	size_t len;
	FILE *f;
};

static void sink_open(struct sink *s)
{
	s->buf = NULL;
	s->len = 0;
	s->f = open_memstream(&s->buf, &s->len);
	CHECK(s->f);
}

/* Close the stream and return its text (owned by @s). */
static const char *sink_text(struct sink *s)
{
	fclose(s->f);
	s->f = NULL;
	return s->buf;
}

static struct ut_event marker(int32_t pid, uint32_t cpu, uint64_t ts, const char *text)
{
	struct ut_event ev = {
		.ts = ts, .pid = pid, .cpu = cpu, .type = UT_EV_PRINT,
		.preempt = 1, .str = text,
	};
	return ev;
}

static struct ut_event fn(int32_t pid, uint32_t cpu, uint64_t ts, uint64_t ip, uint64_t pip)
{
	struct ut_event ev = {
		.ts = ts, .pid = pid, .cpu = cpu, .type = UT_EV_FUNCTION,
		.ip = ip, .parent_ip = pip,
	};
	return ev;
}

/* Print a header for @n events plus the events, each followed by the next. */
static const char *render(struct ut_out *o, struct sink *s, const struct ut_event *evs,
			  int n, int header)
{
	int i;

	sink_open(s);
	ut_out_start(o, 0);
	if (header)
		ut_out_print_header(o, s->f, n, n);
	for (i = 0; i < n; i++)
		ut_out_print_event(o, s->f, &evs[i], i + 1 < n ? &evs[i + 1] : NULL);
	return sink_text(s);
}

static struct ut_out *new_out(const char *tracer, const char *opt1, const char *opt2)
{
	struct ut_out_cfg cfg = base_cfg(tracer);
	struct ut_out *o = ut_out_new(&cfg);

	CHECK(o);
	if (opt1)
		CHECK_EQ_INT(ut_out_set_option(o, opt1), 0);
	if (opt2)
		CHECK_EQ_INT(ut_out_set_option(o, opt2), 0);
	return o;
}

/* ---- headers (10_trace_header_variants_nop.txt) ---- */

#define NS(s, us) ((uint64_t)(s) * 1000000000ULL + (uint64_t)(us) * 1000ULL)

TEST(header_default)
{
	struct ut_out *o = new_out("nop", NULL, NULL);
	struct ut_event evs[] = {
		marker(6660, 1, NS(2427, 295849), "hello from refmark\n"),
		marker(6661, 1, NS(2427, 296867), "second marker (pid 6661)\n"),
	};
	struct sink s;

	CHECK_EQ_STR(render(o, &s, evs, 2, 1),
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 2/2   #P:2\n"
		"#\n"
		"#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n"
		"         refmark-6660    [001] ...1.  2427.295849: tracing_mark_write: hello from refmark\n"
		"              sh-6661    [001] ...1.  2427.296867: tracing_mark_write: second marker (pid 6661)\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(header_latency)
{
	struct ut_out *o = new_out("nop", "latency-format", NULL);
	uint64_t start = NS(100, 0);
	struct ut_event evs[] = {
		marker(6688, 1, start + 16761000, "hello from refmark\n"),
		marker(6690, 1, start + 17662000, "second marker (pid 6690)\n"),
	};
	struct sink s;

	ut_out_set_buffer_start(o, start);
	CHECK_EQ_STR(render(o, &s, evs, 2, 1),
		"# tracer: nop\n"
		"#\n"
		"# nop latency trace v1.1.5 on 6.18.44-fc-v657\n"
		"# --------------------------------------------------------------------\n"
		"# latency: 0 us, #2/2, CPU#0 | (M:PREEMPT(none) VP:0, KP:0, SP:0 HP:0 #P:2)\n"
		"#    -----------------\n"
		"#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n"
		"#    -----------------\n"
		"#\n"
		"#                    _------=> CPU#            \n"
		"#                   / _-----=> irqs-off/BH-disabled\n"
		"#                  | / _----=> need-resched    \n"
		"#                  || / _---=> hardirq/softirq \n"
		"#                  ||| / _--=> preempt-depth   \n"
		"#                  |||| / _-=> migrate-disable \n"
		"#                  ||||| /     delay           \n"
		"#  cmd     pid     |||||| time  |   caller     \n"
		"#     \\   /        ||||||  \\    |    /       \n"
		" refmark-6688      1...1. 16761us!: tracing_mark_write: hello from refmark\n"
		"      sh-6690      1...1. 17662us : tracing_mark_write: second marker (pid 6690)\n");
	free(s.buf);

	/* record-tgid does not change the latency layout */
	CHECK_EQ_INT(ut_out_set_option(o, "record-tgid"), 0);
	render(o, &s, evs, 2, 1);
	CHECK(strstr(s.buf, "\n refmark-6688      1...1. 16761us!: tracing_mark_write"));
	free(s.buf);
	ut_out_free(o);
}

TEST(header_latency_default_model)
{
	struct ut_out_cfg cfg = base_cfg("function");
	struct ut_out *o;
	struct sink s;

	cfg.preempt_model = NULL;
	o = ut_out_new(&cfg);
	CHECK_EQ_INT(ut_out_set_option(o, "latency-format"), 0);
	sink_open(&s);
	ut_out_print_header(o, s.f, 5, 7);
	sink_text(&s);
	CHECK(strstr(s.buf, "# function latency trace v1.1.5 on 6.18.44-fc-v657\n"));
	CHECK(strstr(s.buf, "# latency: 0 us, #5/7, CPU#0 | (M:PREEMPT(full) VP:0, KP:0, SP:0 HP:0 #P:2)\n"));
	free(s.buf);
	ut_out_free(o);
}

TEST(header_record_tgid)
{
	struct ut_out *o = new_out("nop", "record-tgid", NULL);
	struct ut_event evs[] = {
		marker(6712, 1, NS(2427, 488149), "hello from refmark\n"),
		marker(6713, 1, NS(2427, 489285), "second marker (pid 6713)\n"),
	};
	struct sink s;

	evs[0].tgid = 6712;
	evs[1].tgid = 6713;
	CHECK_EQ_STR(render(o, &s, evs, 2, 1),
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 2/2   #P:2\n"
		"#\n"
		"#                                          _-----=> irqs-off/BH-disabled\n"
		"#                                         / _----=> need-resched\n"
		"#                                        | / _---=> hardirq/softirq\n"
		"#                                        || / _--=> preempt-depth\n"
		"#                                        ||| / _-=> migrate-disable\n"
		"#                                        |||| /     delay\n"
		"#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |           |       |   |||||     |         |\n"
		"         refmark-6712    (   6712) [001] ...1.  2427.488149: tracing_mark_write: hello from refmark\n"
		"              sh-6713    (   6713) [001] ...1.  2427.489285: tracing_mark_write: second marker (pid 6713)\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(header_irq_info_off)
{
	struct ut_out *o = new_out("nop", "noirq-info", NULL);
	struct ut_event evs[] = {
		marker(6747, 0, NS(2427, 592472), "hello from refmark\n"),
		marker(6748, 0, NS(2427, 593875), "second marker (pid 6748)\n"),
	};
	struct sink s;

	CHECK_EQ_STR(render(o, &s, evs, 2, 1),
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 2/2   #P:2\n"
		"#\n"
		"#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
		"#              | |         |         |         |\n"
		"         refmark-6747    [000]   2427.592472: tracing_mark_write: hello from refmark\n"
		"              sh-6748    [000]   2427.593875: tracing_mark_write: second marker (pid 6748)\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(header_tgid_irq_info_off)
{
	struct ut_out *o = new_out("nop", "record-tgid", "noirq-info");
	struct ut_event evs[] = {
		marker(6801, 0, NS(2427, 760788), "hello from refmark\n"),
	};
	struct sink s;

	evs[0].tgid = 6801;
	CHECK_EQ_STR(render(o, &s, evs, 1, 1),
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 1/1   #P:2\n"
		"#\n"
		"#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
		"#              | |           |       |         |         |\n"
		"           <...>-6801    (   6801) [000]   2427.760788: tracing_mark_write: hello from refmark\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(header_context_info_off)
{
	struct ut_out *o = new_out("nop", "nocontext-info", NULL);
	struct ut_event evs[] = {
		marker(6771, 0, NS(2427, 1), "hello from refmark\n"),
		marker(6772, 0, NS(2427, 2), "second marker (pid 6772)\n"),
	};
	struct sink s;

	CHECK_EQ_STR(render(o, &s, evs, 2, 1),
		"# tracer: nop\n"
		"#\n"
		"tracing_mark_write: hello from refmark\n"
		"tracing_mark_write: second marker (pid 6772)\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(header_verbose_and_empty)
{
	struct ut_out *o = new_out("nop", "verbose", NULL);
	struct ut_event evs[] = {
		marker(6900, 0, NS(2427, 920373), "hello from refmark\n"),
	};
	struct sink s;

	CHECK_EQ_STR(render(o, &s, evs, 1, 1),
		"# tracer: nop\n"
		"#\n"
		"         refmark-6900    [000] ...1.  2427.920373: tracing_mark_write: hello from refmark\n");
	free(s.buf);
	ut_out_free(o);

	/* latency-format with an empty buffer: only the first two lines */
	o = new_out("nop", "latency-format", NULL);
	CHECK_EQ_STR(render(o, &s, NULL, 0, 1), "# tracer: nop\n#\n");
	free(s.buf);
	ut_out_free(o);

	o = new_out("nop", NULL, NULL);
	CHECK_EQ_STR(render(o, &s, NULL, 0, 1),
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 0/0   #P:2\n"
		"#\n"
		"#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(latency_verbose)
{
	struct ut_out *o = new_out("nop", "latency-format", "verbose");
	/* chosen so the rounded times match the capture: [90b604a7], +0.850ms */
	uint64_t t1 = 2427847846500ULL, t2 = t1 + 849500;
	struct ut_event evs[] = {
		marker(6856, 0, t1, "hello from refmark\n"),
		marker(6858, 0, t2, "second marker (pid 6858)\n"),
	};
	struct sink s;

	ut_out_set_buffer_start(o, t1 - 20748000 + 400);
	CHECK_EQ_STR(render(o, &s, evs, 2, 1),
		"# tracer: nop\n"
		"#\n"
		"# nop latency trace v1.1.5 on 6.18.44-fc-v657\n"
		"# --------------------------------------------------------------------\n"
		"# latency: 0 us, #2/2, CPU#0 | (M:PREEMPT(none) VP:0, KP:0, SP:0 HP:0 #P:2)\n"
		"#    -----------------\n"
		"#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n"
		"#    -----------------\n"
		"#\n"
		"         refmark    6856   0 0 00000001 00000000 [90b604a7] 20.748ms (+0.850ms): tracing_mark_write: hello from refmark\n"
		"              sh    6858   0 0 00000001 00000001 [90b607f8] 21.597ms (+0.000ms): tracing_mark_write: second marker (pid 6858)\n");
	free(s.buf);
	ut_out_free(o);
}

/* ---- body modes ---- */

TEST(raw_hex_marker)
{
	struct ut_out *o = new_out("nop", "raw", NULL);
	struct ut_event evs[] = {
		marker(6989, 1, 2428096249405ULL, "hello from refmark\n"),
		marker(6990, 1, 2428097517241ULL, "second marker (pid 6990)\n"),
	};
	struct sink s;

	evs[0].ip = evs[1].ip = 0xffffffff81498b1aULL;
	CHECK_EQ_STR(render(o, &s, evs, 2, 0),
		"6989 1 2428096249405 # ffffffff81498b1a hello from refmark\n"
		"6990 1 2428097517241 # ffffffff81498b1a second marker (pid 6990)\n");
	free(s.buf);
	ut_out_free(o);

	o = new_out("nop", "hex", NULL);
	evs[0] = marker(0x1b74, 1, 0x2355b4b3163ULL, "x\n");
	evs[1] = marker(0x1b77, 1, 0x2355b5c4154ULL, "y\n");
	CHECK_EQ_STR(render(o, &s, evs, 2, 0),
		"00001b74 00000001 000002355b4b3163 type: 5\n"
		"\n"
		"00001b77 00000001 000002355b5c4154 type: 5\n"
		"\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(printk_msg_only)
{
	struct ut_out *o = new_out("nop", "printk-msg-only", NULL);
	struct ut_event evs[] = {
		marker(6989, 1, NS(1, 0), "hello from refmark\n"),
		marker(6990, 1, NS(1, 1), "no newline stored"),
	};
	struct sink s;

	CHECK_EQ_STR(render(o, &s, evs, 2, 0),
		"hello from refmark\n"
		"no newline stored\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(function_lines)
{
	struct ut_symtab *st = test_syms();
	struct ut_out_cfg cfg = base_cfg("function");
	struct ut_event ev = fn(1977, 0, NS(17284, 993652), 0x401000, 0x402014);
	struct ut_out *o;
	struct sink s;

	cfg.syms = st;
	o = ut_out_new(&cfg);
	CHECK(o);

	render(o, &s, &ev, 1, 0);
	CHECK_EQ_STR(s.buf,
		"            bash-1977    [000] ..... 17284.993652: do_sys_open <-__x64_sys_openat\n");
	free(s.buf);

	CHECK_EQ_INT(ut_out_set_option(o, "sym-offset"), 0);
	render(o, &s, &ev, 1, 0);
	CHECK_EQ_STR(s.buf,
		"            bash-1977    [000] ..... 17284.993652: do_sys_open+0x0/0x20 <-__x64_sys_openat+0x14/0x40\n");
	free(s.buf);

	CHECK_EQ_INT(ut_out_set_option(o, "sym-addr"), 0);
	render(o, &s, &ev, 1, 0);
	CHECK_EQ_STR(s.buf,
		"            bash-1977    [000] ..... 17284.993652: do_sys_open+0x0/0x20 <0000000000401000>"
		" <-__x64_sys_openat+0x14/0x40 <0000000000402014>\n");
	free(s.buf);

	CHECK_EQ_INT(ut_out_set_option(o, "nosym-offset"), 0);
	CHECK_EQ_INT(ut_out_set_option(o, "noprint-parent"), 0);
	render(o, &s, &ev, 1, 0);
	CHECK_EQ_STR(s.buf,
		"            bash-1977    [000] ..... 17284.993652: do_sys_open <0000000000401000>\n");
	free(s.buf);

	ut_out_free(o);
	ut_symtab_free(st);
}

/* func-no-repeats (SPEC §12): a run of one call prints once, then a func_repeats line. */
TEST(func_no_repeats)
{
	struct ut_symtab *st = test_syms();
	struct ut_out_cfg cfg = base_cfg("function");
	struct ut_event ev[] = {
		fn(1977, 0, NS(100, 1), 0x401000, 0x402014),
		fn(1978, 1, NS(100, 2), 0x401000, 0x402014), /* another thread: its own run */
		fn(1977, 0, NS(100, 3), 0x401000, 0x402014),
		{.ts = NS(100, 3), .pid = 1977, .type = UT_EV_KERNEL_STACK}, /* its stack: folded too */
		fn(1977, 0, NS(100, 4), 0x401000, 0x402014),
		fn(1977, 0, NS(100, 7), 0x401000, 0x402000), /* another place: ends the run */
		fn(1978, 1, NS(100, 8), 0x401000, 0x402014),
	};
	uint64_t callers[] = {0x401000, UINT64_MAX};
	struct ut_out *o;
	struct sink s;

	ev[3].nr_callers = 2;
	ev[3].callers = callers;
	cfg.syms = st;
	o = ut_out_new(&cfg);
	CHECK(o);
	CHECK_EQ_INT(ut_out_set_option(o, "func-no-repeats"), 0);
	render(o, &s, ev, 7, 0);
	CHECK_EQ_STR(s.buf,
		"            bash-1977    [000] .....   100.000001: do_sys_open <-__x64_sys_openat\n"
		"           <...>-1978    [001] .....   100.000002: do_sys_open <-__x64_sys_openat\n"
		"            bash-1977    [000] .....   100.000007: do_sys_open <-__x64_sys_openat"
		" (repeats: 2, last_ts:   100.000004)\n"
		"            bash-1977    [000] .....   100.000007: do_sys_open <-__x64_sys_openat\n");
	/* 1978's second call is still pending: nothing prints it yet */
	free(s.buf);
	/* raw: ip, parent, count, and how long before the line the last call was */
	ut_out_free(o);
	o = ut_out_new(&cfg);
	CHECK_EQ_INT(ut_out_set_option(o, "func-no-repeats"), 0);
	CHECK_EQ_INT(ut_out_set_option(o, "raw"), 0);
	render(o, &s, ev, 6, 0);
	CHECK(strstr(s.buf, "1977 0 100000007000 4198400 4202516 2 3000\n"));
	free(s.buf);
	ut_out_free(o);
	ut_symtab_free(st);
}

TEST(function_symbol_edge_cases)
{
	struct ut_symtab *st = test_syms();
	struct ut_out_cfg cfg = base_cfg("function");
	struct ut_event evs[] = {
		/* below every symbol, and a zero parent (no arrow) */
		fn(1977, 0, NS(1, 0), 0x500, 0),
		/* a shared-object symbol, parent 0x1234 unknown */
		fn(1977, 0, NS(1, 0), 0x7f0000001010, 0x1234),
	};
	struct ut_out *o;
	struct sink s;

	cfg.syms = st;
	o = ut_out_new(&cfg);
	CHECK_EQ_INT(ut_out_set_option(o, "nocontext-info"), 0);
	render(o, &s, evs, 2, 0);
	CHECK_EQ_STR(s.buf,
		"0x00000500\n"
		"inflate <-0x00001234\n");
	free(s.buf);

	/* sprint_symbol() forms: no padding, " [module]" */
	CHECK_EQ_INT(ut_out_set_option(o, "sym-offset"), 0);
	render(o, &s, evs, 2, 0);
	CHECK_EQ_STR(s.buf,
		"0x500\n"
		"inflate+0x10/0x100 [libz] <-0x1234\n");
	free(s.buf);
	ut_out_free(o);

	/* no symbol table at all */
	cfg.syms = NULL;
	o = ut_out_new(&cfg);
	CHECK_EQ_INT(ut_out_set_option(o, "nocontext-info"), 0);
	evs[0] = fn(1, 0, 0, 0x401000, 0x402014);
	render(o, &s, evs, 1, 0);
	CHECK_EQ_STR(s.buf, "0x00401000 <-0x00402014\n");
	free(s.buf);
	ut_out_free(o);
	ut_symtab_free(st);
}

TEST(function_raw_hex_bin_fields)
{
	struct ut_out *o = new_out("function", "raw", NULL);
	struct ut_event ev = fn(0x1b74, 1, 0x2355b4b3163ULL, 0x401000, 0x402014);
	struct sink s;

	CHECK_EQ_STR(render(o, &s, &ev, 1, 0), "7028 1 2428188176739 401000 402014\n");
	free(s.buf);
	ut_out_free(o);

	o = new_out("function", "hex", NULL);
	CHECK_EQ_STR(render(o, &s, &ev, 1, 0),
		"00001b74 00000001 000002355b4b3163 0000000000401000 0000000000402014 \n");
	free(s.buf);
	ut_out_free(o);

	o = new_out("function", "bin", NULL);
	render(o, &s, &ev, 1, 0);
	CHECK_EQ_INT(s.len, 32);
	CHECK(!memcmp(s.buf, "\x74\x1b\0\0\x01\0\0\0\x63\x31\x4b\x5b\x35\x02\0\0"
			     "\x00\x10\x40\0\0\0\0\0\x14\x20\x40\0\0\0\0\0", 32));
	free(s.buf);
	ut_out_free(o);

	o = new_out("function", "fields", NULL);
	ev.pid = 1977;
	ev.ts = NS(5, 6);
	CHECK_EQ_STR(render(o, &s, &ev, 1, 0),
		"            bash-1977    [001] .....     5.000006: function:"
		" ip=0x401000 (4198400) parent_ip=0x402014 (4202516)\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(stack_traces)
{
	struct ut_symtab *st = test_syms();
	struct ut_out_cfg cfg = base_cfg("function");
	static const uint64_t kcallers[] = { 0x401004, 0x402030, 0x999, UINT64_MAX, 0x401000 };
	static const uint64_t ucallers[] = { 0x55d10009c159, 0x7f0000001010, 0 };
	struct ut_event evs[2] = {
		{ .ts = NS(2600, 416576), .pid = 1977, .type = UT_EV_KERNEL_STACK,
		  .nr_callers = 5, .callers = kcallers },
		{ .ts = NS(2600, 416577), .pid = 1977, .type = UT_EV_USER_STACK,
		  .nr_callers = 3, .callers = ucallers },
	};
	struct ut_out *o;
	struct sink s;

	cfg.syms = st;
	o = ut_out_new(&cfg);
	render(o, &s, evs, 2, 0);
	CHECK_EQ_STR(s.buf,
		"            bash-1977    [000] .....  2600.416576: <stack trace>\n"
		" => do_sys_open\n"
		" => __x64_sys_openat\n"
		" => 0x00000999\n"
		"            bash-1977    [000] .....  2600.416577: <user stack trace>\n"
		" =>  <000055d10009c159>\n"
		" =>  <00007f0000001010>\n");
	free(s.buf);

	CHECK_EQ_INT(ut_out_set_option(o, "sym-offset"), 0);
	CHECK_EQ_INT(ut_out_set_option(o, "sym-addr"), 0);
	render(o, &s, evs, 1, 0);
	CHECK_EQ_STR(s.buf,
		"            bash-1977    [000] .....  2600.416576: <stack trace>\n"
		" => do_sys_open+0x4/0x20 <0000000000401004>\n"
		" => __x64_sys_openat+0x30/0x40 <0000000000402030>\n"
		" => 0x999 <0000000000000999>\n");
	free(s.buf);

	ut_out_free(o);
	ut_symtab_free(st);
}

/* ---- line prefix ---- */

TEST(comm_tgid_flags)
{
	struct ut_out *o = new_out("function", "record-tgid", NULL);
	struct ut_event evs[] = {
		fn(31337, 3, NS(12, 5), 0, 0),   /* unknown comm and tgid */
		fn(4242, 12, NS(12345, 999999), 0, 0), /* long comm; tgid from callback */
		fn(0, 0, NS(0, 0), 0, 0),        /* idle */
		fn(7, 0, 1499, 0, 0),            /* rounds to 0.000001 */
	};
	struct sink s;

	evs[1].flags = UT_FLAG_IRQS_OFF | UT_FLAG_NEED_RESCHED | UT_FLAG_PREEMPT_RESCHED |
		       UT_FLAG_HARDIRQ;
	evs[1].preempt = 0x21;
	evs[2].flags = 0xff;
	evs[2].preempt = 0xff;
	evs[2].tgid = 1;
	evs[3].flags = UT_FLAG_BH_OFF | UT_FLAG_SOFTIRQ | UT_FLAG_NEED_RESCHED_LAZY;
	render(o, &s, evs, 4, 0);
	CHECK_EQ_STR(s.buf,
		"           <...>-31337   (-------) [003] .....    12.000005: 0\n"
		" a-very-long-com-4242    (   4000) [012] dNh12 12345.999999: 0\n"
		"          <idle>-0       (      1) [000] DBZff     0.000000: 0\n"
		"           <...>-7       (-------) [000] bls..     0.000001: 0\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(counter_clock)
{
	struct ut_out_cfg cfg = base_cfg("nop");
	struct ut_event evs[] = {
		marker(6660, 0, 2, "clock=counter\n"),
		marker(6661, 0, 244165, "clock=uptime\n"),
	};
	struct ut_out *o;
	struct sink s;

	cfg.clock_is_counter = 1;
	o = ut_out_new(&cfg);
	render(o, &s, evs, 2, 0);
	CHECK_EQ_STR(s.buf,
		"         refmark-6660    [000] ...1.            2: tracing_mark_write: clock=counter\n"
		"              sh-6661    [000] ...1.       244165: tracing_mark_write: clock=uptime\n");
	free(s.buf);

	/* latency-format without ns: bare counts, no "us", no mark */
	CHECK_EQ_INT(ut_out_set_option(o, "latency-format"), 0);
	render(o, &s, evs, 2, 0);
	CHECK_EQ_STR(s.buf,
		" refmark-6660      0...1.    2: tracing_mark_write: clock=counter\n"
		"      sh-6661      0...1. 244165: tracing_mark_write: clock=uptime\n");
	free(s.buf);

	CHECK_EQ_INT(ut_out_set_option(o, "verbose"), 0);
	render(o, &s, evs, 2, 0);
	CHECK_EQ_STR(s.buf,
		"         refmark    6660   0 0 00000001 00000000 [0000000000000002] 2 (+244163): tracing_mark_write: clock=counter\n"
		"              sh    6661   0 0 00000001 00000001 [000000000003b9c5] 244165 (+0): tracing_mark_write: clock=uptime\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(latency_delay_marks)
{
	struct ut_out *o = new_out("function", "latency-format", NULL);
	/* gaps to the next event, in ns */
	static const uint64_t gaps[] = {
		30000, 5000, 10000, 10500, 100000, 150000, 2000000, 20000000,
		200000000, 2000000000ULL,
	};
	static const char *const want[] = {
		"    bash-1977      0.....    0us+: 0\n",
		"    bash-1977      0.....   30us : 0\n",
		"    bash-1977      0.....   35us : 0\n",
		"    bash-1977      0.....   45us+: 0\n",
		"    bash-1977      0.....   56us+: 0\n",
		"    bash-1977      0.....  156us!: 0\n",
		"    bash-1977      0.....  306us#: 0\n",
		"    bash-1977      0..... 2306us*: 0\n",
		"    bash-1977      0..... 22306us@: 0\n",
		"    bash-1977      0..... 222306us$: 0\n",
		"    bash-1977      0..... 2222306us : 0\n",
	};
	struct ut_event evs[11];
	uint64_t t = NS(50, 0);
	size_t i;
	struct sink s;

	ut_out_set_buffer_start(o, t);
	for (i = 0; i < 11; i++) {
		evs[i] = fn(1977, 0, t, 0, 0);
		if (i < 10)
			t += gaps[i];
	}
	sink_open(&s);
	ut_out_start(o, 0);
	for (i = 0; i < 11; i++)
		ut_out_print_event(o, s.f, &evs[i], i + 1 < 11 ? &evs[i + 1] : NULL);
	sink_text(&s);
	{
		char *line = s.buf;

		for (i = 0; i < 11; i++) {
			char *nl = strchr(line, '\n');

			CHECK(nl);
			CHECK(!strncmp(line, want[i], (size_t)(nl - line + 1)) &&
			      strlen(want[i]) == (size_t)(nl - line + 1));
			line = nl + 1;
		}
		CHECK(!*line);
	}
	free(s.buf);
	CHECK_EQ_INT(ut_out_delay_mark(10000), ' ');
	CHECK_EQ_INT(ut_out_delay_mark(10001), '+');
	CHECK_EQ_INT(ut_out_delay_mark(1000000001ULL), '$');
	ut_out_free(o);
}

/* ---- overflow annotations (21_, 22_) ---- */

TEST(lost_and_started)
{
	struct ut_out *o = new_out("nop", NULL, NULL);
	struct ut_event evs[] = {
		marker(6660, 1, NS(2476, 120689), "msg 0000\n"),
		marker(6660, 1, NS(2476, 120711), "msg 0001\n"),
		marker(6660, 1, NS(2476, 120712), "msg 0002\n"),
		marker(6661, 0, NS(2476, 122360), "msg 0254\n"),
		marker(6660, 1, NS(2476, 123937), "msg 0000\n"),
	};
	struct sink s;
	int i;

	sink_open(&s);
	ut_out_start(o, 1);
	for (i = 0; i < 5; i++)
		ut_out_print_event(o, s.f, &evs[i], NULL);
	sink_text(&s);
	CHECK_EQ_STR(s.buf,
		"         refmark-6660    [001] ...1.  2476.120689: tracing_mark_write: msg 0000\n"
		"         refmark-6660    [001] ...1.  2476.120711: tracing_mark_write: msg 0001\n"
		"         refmark-6660    [001] ...1.  2476.120712: tracing_mark_write: msg 0002\n"
		"##### CPU 0 buffer started ####\n"
		"              sh-6661    [000] ...1.  2476.122360: tracing_mark_write: msg 0254\n"
		"         refmark-6660    [001] ...1.  2476.123937: tracing_mark_write: msg 0000\n");
	free(s.buf);

	/* a CPU whose first line is the 2nd of the output is not annotated */
	sink_open(&s);
	ut_out_start(o, 1);
	ut_out_print_event(o, s.f, &evs[2], NULL);
	ut_out_print_event(o, s.f, &evs[3], NULL);
	sink_text(&s);
	CHECK(!strstr(s.buf, "#####"));
	free(s.buf);

	/* no overrun, or annotate off: never */
	sink_open(&s);
	ut_out_start(o, 0);
	for (i = 0; i < 5; i++)
		ut_out_print_event(o, s.f, &evs[i], NULL);
	CHECK_EQ_INT(ut_out_set_option(o, "noannotate"), 0);
	ut_out_start(o, 1);
	for (i = 0; i < 5; i++)
		ut_out_print_event(o, s.f, &evs[i], NULL);
	sink_text(&s);
	CHECK(!strstr(s.buf, "#####"));
	free(s.buf);

	sink_open(&s);
	ut_out_print_lost(o, s.f, 0, 254);
	ut_out_print_lost(o, s.f, 3, UINT64_MAX);
	ut_out_print_cpu_started(o, s.f, 1);
	sink_text(&s);
	CHECK_EQ_STR(s.buf,
		"CPU:0 [LOST 254 EVENTS]\n"
		"CPU:3 [LOST EVENTS]\n"
		"##### CPU 1 buffer started ####\n");
	free(s.buf);
	ut_out_free(o);
}

/* ---- options (01_tracefs_listing.txt) ---- */

TEST(options_listing)
{
	struct ut_out *o = new_out("nop", NULL, NULL);
	struct sink s;

	sink_open(&s);
	ut_out_print_options(o, s.f);
	sink_text(&s);
	CHECK_EQ_STR(s.buf,
		"print-parent\n" "nosym-offset\n" "nosym-addr\n" "noverbose\n" "noraw\n"
		"nohex\n" "nobin\n" "noblock\n" "nofields\n" "trace_printk\n" "annotate\n"
		"nouserstacktrace\n" "nosym-userobj\n" "noprintk-msg-only\n" "context-info\n"
		"nolatency-format\n" "record-cmd\n" "norecord-tgid\n" "overwrite\n"
		"nodisable_on_free\n" "irq-info\n" "markers\n" "noevent-fork\n"
		"trace_printk_dest\n" "copy_trace_marker\n" "nopause-on-trace\n" "hash-ptr\n"
		"function-trace\n" "nofunction-fork\n" "nostacktrace\n" "notest_nop_accept\n"
		"notest_nop_refuse\n" "sym-demangle\n" "noplt\n" "noinlined\n" "nopatch-prologue\n");
	free(s.buf);
	ut_out_free(o);
}

TEST(options_parse)
{
	struct ut_out *o = new_out("nop", NULL, NULL);
	struct ut_opts opts;
	struct sink s;

	CHECK_EQ_INT(ut_out_get_option(o, "print-parent"), 1);
	CHECK_EQ_INT(ut_out_set_option(o, "noprint-parent"), 0);
	CHECK_EQ_INT(ut_out_get_option(o, "print-parent"), 0);
	CHECK_EQ_INT(ut_out_set_option(o, " sym-offset\n"), 0);
	CHECK_EQ_INT(ut_out_get_option(o, "sym-offset"), 1);
	CHECK_EQ_INT(ut_out_set_option(o, "bogus"), -EINVAL);
	CHECK_EQ_INT(ut_out_set_option(o, "no"), -EINVAL);
	CHECK_EQ_INT(ut_out_set_option(o, ""), -EINVAL);
	CHECK_EQ_INT(ut_out_get_option(o, "bogus"), -EINVAL);
	/* another tracer's flag is unknown to trace_options */
	CHECK_EQ_INT(ut_out_set_option(o, "func_stack_trace"), -EINVAL);
	CHECK_EQ_INT(ut_out_set_option(o, "test_nop_accept"), 0);
	CHECK_EQ_INT(ut_out_set_option(o, "test_nop_refuse"), -EINVAL);
	CHECK_EQ_INT(ut_out_set_option(o, "notest_nop_refuse"), 0);
	ut_out_free(o);

	o = new_out("function", "func_stack_trace", NULL);
	CHECK_EQ_INT(ut_out_get_option(o, "func_stack_trace"), 1);
	CHECK_EQ_INT(ut_out_set_option(o, "test_nop_accept"), -EINVAL);
	sink_open(&s);
	ut_out_print_options(o, s.f);
	sink_text(&s);
	CHECK(strstr(s.buf, "nostacktrace\nfunc_stack_trace\nnofunc-no-repeats\nsym-demangle\n"));
	CHECK(!strstr(s.buf, "test_nop"));
	free(s.buf);
	ut_out_free(o);

	/* options/NAME level: any tracer's flag, values 0/1 only */
	ut_opts_init(&opts, 0);
	CHECK_EQ_INT(ut_opts_set(&opts, ut_opt_lookup("blk_classic"), 1), 0);
	CHECK_EQ_INT(ut_opts_get(&opts, UT_OPT_BLK_CLASSIC), 1);
	CHECK_EQ_INT(ut_opts_set(&opts, UT_OPT_RAW, 2), -EINVAL);
	CHECK_EQ_INT(ut_opts_get(&opts, UT_OPT_FUNCGRAPH_CPU), 1);
	CHECK_EQ_INT(ut_opts_get(&opts, UT_OPT_NR), -EINVAL);
	CHECK(ut_opt_info(UT_OPT_NR) == NULL);
	CHECK_EQ_STR(ut_opt_info(UT_OPT_SYM_USEROBJ)->name, "sym-userobj");
	/* flags utrace cannot honour keep their default: refused, with a reason */
	CHECK_EQ_INT(ut_opts_set(&opts, UT_OPT_FUNCGRAPH_ARGS, 1), -EINVAL);
	CHECK_EQ_INT(ut_opts_set(&opts, UT_OPT_FUNCGRAPH_ARGS, 0), 0);
	CHECK_EQ_INT(ut_opts_set(&opts, UT_OPT_FUNCTION_TRACE, 0), -EINVAL);
	CHECK_EQ_INT(ut_opts_get(&opts, UT_OPT_FUNCTION_TRACE), 1);
	CHECK_EQ_INT(ut_opts_parse(&opts, "function_graph", "funcgraph-args"), -EINVAL);
	CHECK_EQ_INT(ut_opts_parse(&opts, "function_graph", "nofuncgraph-args"), 0);
	CHECK(strstr(ut_opts_why(NULL, "funcgraph-args"), "not supported: "));
	CHECK_EQ_STR(ut_opts_why(NULL, "bogus"), "unknown option");
	CHECK_EQ_STR(ut_opts_why("function", "funcgraph-proc"), "unknown option");
	for (int id = 0; id < UT_OPT_NR; id++) {
		const struct ut_opt_info *in = ut_opt_info(id);

		/* every listed flag either works or says why not */
		if (in->unsupported)
			CHECK_EQ_INT(ut_opts_set(&opts, id, !in->def), -EINVAL);
	}
	CHECK_EQ_INT(ut_opts_set(&opts, UT_OPT_FUNC_NO_REPEATS, 1), 0);

	/* instances lack the top-level-only flags */
	ut_opts_init(&opts, 1);
	sink_open(&s);
	ut_opts_print(&opts, s.f, "nop", 1);
	sink_text(&s);
	CHECK(!strstr(s.buf, "record-cmd"));
	CHECK(!strstr(s.buf, "trace_printk\n"));
	CHECK(strstr(s.buf, "notrace_printk_dest\n"));
	free(s.buf);
}

int main(void)
{
	RUN(header_default);
	RUN(header_latency);
	RUN(header_latency_default_model);
	RUN(header_record_tgid);
	RUN(header_irq_info_off);
	RUN(header_tgid_irq_info_off);
	RUN(header_context_info_off);
	RUN(header_verbose_and_empty);
	RUN(latency_verbose);
	RUN(raw_hex_marker);
	RUN(printk_msg_only);
	RUN(function_lines);
	RUN(func_no_repeats);
	RUN(function_symbol_edge_cases);
	RUN(function_raw_hex_bin_fields);
	RUN(stack_traces);
	RUN(comm_tgid_flags);
	RUN(counter_clock);
	RUN(latency_delay_marks);
	RUN(lost_and_started);
	RUN(options_listing);
	RUN(options_parse);
	TEST_EXIT();
}

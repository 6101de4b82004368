// SPDX-License-Identifier: MIT
/*
 * The header at the top of the `trace` file, in each variant the options
 * select (SPEC §4.1, 10_trace_header_variants_nop.txt).  The help texts are
 * kernel output, trailing spaces included, so they are kept as literal lines.
 */
#include <inttypes.h>

#include "common/output/output.h"

/* The 6 lines explaining the flags column, indented to sit above it. */
static void print_flags_help(FILE *f, const char *indent)
{
	fprintf(f, "#%s  _-----=> irqs-off/BH-disabled\n", indent);
	fprintf(f, "#%s / _----=> need-resched\n", indent);
	fprintf(f, "#%s| / _---=> hardirq/softirq\n", indent);
	fprintf(f, "#%s|| / _--=> preempt-depth\n", indent);
	fprintf(f, "#%s||| / _-=> migrate-disable\n", indent);
	fprintf(f, "#%s|||| /     delay\n", indent);
}

static void print_entries_line(struct ut_out *o, FILE *f, uint64_t entries, uint64_t written)
{
	fprintf(f, "# entries-in-buffer/entries-written: %" PRIu64 "/%" PRIu64 "   #P:%d\n",
		entries, written, o->cfg.nr_cpus);
	fputs("#\n", f);
}

/* The normal (not latency-format) column header. */
static void print_func_help(struct ut_out *o, FILE *f, uint64_t entries, uint64_t written)
{
	int tgid = ut_out_opt(o, UT_OPT_RECORD_TGID);

	print_entries_line(o, f, entries, written);
	if (!ut_out_opt(o, UT_OPT_IRQ_INFO)) {
		if (tgid) {
			fputs("#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n", f);
			fputs("#              | |           |       |         |         |\n", f);
		} else {
			fputs("#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n", f);
			fputs("#              | |         |         |         |\n", f);
		}
		return;
	}
	/* The tgid column is 10 wide, so the help art moves right by 10. */
	print_flags_help(f, tgid ? "                                        "
				 : "                              ");
	if (tgid) {
		fputs("#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n", f);
		fputs("#              | |           |       |   |||||     |         |\n", f);
	} else {
		fputs("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n", f);
		fputs("#              | |         |   |||||     |         |\n", f);
	}
}

/*
 * The latency banner.  The kernel fills it from the max-latency snapshot,
 * which only latency tracers record; for nop and function it always shows
 * 0 us, CPU#0 and an empty task "-0", and so do we.
 */
static void print_lat_banner(struct ut_out *o, FILE *f, uint64_t entries, uint64_t written)
{
	fprintf(f, "# %s latency trace v1.1.5 on %s\n", o->tracer, o->release);
	fputs("# --------------------------------------------------------------------\n", f);
	fprintf(f, "# latency: 0 us, #%" PRIu64 "/%" PRIu64 ", CPU#0 | (M:%s VP:0, KP:0, SP:0 HP:0 #P:%d)\n",
		entries, written, o->preempt_model, o->cfg.nr_cpus);
	fputs("#    -----------------\n", f);
	fputs("#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n", f);
	fputs("#    -----------------\n", f);
	fputs("#\n", f);
}

/* The 9 help lines of latency-format; several end in spaces on purpose. */
static void print_lat_help(FILE *f)
{
	fputs("#                    _------=> CPU#            \n", f);
	fputs("#                   / _-----=> irqs-off/BH-disabled\n", f);
	fputs("#                  | / _----=> need-resched    \n", f);
	fputs("#                  || / _---=> hardirq/softirq \n", f);
	fputs("#                  ||| / _--=> preempt-depth   \n", f);
	fputs("#                  |||| / _-=> migrate-disable \n", f);
	fputs("#                  ||||| /     delay           \n", f);
	fputs("#  cmd     pid     |||||| time  |   caller     \n", f);
	fputs("#     \\   /        ||||||  \\    |    /       \n", f);
}

/**
 * ut_out_print_header() - print the `trace` file header
 * @o: the formatter (tracer name and options pick the variant)
 * @f: where to
 * @entries: events now in the buffer (E)
 * @written: E plus the events overwritten (W)
 *
 * Always starts with "# tracer: NAME" and "#".  context-info=0 stops there;
 * so does latency-format with an empty buffer.  verbose=1 drops the entries
 * line and help lines (latency-format + verbose keeps only the banner).
 * trace_pipe has no header: don't call this for it.
 */
void ut_out_print_header(struct ut_out *o, FILE *f, uint64_t entries, uint64_t written)
{
	int verbose = ut_out_opt(o, UT_OPT_VERBOSE);

	fprintf(f, "# tracer: %s\n", o->tracer);
	fputs("#\n", f);
	if (!ut_out_opt(o, UT_OPT_CONTEXT_INFO))
		return;
	if (ut_out_opt(o, UT_OPT_LATENCY_FORMAT)) {
		if (!entries)
			return;
		print_lat_banner(o, f, entries, written);
		if (!verbose)
			print_lat_help(f);
		return;
	}
	if (!verbose)
		print_func_help(o, f, entries, written);
}

// SPDX-License-Identifier: MIT
/*
 * The trace_options table: every flag the reference kernel lists under
 * options/, with its default, in the order trace_options prints them
 * (SPEC §3, 01_tracefs_listing.txt).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/output/output.h"

#define G(n, d)		{ .name = (n), .tracer = NULL, .def = (d) }
#define GT(n, d)	{ .name = (n), .tracer = NULL, .def = (d), .top_only = 1 }
#define T(t, n, d)	{ .name = (n), .tracer = (t), .def = (d) }
#define TT(t, n, d)	{ .name = (n), .tracer = (t), .def = (d), .top_only = 1 }
/* acts when recording */
#define GR(n, d)	{ .name = (n), .tracer = NULL, .def = (d), .record = 1 }
#define TR(t, n, d)	{ .name = (n), .tracer = (t), .def = (d), .record = 1 }
/* listed as the kernel lists it, but utrace cannot do it: only its default is accepted */
#define GX(n, d, why)	{ .name = (n), .tracer = NULL, .def = (d), .unsupported = (why) }
#define GTX(n, d, why)	{ .name = (n), .tracer = NULL, .def = (d), .top_only = 1, .unsupported = (why) }
#define TX(t, n, d, why) { .name = (n), .tracer = (t), .def = (d), .unsupported = (why) }

/* Indexed by enum ut_opt; the order is the kernel's trace_options order. */
static const struct ut_opt_info opt_table[UT_OPT_NR] = {
	[UT_OPT_PRINT_PARENT] = G("print-parent", 1),
	[UT_OPT_SYM_OFFSET] = G("sym-offset", 0),
	[UT_OPT_SYM_ADDR] = G("sym-addr", 0),
	[UT_OPT_VERBOSE] = G("verbose", 0),
	[UT_OPT_RAW] = G("raw", 0),
	[UT_OPT_HEX] = G("hex", 0),
	[UT_OPT_BIN] = G("bin", 0),
	[UT_OPT_BLOCK] = GX("block", 0, "trace_pipe has no poll here"),
	[UT_OPT_FIELDS] = G("fields", 0),
	[UT_OPT_TRACE_PRINTK] = GTX("trace_printk", 1, "there is no trace_printk in user space"),
	[UT_OPT_ANNOTATE] = G("annotate", 1),
	[UT_OPT_USERSTACKTRACE] = GX("userstacktrace", 0, "use func_stack_trace: its stacks are the user stacks"),
	[UT_OPT_SYM_USEROBJ] = GX("sym-userobj", 0, "it needs userstacktrace"),
	[UT_OPT_PRINTK_MSG_ONLY] = GT("printk-msg-only", 0),
	[UT_OPT_CONTEXT_INFO] = G("context-info", 1),
	[UT_OPT_LATENCY_FORMAT] = G("latency-format", 0),
	[UT_OPT_RECORD_CMD] = GTX("record-cmd", 1, "every thread's comm is always kept"),
	[UT_OPT_RECORD_TGID] = G("record-tgid", 0),
	[UT_OPT_OVERWRITE] = GR("overwrite", 1),
	[UT_OPT_DISABLE_ON_FREE] = GX("disable_on_free", 0, "there is no free_buffer file"),
	[UT_OPT_IRQ_INFO] = G("irq-info", 1),
	[UT_OPT_MARKERS] = GR("markers", 1),
	[UT_OPT_EVENT_FORK] = GR("event-fork", 0), /* set_event_pid follows forks (libutrace/eventpid.c) */
	[UT_OPT_TRACE_PRINTK_DEST] = GX("trace_printk_dest", 1, "there is no trace_printk in user space"),
	[UT_OPT_COPY_TRACE_MARKER] = GX("copy_trace_marker", 1, "trace_marker writes go to the top level only"),
	[UT_OPT_PAUSE_ON_TRACE] = G("pause-on-trace", 0), /* reading trace is a snapshot: paused either way */
	[UT_OPT_HASH_PTR] = GX("hash-ptr", 1, "no event prints pointers with %p"),
	[UT_OPT_FUNCTION_TRACE] = GX("function-trace", 1, "there are no latency tracers"),
	[UT_OPT_FUNCTION_FORK] = GX("function-fork", 0, "set_ftrace_pid does not follow forks"),
	[UT_OPT_STACKTRACE] = GX("stacktrace", 0, "use func_stack_trace"),

	[UT_OPT_TEST_NOP_ACCEPT] = T("nop", "test_nop_accept", 0),
	[UT_OPT_TEST_NOP_REFUSE] = T("nop", "test_nop_refuse", 0),

	[UT_OPT_FUNC_STACK_TRACE] = TR("function", "func_stack_trace", 0),
	[UT_OPT_FUNC_NO_REPEATS] = T("function", "func-no-repeats", 0),

	[UT_OPT_FUNCGRAPH_OVERRUN] = T("function_graph", "funcgraph-overrun", 0),
	[UT_OPT_FUNCGRAPH_CPU] = T("function_graph", "funcgraph-cpu", 1),
	[UT_OPT_FUNCGRAPH_OVERHEAD] = T("function_graph", "funcgraph-overhead", 1),
	[UT_OPT_FUNCGRAPH_PROC] = T("function_graph", "funcgraph-proc", 0),
	[UT_OPT_FUNCGRAPH_DURATION] = T("function_graph", "funcgraph-duration", 1),
	[UT_OPT_FUNCGRAPH_ABSTIME] = T("function_graph", "funcgraph-abstime", 0),
	[UT_OPT_FUNCGRAPH_IRQS] = T("function_graph", "funcgraph-irqs", 1), /* signal handlers */
	[UT_OPT_FUNCGRAPH_TAIL] = T("function_graph", "funcgraph-tail", 0),
	[UT_OPT_FUNCGRAPH_RETVAL] = T("function_graph", "funcgraph-retval", 0),
	[UT_OPT_FUNCGRAPH_RETVAL_HEX] = T("function_graph", "funcgraph-retval-hex", 0),
	[UT_OPT_FUNCGRAPH_RETADDR] = T("function_graph", "funcgraph-retaddr", 0),
	[UT_OPT_FUNCGRAPH_ARGS] = TX("function_graph", "funcgraph-args", 0, "function arguments are not recorded yet"),
	[UT_OPT_SLEEP_TIME] = TR("function_graph", "sleep-time", 1),
	[UT_OPT_GRAPH_TIME] = TR("function_graph", "graph-time", 1),

	[UT_OPT_BLK_CLASSIC] = TT("blk", "blk_classic", 0),
	[UT_OPT_BLK_CGROUP] = TT("blk", "blk_cgroup", 0),
	[UT_OPT_BLK_CGNAME] = TT("blk", "blk_cgname", 0),

	/* not the kernel's: C++ names as the source spells them (common/demangle.h) */
	[UT_OPT_SYM_DEMANGLE] = G("sym-demangle", 1),
	/* not the kernel's: calls through the PLT and GOT traced (libutrace/plthook.c) */
	[UT_OPT_PLT] = { .name = "plt", .tracer = NULL, .def = 0, .top_only = 1, .record = 1 },
	/* not the kernel's: inlined instances traced as calls (libutrace/inlined.c) */
	[UT_OPT_INLINED] = { .name = "inlined", .tracer = NULL, .def = 0, .top_only = 1,
			     .record = 1 },
	/* not the kernel's: functions without a site get a patched prologue (common/prologue.h) */
	[UT_OPT_PATCH_PROLOGUE] = { .name = "patch-prologue", .tracer = NULL, .def = 0,
				    .top_only = 1, .record = 1 },
};

/**
 * ut_opt_info() - describe one option
 * @id: an enum ut_opt value
 *
 * Return: the static description, or NULL if @id is out of range.
 */
const struct ut_opt_info *ut_opt_info(int id)
{
	if (id < 0 || id >= UT_OPT_NR)
		return NULL;
	return &opt_table[id];
}

/**
 * ut_opt_lookup() - find an option by its options/ file name
 * @name: e.g. "sym-offset" (no "no" prefix)
 *
 * Return: the enum ut_opt value, or -EINVAL if no option has that name.
 */
int ut_opt_lookup(const char *name)
{
	int i;

	for (i = 0; i < UT_OPT_NR; i++)
		if (!strcmp(opt_table[i].name, name))
			return i;
	return -EINVAL;
}

/**
 * ut_opts_init() - set every option to its default
 * @opts: the set to fill
 * @instance: non-zero for an instances/NAME buffer
 *
 * Instances start with trace_printk_dest and copy_trace_marker cleared: the
 * kernel only sends trace_printk and marker copies to one buffer by default,
 * the top-level one (upstream source, not verified on the reference box).
 */
void ut_opts_init(struct ut_opts *opts, int instance)
{
	int i;

	opts->bits = 0;
	for (i = 0; i < UT_OPT_NR; i++)
		if (opt_table[i].def)
			opts->bits |= 1ULL << i;
	if (instance)
		opts->bits &= ~(1ULL << UT_OPT_TRACE_PRINTK_DEST |
				1ULL << UT_OPT_COPY_TRACE_MARKER);
}

/**
 * ut_opts_get() - read one option
 * @opts: the set
 * @id: an enum ut_opt value
 *
 * Return: 0 or 1, or -EINVAL if @id is out of range.
 */
int ut_opts_get(const struct ut_opts *opts, int id)
{
	if (id < 0 || id >= UT_OPT_NR)
		return -EINVAL;
	return (int)((opts->bits >> id) & 1);
}

/**
 * ut_opts_set() - write one option (what options/NAME accepts)
 * @opts: the set
 * @id: an enum ut_opt value
 * @val: 0 or 1
 *
 * Like the kernel, the nop tracer's test_nop_refuse flag refuses to be set:
 * it exists to exercise the error path of tracer flags.  So does every flag
 * utrace lists but cannot honour (ut_opt_info()->unsupported): accepting it
 * would change nothing.  Rewriting a flag
 * with its current value always succeeds, since the kernel does not call the
 * tracer at all then.
 *
 * Return: 0, or -EINVAL for a bad @id, a @val other than 0/1 or a refusal.
 */
int ut_opts_set(struct ut_opts *opts, int id, int val)
{
	if (id < 0 || id >= UT_OPT_NR || (val != 0 && val != 1))
		return -EINVAL;
	if (ut_opts_get(opts, id) == val)
		return 0;
	if (id == UT_OPT_TEST_NOP_REFUSE || opt_table[id].unsupported)
		return -EINVAL;
	if (val)
		opts->bits |= 1ULL << id;
	else
		opts->bits &= ~(1ULL << id);
	return 0;
}

/* Does @tracer's trace_options show option @id? */
static int opt_visible(int id, const char *tracer, int instance)
{
	const struct ut_opt_info *info = &opt_table[id];

	if (instance && info->top_only)
		return 0;
	if (!info->tracer)
		return 1;
	return tracer && !strcmp(info->tracer, tracer);
}

/**
 * ut_opts_parse() - apply one word written to trace_options
 * @opts: the set to change
 * @tracer: the current tracer; only its own flags are accepted besides the
 *          global ones, as in the kernel
 * @word: "NAME" or "noNAME"; surrounding whitespace is ignored
 *
 * Return: 0, or -EINVAL for an unknown name or a refused value.
 */
int ut_opts_parse(struct ut_opts *opts, const char *tracer, const char *word)
{
	char buf[64];
	size_t len;
	const char *name;
	int val = 1;
	int id;

	while (*word == ' ' || *word == '\t' || *word == '\n')
		word++;
	len = strlen(word);
	while (len && (word[len - 1] == ' ' || word[len - 1] == '\t' ||
		       word[len - 1] == '\n'))
		len--;
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, word, len);
	buf[len] = '\0';

	name = buf;
	if (!strncmp(name, "no", 2)) {
		name += 2;
		val = 0;
	}
	id = ut_opt_lookup(name);
	if (id < 0 || !opt_visible(id, tracer, 0))
		return -EINVAL;
	return ut_opts_set(opts, id, val);
}

/**
 * ut_opts_why() - why ut_opts_parse() refuses @word
 * @tracer: as given to ut_opts_parse()
 * @word: "NAME" or "noNAME"
 *
 * Return: a phrase for an error message: "unknown option", or "not
 * supported: REASON" for a flag utrace lists but cannot honour.
 */
const char *ut_opts_why(const char *tracer, const char *word)
{
	static char buf[160];
	int id = ut_opt_lookup(!strncmp(word, "no", 2) ? word + 2 : word);

	if (id < 0 || (tracer && !opt_visible(id, tracer, 0)))
		return "unknown option";
	if (!opt_table[id].unsupported)
		return "refused";
	snprintf(buf, sizeof(buf), "not supported: %s", opt_table[id].unsupported);
	return buf;
}

/**
 * ut_opts_print() - write the trace_options file
 * @opts: the values
 * @f: where to
 * @tracer: current tracer: its flags follow the global ones
 * @instance: non-zero for an instance (drops the top-level-only flags)
 *
 * One option per line, "noNAME" when it is off.
 */
void ut_opts_print(const struct ut_opts *opts, FILE *f, const char *tracer, int instance)
{
	int i;

	for (i = 0; i < UT_OPT_NR; i++) {
		if (!opt_visible(i, tracer, instance))
			continue;
		fprintf(f, "%s%s\n", ut_opts_get(opts, i) ? "" : "no", opt_table[i].name);
	}
}

/**
 * ut_out_set_option() - apply a trace_options word to a formatter
 * @o: the formatter
 * @name_or_noname: "NAME" or "noNAME"
 *
 * Return: 0 or -EINVAL (see ut_opts_parse()).
 */
int ut_out_set_option(struct ut_out *o, const char *name_or_noname)
{
	return ut_opts_parse(&o->opts, o->tracer, name_or_noname);
}

/**
 * ut_out_get_option() - read one of a formatter's options by name
 * @o: the formatter
 * @name: option name without "no"
 *
 * Return: 0 or 1, or -EINVAL for an unknown name.
 */
int ut_out_get_option(const struct ut_out *o, const char *name)
{
	return ut_opts_get(&o->opts, ut_opt_lookup(name));
}

/**
 * ut_out_print_options() - write the trace_options file for this formatter
 * @o: the formatter (its tracer picks the tracer-specific flags)
 * @f: where to
 */
void ut_out_print_options(const struct ut_out *o, FILE *f)
{
	ut_opts_print(&o->opts, f, o->tracer, 0);
}

// SPDX-License-Identifier: MIT
/*
 * Formatter state and the per-event line: the context prefix (TASK-PID,
 * tgid, CPU, flags, timestamp), the latency-format prefix, the output-mode
 * dispatch (normal, raw, hex, bin, fields, printk-msg-only) and the overflow
 * annotations (SPEC §4.3, §4.5).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/demangle.h"
#include "common/output/output.h"

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

/**
 * ut_out_new() - create a formatter
 * @cfg: configuration; copied, but the symbol table and callbacks it points
 *       to must outlive the formatter
 *
 * Return: the formatter, or NULL (errno set) on allocation failure.
 */
struct ut_out *ut_out_new(const struct ut_out_cfg *cfg)
{
	struct ut_out *o = calloc(1, sizeof(*o));
	struct utsname u;

	if (!o)
		return NULL;
	o->cfg = *cfg;
	o->cfg.opts = NULL;
	if (o->cfg.nr_cpus <= 0)
		o->cfg.nr_cpus = 1;
	copy_str(o->tracer, sizeof(o->tracer), cfg->tracer ? cfg->tracer : "nop");
	if (cfg->release)
		copy_str(o->release, sizeof(o->release), cfg->release);
	else if (!uname(&u))
		copy_str(o->release, sizeof(o->release), u.release);
	/*
	 * The kernel prints its own preemption model here.  Our "kernel" is
	 * user space, where a traced thread can be preempted anywhere.
	 */
	copy_str(o->preempt_model, sizeof(o->preempt_model),
		 cfg->preempt_model ? cfg->preempt_model : "PREEMPT(full)");
	if (cfg->opts)
		o->opts = *cfg->opts;
	else
		ut_opts_init(&o->opts, 0);
	o->idx = -1;
	o->demangler = ut_demangler_new();
	if (!o->demangler) {
		free(o);
		return NULL;
	}
	return o;
}

/**
 * ut_out_sym_name() - the name to print for a symbol
 * @o: the formatter (sym-demangle)
 * @sym: the symbol
 *
 * Return: the name as the symbol table holds it, or, with sym-demangle, a
 * mangled C++ name as the source spells it.
 */
const char *ut_out_sym_name(const struct ut_out *o, const struct ut_sym *sym)
{
	if (!ut_out_opt(o, UT_OPT_SYM_DEMANGLE))
		return sym->name;
	return ut_demangle(o->demangler, sym->name);
}

/**
 * ut_out_free() - destroy a formatter
 * @o: the formatter, or NULL
 */
void ut_out_free(struct ut_out *o)
{
	if (!o)
		return;
	free(o->started);
	ut_repeats_free(&o->rep);
	ut_demangler_free(o->demangler);
	free(o);
}

/**
 * ut_out_start() - begin a new pass over the buffer
 * @o: the formatter
 * @overrun: non-zero when some CPU lost events to overwrite; then (with the
 *           annotate option) the first line of each CPU after the first two
 *           lines of output gets a "##### CPU N buffer started ####" line
 *
 * Resets the event index (the verbose latency column) and the set of CPUs
 * seen.  For `trace` call it before each read from the top; for trace_pipe
 * call it once with @overrun = 0 (the kernel never annotates the pipe).
 */
void ut_out_start(struct ut_out *o, int overrun)
{
	o->idx = -1;
	o->annotate = !!overrun;
	if (o->started)
		memset(o->started, 0, o->nr_started_words * sizeof(*o->started));
}

/**
 * ut_out_set_buffer_start() - set the time latency-format counts from
 * @o: the formatter
 * @ts: the buffer's start (its last reset), in trace-clock units
 */
void ut_out_set_buffer_start(struct ut_out *o, uint64_t ts)
{
	o->cfg.buffer_start_ts = ts;
}

/**
 * ut_out_comm() - the TASK name for @pid, as the kernel's cmdline cache says
 * @o: the formatter
 * @pid: thread id
 * @buf: room for a copy truncated to 15 characters (TASK_COMM_LEN - 1)
 *
 * Return: the name to print: "<idle>" for pid 0, "<...>" when unknown.
 */
const char *ut_out_comm(const struct ut_out *o, int32_t pid, char buf[16])
{
	const char *c = NULL;

	if (pid == 0)
		return "<idle>";
	if (pid < 0)
		return "<XXX>";
	if (o->cfg.comm)
		c = o->cfg.comm(o->cfg.ctx, pid);
	if (!c)
		return "<...>";
	snprintf(buf, 16, "%s", c);
	return buf;
}

static int32_t event_tgid(const struct ut_out *o, const struct ut_event *ev)
{
	if (ev->tgid > 0)
		return ev->tgid;
	if (o->cfg.tgid)
		return o->cfg.tgid(o->cfg.ctx, ev->pid);
	return 0;
}

/**
 * ut_out_print_flags() - the 5-character irq/resched/context/preempt column
 * @f: where to
 * @ev: the event (its flags and preempt fields)
 */
void ut_out_print_flags(FILE *f, const struct ut_event *ev)
{
	unsigned fl = ev->flags;
	bool nmi = fl & UT_FLAG_NMI, hard = fl & UT_FLAG_HARDIRQ;
	bool soft = fl & UT_FLAG_SOFTIRQ, bh = fl & UT_FLAG_BH_OFF;
	char irqs, resched, ctx;

	if ((fl & UT_FLAG_IRQS_OFF) && bh)
		irqs = 'D';
	else if (fl & UT_FLAG_IRQS_OFF)
		irqs = 'd';
	else if (bh)
		irqs = 'b';
	else
		irqs = '.';

	switch (fl & (UT_FLAG_NEED_RESCHED | UT_FLAG_NEED_RESCHED_LAZY |
		      UT_FLAG_PREEMPT_RESCHED)) {
	case UT_FLAG_NEED_RESCHED | UT_FLAG_NEED_RESCHED_LAZY | UT_FLAG_PREEMPT_RESCHED:
		resched = 'B';
		break;
	case UT_FLAG_NEED_RESCHED | UT_FLAG_PREEMPT_RESCHED:
		resched = 'N';
		break;
	case UT_FLAG_NEED_RESCHED_LAZY | UT_FLAG_PREEMPT_RESCHED:
		resched = 'L';
		break;
	case UT_FLAG_NEED_RESCHED | UT_FLAG_NEED_RESCHED_LAZY:
		resched = 'b';
		break;
	case UT_FLAG_NEED_RESCHED:
		resched = 'n';
		break;
	case UT_FLAG_PREEMPT_RESCHED:
		resched = 'p';
		break;
	case UT_FLAG_NEED_RESCHED_LAZY:
		resched = 'l';
		break;
	default:
		resched = '.';
		break;
	}

	if (nmi && hard)
		ctx = 'Z';
	else if (nmi)
		ctx = 'z';
	else if (hard && soft)
		ctx = 'H';
	else if (hard)
		ctx = 'h';
	else if (soft)
		ctx = 's';
	else
		ctx = '.';

	fputc(irqs, f);
	fputc(resched, f);
	fputc(ctx, f);
	/* low nibble: preempt depth; high nibble: migrate-disable depth */
	if (ev->preempt & 0xf)
		fprintf(f, "%x", ev->preempt & 0xf);
	else
		fputc('.', f);
	if (ev->preempt & 0xf0)
		fprintf(f, "%x", (ev->preempt >> 4) & 0xf);
	else
		fputc('.', f);
}

/* ns -> us rounded to nearest, like the kernel's ns2usecs() */
static uint64_t ns2us(uint64_t ns)
{
	return (ns + 500) / 1000;
}

/**
 * ut_out_print_ts() - the TIMESTAMP field, with its leading space
 * @o: the formatter (clock kind)
 * @f: where to
 * @ts: the timestamp in trace-clock units
 *
 * ns clocks print " secs.usecs" (usecs rounded to nearest, as the kernel
 * does), counter-like clocks the bare count in 12 columns.
 */
void ut_out_print_ts(const struct ut_out *o, FILE *f, uint64_t ts)
{
	uint64_t us;

	if (o->cfg.clock_is_counter) {
		fprintf(f, " %12" PRIu64, ts);
		return;
	}
	us = ns2us(ts);
	fprintf(f, " %5" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
}

/**
 * ut_out_delay_mark() - the latency mark for a gap
 * @ns: the gap in ns
 *
 * Return: '$' > 1 s, '@' > 100 ms, '*' > 10 ms, '#' > 1 ms, '!' > 100 us,
 * '+' > 10 us, else ' '.
 */
char ut_out_delay_mark(uint64_t ns)
{
	static const struct { uint64_t ns; char sym; } marks[] = {
		{ 1000000000ULL, '$' },
		{ 100000000ULL, '@' },
		{ 10000000ULL, '*' },
		{ 1000000ULL, '#' },
		{ 100000ULL, '!' },
		{ 10000ULL, '+' },
	};
	size_t i;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns > marks[i].ns)
			return marks[i].sym;
	return ' ';
}

/* "comm-pid (tgid) [cpu] flags timestamp: " */
static void print_context(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	char buf[16];

	fprintf(f, "%16s-%-7d ", ut_out_comm(o, ev->pid, buf), ev->pid);
	if (ut_out_opt(o, UT_OPT_RECORD_TGID)) {
		int32_t tgid = event_tgid(o, ev);

		if (tgid > 0)
			fprintf(f, "(%7d) ", tgid);
		else
			fputs("(-------) ", f);
	}
	fprintf(f, "[%03u] ", ev->cpu);
	if (ut_out_opt(o, UT_OPT_IRQ_INFO))
		ut_out_print_flags(f, ev);
	ut_out_print_ts(o, f, ev->ts);
	fputs(": ", f);
}

/*
 * latency-format prefix.  Times count from the buffer start; the mark
 * measures the gap to the next event (none: 0), both rounded to us first.
 */
static void print_lat_context(struct ut_out *o, FILE *f, const struct ut_event *ev,
			      const struct ut_event *next)
{
	int verbose = ut_out_opt(o, UT_OPT_VERBOSE);
	int in_ns = !o->cfg.clock_is_counter;
	uint64_t next_ts = next ? next->ts : ev->ts;
	uint64_t abs_ts = ev->ts - o->cfg.buffer_start_ts;
	uint64_t rel_ts = next_ts - ev->ts;
	char buf[16];

	/* events merged by timestamp never go backwards; guard anyway */
	if (next_ts < ev->ts)
		rel_ts = 0;
	if (ev->ts < o->cfg.buffer_start_ts)
		abs_ts = 0;

	if (verbose)
		fprintf(f, "%16s %7d %3u %d %08x %08lx ", ut_out_comm(o, ev->pid, buf),
			ev->pid, ev->cpu, ev->flags, ev->preempt & 0xf,
			(unsigned long)o->idx);
	else {
		fprintf(f, "%8.8s-%-7d %3u", ut_out_comm(o, ev->pid, buf), ev->pid, ev->cpu);
		ut_out_print_flags(f, ev);
	}

	if (in_ns) {
		abs_ts = ns2us(abs_ts);
		rel_ts = ns2us(rel_ts);
	}
	if (verbose && in_ns)
		fprintf(f, "[%08" PRIx64 "] %" PRIu64 ".%03" PRIu64 "ms (+%" PRIu64 ".%03" PRIu64 "ms): ",
			ns2us(ev->ts), abs_ts / 1000, abs_ts % 1000, rel_ts / 1000, rel_ts % 1000);
	else if (verbose)
		fprintf(f, "[%016" PRIx64 "] %" PRIu64 " (+%" PRIu64 "): ", ev->ts, abs_ts, rel_ts);
	else if (in_ns)
		fprintf(f, " %4" PRIu64 "us%c: ", abs_ts, ut_out_delay_mark(rel_ts * 1000));
	else
		fprintf(f, " %4" PRIu64 ": ", abs_ts);
}

/* Set CPU @cpu's bit in the started set; return its old value (-1: no memory). */
static int test_and_set_started(struct ut_out *o, unsigned cpu)
{
	unsigned word = cpu / 64;
	uint64_t bit = 1ULL << (cpu % 64);
	int old;

	if (word >= o->nr_started_words) {
		unsigned n = word + 1;
		uint64_t *p = realloc(o->started, n * sizeof(*p));

		if (!p)
			return -1;
		memset(p + o->nr_started_words, 0, (n - o->nr_started_words) * sizeof(*p));
		o->started = p;
		o->nr_started_words = n;
	}
	old = !!(o->started[word] & bit);
	o->started[word] |= bit;
	return old;
}

/*
 * When some CPU overran, its data starts later than the others': say so
 * before its first line.  The kernel skips this for the first two entries of
 * the output (its index test is "> 1"), and so do we.
 */
static void annotate_cpu_start(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	if (!o->annotate || !ut_out_opt(o, UT_OPT_ANNOTATE))
		return;
	if (test_and_set_started(o, ev->cpu) != 0)
		return;
	if (o->idx > 1)
		ut_out_print_cpu_started(o, f, ev->cpu);
}

/* The fallback body of an event type without a printer for this mode. */
static void print_type(FILE *f, const struct ut_event *ev)
{
	fprintf(f, "type: %u\n", ev->type);
}

static void print_normal(struct ut_out *o, FILE *f, const struct ut_event *ev,
			 const struct ut_event *next)
{
	const struct ut_out_event_ops *ops = ut_out_function_ops(ev->type);

	annotate_cpu_start(o, f, ev);
	if (ut_out_opt(o, UT_OPT_CONTEXT_INFO)) {
		if (ut_out_opt(o, UT_OPT_LATENCY_FORMAT))
			print_lat_context(o, f, ev, next);
		else
			print_context(o, f, ev);
	}
	if (!ops) {
		fprintf(f, "Unknown type %u\n", ev->type);
		return;
	}
	if (ut_out_opt(o, UT_OPT_FIELDS) && ops->fields)
		ops->fields(o, f, ev);
	else if (ops->trace)
		ops->trace(o, f, ev);
	else
		print_type(f, ev);
}

static void print_raw(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	const struct ut_out_event_ops *ops = ut_out_function_ops(ev->type);

	if (ut_out_opt(o, UT_OPT_CONTEXT_INFO))
		fprintf(f, "%d %u %" PRIu64 " ", ev->pid, ev->cpu, ev->ts);
	if (!ops)
		fprintf(f, "%u ?\n", ev->type);
	else if (ops->raw)
		ops->raw(o, f, ev);
	else
		print_type(f, ev);
}

static void print_hex(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	const struct ut_out_event_ops *ops = ut_out_function_ops(ev->type);
	int32_t pid = ev->pid;
	uint32_t cpu = ev->cpu;

	if (ut_out_opt(o, UT_OPT_CONTEXT_INFO)) {
		ut_out_print_hex_field(f, &pid, sizeof(pid));
		ut_out_print_hex_field(f, &cpu, sizeof(cpu));
		ut_out_print_hex_field(f, &ev->ts, sizeof(ev->ts));
	}
	if (ops && ops->hex)
		ops->hex(o, f, ev);
	else if (ops)
		print_type(f, ev);
	/* every hex record ends with a newline of its own */
	fputc('\n', f);
}

static void print_bin(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	const struct ut_out_event_ops *ops = ut_out_function_ops(ev->type);
	int32_t pid = ev->pid;
	uint32_t cpu = ev->cpu;

	if (ut_out_opt(o, UT_OPT_CONTEXT_INFO)) {
		fwrite(&pid, sizeof(pid), 1, f);
		fwrite(&cpu, sizeof(cpu), 1, f);
		fwrite(&ev->ts, sizeof(ev->ts), 1, f);
	}
	if (ops && ops->bin)
		ops->bin(o, f, ev);
	else if (ops)
		print_type(f, ev);
}

/**
 * ut_out_print_event() - print one event the way `trace` shows it
 * @o: the formatter
 * @f: where to
 * @ev: the event
 * @next: the event printed after it (any CPU), or NULL; latency-format
 *        derives its delay mark from the gap to it
 *
 * Mode precedence is the kernel's: printk-msg-only (print events, with
 * trace_printk on), then bin, hex, raw, and the normal line (fields=1 only
 * changes the body).  A kernel_stack event prints several lines.
 */
void ut_out_print_event(struct ut_out *o, FILE *f, const struct ut_event *ev,
			const struct ut_event *next)
{
	if (ut_out_opt(o, UT_OPT_FUNC_NO_REPEATS) && ut_out_fold_repeat(o, f, ev))
		return;
	o->idx++;

	if (ev->type == UT_EV_PRINT && ut_out_opt(o, UT_OPT_TRACE_PRINTK) &&
	    ut_out_opt(o, UT_OPT_PRINTK_MSG_ONLY)) {
		const char *s = ev->str ? ev->str : "";
		size_t len = strlen(s);

		/* just the text, which should end in '\n' already */
		fputs(s, f);
		if (!len || s[len - 1] != '\n')
			fputc('\n', f);
		return;
	}
	if (ut_out_opt(o, UT_OPT_BIN))
		print_bin(o, f, ev);
	else if (ut_out_opt(o, UT_OPT_HEX))
		print_hex(o, f, ev);
	else if (ut_out_opt(o, UT_OPT_RAW))
		print_raw(o, f, ev);
	else
		print_normal(o, f, ev, next);
}

/**
 * ut_out_print_lost() - trace_pipe's note that events were overwritten
 * @o: the formatter
 * @f: where to
 * @cpu: the CPU that lost them
 * @nr: how many; UINT64_MAX if unknown
 *
 * Print it just before the first event read after the loss.
 */
void ut_out_print_lost(struct ut_out *o, FILE *f, unsigned cpu, uint64_t nr)
{
	(void)o;
	if (nr == UINT64_MAX)
		fprintf(f, "CPU:%u [LOST EVENTS]\n", cpu);
	else
		fprintf(f, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", cpu, nr);
}

/**
 * ut_out_print_cpu_started() - the annotation for a CPU whose data starts late
 * @o: the formatter
 * @f: where to
 * @cpu: the CPU
 *
 * ut_out_print_event() already prints it where the kernel would after
 * ut_out_start(o, 1); call this only to print the line by hand.
 */
void ut_out_print_cpu_started(struct ut_out *o, FILE *f, unsigned cpu)
{
	(void)o;
	fprintf(f, "##### CPU %u buffer started ####\n", cpu);
}

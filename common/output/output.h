/* SPDX-License-Identifier: MIT */
/*
 * The output formatter: prints decoded events (struct ut_event) exactly the
 * way the kernel's `trace` and `trace_pipe` files do (the kernel's
 * trace_output.c plus the printing half of trace.c), for the nop and function
 * tracers.  Options live in a struct ut_opts (the trace_options flags), which
 * other components may share: the tracefs emulation reads and writes the same
 * table through ut_opts_*().
 *
 * Usage for a `trace` file:
 *
 *	o = ut_out_new(&cfg);
 *	ut_out_start(o, any_cpu_overran);
 *	ut_out_print_header(o, f, entries, written);
 *	for each event ev (merged in timestamp order), next = following event:
 *		ut_out_print_event(o, f, ev, next);
 *
 * and for `trace_pipe`: no header, ut_out_start(o, 0) once, and
 * ut_out_print_lost() before the first event read after a loss.
 *
 * Files: options.c (the option table), header.c (headers), line.c (state,
 * dispatch, line prefix, timestamps), function.c (function, print, stack
 * events).  A function_graph formatter is meant to be a sibling file that
 * plugs in through ut_out_print_event()'s tracer dispatch.
 */
#ifndef UT_OUTPUT_H
#define UT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/event.h"
#include "common/repeats.h"
#include "common/symbols.h"

/* ------------------------------------------------------------------ */
/* Options (trace_options and options/NAME)                           */
/* ------------------------------------------------------------------ */

/*
 * Every flag of the reference kernel, in trace_options order: first the
 * global flags, then each tracer's own flags; then utrace's own.  Keep the
 * order in sync with the table in options.c.
 */
enum ut_opt {
	UT_OPT_PRINT_PARENT,
	UT_OPT_SYM_OFFSET,
	UT_OPT_SYM_ADDR,
	UT_OPT_VERBOSE,
	UT_OPT_RAW,
	UT_OPT_HEX,
	UT_OPT_BIN,
	UT_OPT_BLOCK,
	UT_OPT_FIELDS,
	UT_OPT_TRACE_PRINTK,
	UT_OPT_ANNOTATE,
	UT_OPT_USERSTACKTRACE,
	UT_OPT_SYM_USEROBJ,
	UT_OPT_PRINTK_MSG_ONLY,
	UT_OPT_CONTEXT_INFO,
	UT_OPT_LATENCY_FORMAT,
	UT_OPT_RECORD_CMD,
	UT_OPT_RECORD_TGID,
	UT_OPT_OVERWRITE,
	UT_OPT_DISABLE_ON_FREE,
	UT_OPT_IRQ_INFO,
	UT_OPT_MARKERS,
	UT_OPT_EVENT_FORK,
	UT_OPT_TRACE_PRINTK_DEST,
	UT_OPT_COPY_TRACE_MARKER,
	UT_OPT_PAUSE_ON_TRACE,
	UT_OPT_HASH_PTR,
	UT_OPT_FUNCTION_TRACE,
	UT_OPT_FUNCTION_FORK,
	UT_OPT_STACKTRACE,
	/* tracer "nop" */
	UT_OPT_TEST_NOP_ACCEPT,
	UT_OPT_TEST_NOP_REFUSE,
	/* tracer "function" */
	UT_OPT_FUNC_STACK_TRACE,
	UT_OPT_FUNC_NO_REPEATS,
	/* tracer "function_graph" (not in the reference listing; SPEC §13) */
	UT_OPT_FUNCGRAPH_OVERRUN,
	UT_OPT_FUNCGRAPH_CPU,
	UT_OPT_FUNCGRAPH_OVERHEAD,
	UT_OPT_FUNCGRAPH_PROC,
	UT_OPT_FUNCGRAPH_DURATION,
	UT_OPT_FUNCGRAPH_ABSTIME,
	UT_OPT_FUNCGRAPH_IRQS,
	UT_OPT_FUNCGRAPH_TAIL,
	UT_OPT_FUNCGRAPH_RETVAL,
	UT_OPT_FUNCGRAPH_RETVAL_HEX,
	UT_OPT_FUNCGRAPH_RETADDR,
	UT_OPT_FUNCGRAPH_ARGS,
	UT_OPT_SLEEP_TIME,
	UT_OPT_GRAPH_TIME,
	/* tracer "blk" (listed by the kernel; utrace has no blk tracer) */
	UT_OPT_BLK_CLASSIC,
	UT_OPT_BLK_CGROUP,
	UT_OPT_BLK_CGNAME,
	/*
	 * utrace's own flags: global, listed after the kernel's.  Always added
	 * here at the end: trace.dat files keep the options as these bits.
	 */
	UT_OPT_SYM_DEMANGLE,
	UT_OPT_PLT,
	UT_OPT_INLINED,
	UT_OPT_PATCH_PROLOGUE,
	UT_OPT_NR
};

/* Static description of one option. */
struct ut_opt_info {
	const char *name;    /* as in options/NAME */
	const char *tracer;  /* NULL: global flag; else the owning tracer */
	unsigned char def;   /* default value on the top-level instance */
	unsigned char top_only; /* absent from instances/NAME/options */
	unsigned char record; /* acts when recording (buffers, stacks, profiler), not when printing */
	const char *unsupported; /* why utrace cannot do it: changing it is refused (NULL: it works) */
};

/* A set of option values; plain data, copy freely. */
struct ut_opts {
	uint64_t bits;       /* bit n = value of enum ut_opt n */
};

_Static_assert(UT_OPT_NR <= 64, "struct ut_opts holds 64 flags");

const struct ut_opt_info *ut_opt_info(int id);
int ut_opt_lookup(const char *name);
void ut_opts_init(struct ut_opts *opts, int instance);
int ut_opts_get(const struct ut_opts *opts, int id);
int ut_opts_set(struct ut_opts *opts, int id, int val);
int ut_opts_parse(struct ut_opts *opts, const char *tracer, const char *word);
const char *ut_opts_why(const char *tracer, const char *word);
void ut_opts_print(const struct ut_opts *opts, FILE *f, const char *tracer, int instance);

/* ------------------------------------------------------------------ */
/* The formatter                                                      */
/* ------------------------------------------------------------------ */

/* common_flags bits (the kernel's TRACE_FLAG_*); 0 in user space. */
enum {
	UT_FLAG_IRQS_OFF = 0x01,
	UT_FLAG_NEED_RESCHED_LAZY = 0x02,
	UT_FLAG_NEED_RESCHED = 0x04,
	UT_FLAG_HARDIRQ = 0x08,
	UT_FLAG_SOFTIRQ = 0x10,
	UT_FLAG_PREEMPT_RESCHED = 0x20,
	UT_FLAG_NMI = 0x40,
	UT_FLAG_BH_OFF = 0x80,
};

struct ut_demangler;

struct ut_out_cfg {
	const char *tracer;           /* "nop", "function"; NULL means "nop" */
	const struct ut_symtab *syms; /* NULL: addresses print as hex */
	/* comm of @pid at print time; NULL (or a NULL result) prints "<...>" */
	const char *(*comm)(void *ctx, int32_t pid);
	/* tgid of @pid when the event has none; <= 0 prints "(-------)" */
	int32_t (*tgid)(void *ctx, int32_t pid);
	void *ctx;
	int nr_cpus;                  /* #P: in the headers */
	int clock_is_counter;         /* counter, uptime, x86-tsc: not ns */
	uint64_t buffer_start_ts;     /* latency-format times count from here */
	const char *release;          /* latency banner; NULL: uname -r */
	const char *preempt_model;    /* latency banner M:; NULL: "PREEMPT(full)" */
	const struct ut_opts *opts;   /* initial options; NULL: top-level defaults */
};

/*
 * Formatter state.  Only the files in common/output/ touch the fields;
 * everyone else uses the functions below.  It lives here because the formatter is split over
 * several files that share it.
 */
struct ut_out {
	struct ut_out_cfg cfg;
	char tracer[32];
	char release[65];
	char preempt_model[32];
	struct ut_opts opts;
	long idx;                     /* index of the current event (verbose, annotate) */
	int annotate;                 /* ut_out_start(): some CPU overran */
	uint64_t *started;            /* CPUs already seen in this pass */
	unsigned nr_started_words;
	struct ut_repeats rep;        /* func-no-repeats (repeats.c) */
	struct ut_demangler *demangler; /* sym-demangle's cache (common/demangle.h) */
};

struct ut_out *ut_out_new(const struct ut_out_cfg *cfg);
void ut_out_free(struct ut_out *o);
void ut_out_start(struct ut_out *o, int overrun);
void ut_out_set_buffer_start(struct ut_out *o, uint64_t ts);
int ut_out_set_option(struct ut_out *o, const char *name_or_noname);
int ut_out_get_option(const struct ut_out *o, const char *name);
void ut_out_print_options(const struct ut_out *o, FILE *f);

void ut_out_print_header(struct ut_out *o, FILE *f, uint64_t entries, uint64_t written);
void ut_out_print_event(struct ut_out *o, FILE *f, const struct ut_event *ev,
			const struct ut_event *next);
void ut_out_print_lost(struct ut_out *o, FILE *f, unsigned cpu, uint64_t nr);
const char *ut_out_sym_name(const struct ut_out *o, const struct ut_sym *sym);
void ut_out_print_cpu_started(struct ut_out *o, FILE *f, unsigned cpu);

/* ------------------------------------------------------------------ */
/* Internal to common/output/ (shared by its files and later tracers) */
/* ------------------------------------------------------------------ */

static inline int ut_out_opt(const struct ut_out *o, int id)
{
	return (int)((o->opts.bits >> id) & 1);
}

/*
 * How one event type prints in each output mode (the kernel's
 * trace_event_functions).  A NULL member falls back to "type: N\n".
 */
struct ut_out_event_ops {
	uint16_t type;
	const char *name;             /* events/ftrace/<name>, for fields=1 */
	void (*trace)(struct ut_out *o, FILE *f, const struct ut_event *ev);
	void (*raw)(struct ut_out *o, FILE *f, const struct ut_event *ev);
	void (*hex)(struct ut_out *o, FILE *f, const struct ut_event *ev);
	void (*bin)(struct ut_out *o, FILE *f, const struct ut_event *ev);
	void (*fields)(struct ut_out *o, FILE *f, const struct ut_event *ev);
};

const struct ut_out_event_ops *ut_out_function_ops(uint16_t type);
/* func-no-repeats: true if @ev folds into a repeat (not printed); may print a func_repeats line first */
bool ut_out_fold_repeat(struct ut_out *o, FILE *f, const struct ut_event *ev);
void ut_out_print_sym(const struct ut_out *o, FILE *f, uint64_t addr);
void ut_out_print_hex_field(FILE *f, const void *p, unsigned size);
char ut_out_delay_mark(uint64_t ns);
void ut_out_print_flags(FILE *f, const struct ut_event *ev);
void ut_out_print_ts(const struct ut_out *o, FILE *f, uint64_t ts);
const char *ut_out_comm(const struct ut_out *o, int32_t pid, char buf[16]);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The tracing configuration as a text document: what a control file writer
 * (utrace start, the tracefs mount) wants a process to do.  It is the file
 * "config" of a session (one process) and of the run-time directory (the
 * template every new process starts with).  One setting a line:
 *
 *   tracer function_graph
 *   filter parse_* !parse_noise handle_*:traceoff:1
 *   graph_function main
 *   max_graph_depth 3
 *   tracing_cpumask 5        (hex, CPU 0 the lowest bit; absent: every CPU)
 *   lenient 1                (words matching nothing in a process select nothing)
 *   events utest:* !utest:noargs python:function__entry
 *                            (set_event words: USDT probes to enable)
 *   follow 1                 (`utrace record`: trace what the process execs, whatever
 *                             environment it gives; absent: 0)
 *   lossless 1               (`utrace record`: a full buffer waits for the recorder
 *                             rather than dropping; absent: 0)
 *   lossless_pid 4321        (with lossless: the recorder's process, waited for while
 *                             it runs even before it found a buffer; absent: 0)
 *   plt 1                    (library calls through the PLT and GOT are functions
 *                             too: -O plt; absent: 0)
 *   event_pid 1234 1240      (set_event_pid: events are recorded only by these
 *                             threads, or every thread of a listed process)
 *   event_notrace_pid 1300   (set_event_notrace_pid: events of these threads, or
 *                             of every thread of a listed process, are not recorded)
 *   event_fork 1             (options/event-fork: a process forked by a thread
 *                             listed in event_pid or event_notrace_pid adds
 *                             itself to that list; absent: 0)
 *   event_filter python:function__entry evf1;1,8,... funcname ~ "parse*"
 *                            (one line per filtered event: its name, the filter
 *                             compiled by the tools (common/evfilter.h: the
 *                             runtime only evaluates), and the text as written)
 *
 * Word lists (filter, notrace, graph_function, graph_notrace, events) are the words
 * written to the control file, in order, replayed by the process over its
 * own function table (">" starts a new list, ">>" appends words).  Unknown
 * keys are errors, so a newer writer cannot silently be half understood.
 *
 * Shared by the runtime and the tools: malloc, no I/O, no global state.
 * The text comes from another process: every value is validated.
 */
#ifndef UT_CONFIG_H
#define UT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UT_CFG_MAX_TEXT (1u << 20)   /* a config document is at most 1 MiB */
#define UT_CFG_MAX_PIDS 64           /* set_ftrace_pid entries */
#define UT_CFG_CPUMASK_WORDS 16      /* tracing_cpumask: CPUs 0..1023 */
#define UT_CFG_TOTAL_KB_DEFAULT 65536 /* buffer_total_size_kb unless set: 64 MiB */

struct ut_cfg {
	uint32_t tracer;          /* UT_TRACER_* */
	uint32_t clock;           /* UT_CLOCK_* */
	uint32_t buf_kb;          /* buffer_size_kb per thread */
	uint32_t total_kb;        /* buffer_total_size_kb: a process's thread buffers
				   * together (0: UT_CFG_TOTAL_KB_DEFAULT) */
	uint32_t max_graph_depth; /* 0: unlimited */
	uint32_t nr_pids;         /* set_ftrace_pid entries in @pids */
	uint32_t nr_event_pids;   /* set_event_pid entries in @event_pids */
	uint32_t nr_event_notrace_pids; /* set_event_notrace_pid entries */
	uint16_t nr_evf;          /* event filters in @evf */
	bool cpumask_set;         /* tracing_cpumask: false = every CPU */
	bool overwrite;           /* options/overwrite */
	bool tracing_on;
	bool func_stack;          /* options/func_stack_trace */
	bool profile;             /* function_profile_enabled */
	bool sleep_time;          /* options/sleep-time (profiler: wall time) */
	bool lenient;             /* meant for every process: words matching nothing
				   * in one process are skipped there */
	bool follow;              /* `utrace record`'s: programs exec'ed with an
				   * environment of their own are traced too
				   * (libutrace/follow.c); read at start-up only */
	bool lossless;            /* `utrace record`'s: a thread whose buffer is full
				   * waits for the recorder to make room instead of
				   * dropping, while the recorder is alive
				   * (libutrace/backpressure.c) */
	int32_t lossless_pid;     /* the recorder of a lossless record, 0: not said
				   * (libutrace/backpressure.c: waited for before it
				   * has found a new thread's buffer) */
	bool plt;                 /* -O plt: calls through the PLT and GOT are traced
				   * as the library functions they call
				   * (libutrace/plthook.c) */
	bool patch_prologue;      /* -O patch-prologue: functions without a site get a
				   * patched prologue (common/prologue.h) */
	bool inlined;             /* -O inlined: each inlined instance's entry becomes a
				   * site (libutrace/inlined.c) */
	bool event_fork;          /* options/event-fork: children of set_event_pid's
				   * threads are added (libutrace/eventpid.c) */
	uint64_t thresh_us;       /* tracing_thresh */
	char *filter;             /* set_ftrace_filter words, NULL = none */
	char *notrace;
	char *graph_function;
	char *graph_notrace;
	char *events;             /* set_event words: provider:name globs, !word */
	char *triggers;           /* event triggers: "SYS:EVT TRIGGER\n" lines, oldest first */
	char *synth;		  /* synthetic events: "NAME FIELDS\n" lines (common/synth.h) */
	struct ut_cfg_evf {       /* event filters (an event's `filter` file) */
		char *event;      /* "provider:name" */
		char *prog;       /* the compiled program (ut_evf_encode's word) */
		char *text;       /* the filter as written, on one line */
	} *evf;
	int32_t pids[UT_CFG_MAX_PIDS]; /* set_ftrace_pid */
	int32_t event_pids[UT_CFG_MAX_PIDS]; /* set_event_pid */
	int32_t event_notrace_pids[UT_CFG_MAX_PIDS]; /* set_event_notrace_pid */
	uint64_t cpumask[UT_CFG_CPUMASK_WORDS]; /* bit N: CPU N records (when set) */
};

/* The kernel's defaults: nop, local clock, 1408 KiB, overwrite, on. */
void ut_cfg_init(struct ut_cfg *c);
void ut_cfg_free(struct ut_cfg *c);
/* Deep copy. Returns 0 or -ENOMEM (@dst is then initialised and empty). */
int ut_cfg_copy(struct ut_cfg *dst, const struct ut_cfg *src);

/*
 * Parse @len bytes of @text over the defaults.  Returns 0, or -EINVAL with
 * a message in @err (and @c holding the defaults), or -ENOMEM.
 */
int ut_cfg_parse(struct ut_cfg *c, const char *text, size_t len, char *err, size_t errlen);

/* The document for @c, malloc'd and NUL-terminated; NULL on ENOMEM. */
char *ut_cfg_format(const struct ut_cfg *c);

/*
 * Replace (@append false) or extend a word list, as ">" and ">>" do: the new
 * words are appended after the old ones.  @words may be NULL or empty.
 * Returns 0 or -ENOMEM.
 */
int ut_cfg_set_words(char **list, const char *words, bool append);

/* Add one "SYS:EVT TRIGGER" line (up to a newline) to c->triggers.  0 or -ENOMEM. */
int ut_cfg_add_trigger(struct ut_cfg *c, const char *line);
/* Add one synthetic event definition "NAME FIELDS" to c->synth.  0 or -ENOMEM. */
int ut_cfg_add_synth(struct ut_cfg *c, const char *line);

/*
 * Set (or with @prog NULL, remove) the filter of event @event ("provider:
 * name").  A newline in @text becomes a blank.  Returns 0 or -ENOMEM.
 */
int ut_cfg_set_evf(struct ut_cfg *c, const char *event, const char *prog, const char *text);

/* The filter of event @event, or NULL. */
const struct ut_cfg_evf *ut_cfg_find_evf(const struct ut_cfg *c, const char *event);

/*
 * The word of a list at @p (after spaces): its start, its length in *@len;
 * NULL at the end.  for (w = ut_cfg_word(list, &n); w; w = ut_cfg_word(w + n, &n))
 */
const char *ut_cfg_word(const char *p, size_t *len);

/*
 * True if set_ftrace_pid is empty or holds @pid or @tid.  Inline: the
 * runtime asks on its tracing path (libutrace/writer.c), which calls nothing
 * built with vector registers.
 */
static inline bool ut_cfg_pid_wanted(const struct ut_cfg *c, int32_t pid, int32_t tid)
{
	if (!c->nr_pids)
		return true;
	for (uint32_t i = 0; i < c->nr_pids && i < UT_CFG_MAX_PIDS; i++)
		if (c->pids[i] == pid || c->pids[i] == tid)
			return true;
	return false;
}

/* Whether @n pids of @v hold @pid or @tid. */
static inline bool ut_cfg_pid_listed(const int32_t *v, uint32_t n, int32_t pid, int32_t tid)
{
	for (uint32_t i = 0; i < n && i < UT_CFG_MAX_PIDS; i++)
		if (v[i] == pid || v[i] == tid)
			return true;
	return false;
}

/*
 * True if set_event_pid is empty or holds @pid or @tid, and
 * set_event_notrace_pid holds neither (events: libutrace/eventpid.c).
 */
static inline bool ut_cfg_event_pid_wanted(const struct ut_cfg *c, int32_t pid, int32_t tid)
{
	if (ut_cfg_pid_listed(c->event_notrace_pids, c->nr_event_notrace_pids, pid, tid))
		return false;
	return !c->nr_event_pids || ut_cfg_pid_listed(c->event_pids, c->nr_event_pids, pid, tid);
}

/* True if tracing_cpumask lets events of @cpu be recorded. */
static inline bool ut_cfg_cpu_wanted(const struct ut_cfg *c, uint32_t cpu)
{
	return !c->cpumask_set ||
	       (cpu < UT_CFG_CPUMASK_WORDS * 64 && (c->cpumask[cpu / 64] >> (cpu % 64) & 1));
}

#endif

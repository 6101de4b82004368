/* SPDX-License-Identifier: MIT */
/*
 * Event triggers: what a line written to events/SYS/EVT/trigger says, as
 * the kernel reads it (Documentation/trace/events.rst, histogram.rst):
 *
 *   [!]CMD[:N] [if FILTER]        CMD: traceon traceoff stacktrace
 *   [!]enable_event:SYS:EVT[:N] [if FILTER]     (and disable_event)
 *   [!]hist:keys=F[.mod][,F2..][:vals=V[,V2..]][:sort=S[.descending][,S2]]
 *          [:size=N][:name=NAME][:pause|:continue|:clear] [:VAR=EXPR,..]
 *          [:onmatch(SYS.EVT).trace(SYNTH,P..)|:onmax($V).save(F..)|..] [if FILTER]
 *
 * Modifiers of a hist key: .hex .sym .sym-offset .execname .log2
 * .buckets=N; a value may be .hex.  `hitcount` is always the first value.
 * The parser knows no event: ut_evtrig_check() checks the field names
 * against an event's fields afterwards.  Pure, malloc-free, no I/O: the
 * tools, the runtime (which replays its configuration's triggers) and the
 * fuzz target share it.
 */
#ifndef UT_EVTRIGGER_H
#define UT_EVTRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/histvar.h"

enum ut_evtrig_cmd {
	UT_ET_TRACEON,
	UT_ET_TRACEOFF,
	UT_ET_STACKTRACE,
	UT_ET_ENABLE,    /* enable_event:SYS:EVT */
	UT_ET_DISABLE,   /* disable_event:SYS:EVT */
	UT_ET_HIST,
	UT_ET_SNAPSHOT,  /* the scope's snapshot taken (tracefs/snapshot.c) */
	UT_ET_NR
};

/* The kernel's limits (tracing_map.h): keys, values besides hitcount, sort keys. */
#define UT_HIST_MAX_KEYS 3
#define UT_HIST_MAX_VALS 3
#define UT_HIST_MAX_SORT 2
#define UT_HIST_SIZE_DEFAULT 2048
#define UT_HIST_SIZE_MIN 128        /* 2^7 */
#define UT_HIST_SIZE_MAX 131072     /* 2^17 */
#define UT_EVTRIG_NAME_MAX 64
#define UT_EVTRIG_FILTER_MAX 256

/* Field modifiers (one per field, as the kernel allows). */
enum {
	UT_HF_HEX = 1,
	UT_HF_SYM = 2,
	UT_HF_SYM_OFFSET = 4,
	UT_HF_EXECNAME = 8,
	UT_HF_LOG2 = 16,
	UT_HF_BUCKETS = 32,
	UT_HF_DESCENDING = 64,  /* a sort key's */
};

struct ut_hist_field {
	char name[32];
	uint32_t flags;         /* UT_HF_* */
	uint64_t buckets;       /* .buckets=N */
};

/* A sort key: hitcount (what 0), value what (1..nvals), or key -what (1..nkeys). */
struct ut_hist_sort {
	int16_t what;
	bool descending;
};

struct ut_evtrig {
	int cmd;                /* enum ut_evtrig_cmd */
	bool remove;            /* written with '!' */
	bool counted;           /* ":N" given */
	int64_t count;          /* N; -1 unlimited */
	char sys[UT_EVTRIG_NAME_MAX], evt[UT_EVTRIG_NAME_MAX]; /* enable/disable_event's target */
	/* hist */
	uint8_t nkeys, nvals, nsort;
	struct ut_hist_field keys[UT_HIST_MAX_KEYS];
	struct ut_hist_field vals[UT_HIST_MAX_VALS];
	struct ut_hist_sort sort[UT_HIST_MAX_SORT];
	uint32_t size;          /* entries, a power of two */
	char name[UT_HIST_NAME_MAX]; /* name=NAME: one table shared by the triggers of that
				      * name on every event ("": its own) */
	bool pause, cont, clear;
	struct ut_hist_defs hv;		   /* variables and actions (common/histvar.h) */
	char filter[UT_EVTRIG_FILTER_MAX]; /* after " if ", "" for none */
};

/*
 * What went wrong: the kernel's message and where in the text (the caret
 * of error_log); @logged: the kernel logs this one in error_log (hist
 * errors; a bad plain trigger is a bare EINVAL there).
 */
struct ut_evtrig_err {
	const char *msg;
	size_t pos;
	bool logged;
	bool in_filter;     /* the filter's error: logged as the event filter parser's */
};

/*
 * Parse @len bytes of @text (one trigger, surrounding whitespace allowed)
 * into @t.  Return: 0, or -EINVAL with @err filled.
 */
int ut_evtrig_parse(const char *text, size_t len, struct ut_evtrig *t, struct ut_evtrig_err *err);

/*
 * Whether @t's fields exist on event @fmt (arg1..argN or their names, plus
 * common_pid; a variable's fields, its $refs to its own variables and
 * an action's params too; $refs to other triggers' variables are resolved
 * when the process builds its tables),
 * their modifiers fit (.execname on common_pid only), and its filter
 * parses (common/evtrigger_filter.h).  @fmt NULL: the event is not known
 * yet, only the filter is checked.  @text is the trigger as written, for
 * the caret.  0 or -EINVAL.
 */
struct ut_evfmt;
int ut_evtrig_check(const struct ut_evtrig *t, const struct ut_evfmt *fmt, const char *text,
		    struct ut_evtrig_err *err);

/*
 * The trigger's identity, the kernel's for duplicates and removals: its
 * command (and target or hist definition), without count, filter or
 * pause, into @buf.  Two triggers on one event with equal identities are
 * the same trigger.
 */
void ut_evtrig_ident(const struct ut_evtrig *t, char *buf, size_t len);

/*
 * The trigger file's line for @t (without the newline), as the kernel
 * prints it: "traceoff:count=2 if a > 1", "stacktrace:unlimited",
 * "hist:keys=arg1.log2:vals=hitcount:sort=hitcount:size=2048 [active]";
 * @count: the count left (for counted triggers).
 */
void ut_evtrig_print(const struct ut_evtrig *t, int64_t count, char *buf, size_t len);

/* The text the configuration keeps for @t: parses back to the same trigger. */
void ut_evtrig_config_text(const struct ut_evtrig *t, char *buf, size_t len);

/* The trigger file's text with none set. */
extern const char ut_evtrig_available[];

/*
 * The value a hist key stores for field value @v (.log2: the power of two
 * it rounds up to; .buckets=N: the bucket's start).
 */
/*
 * Field @name's slot on event @fmt: 0..nargs-1, UT_HIST_SLOT_PID for
 * common_pid, -1 if none.
 */
#define UT_HIST_SLOT_PID 100
int ut_hist_field_slot(const struct ut_evfmt *fmt, const char *name);

uint64_t ut_hist_key_value(const struct ut_hist_field *f, uint64_t v);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The decoded event every reader works with: the ring-buffer reader produces
 * it, the trace.dat writer encodes it in the kernel's page format, the
 * trace.dat reader decodes it back, and the output formatter prints it.
 */
#ifndef UT_EVENT_H
#define UT_EVENT_H

#include <stdint.h>

/* Kernel ftrace event ids (events/ftrace/<name>/id on Linux 6.x). */
enum {
	UT_EV_FUNCTION = 1,
	UT_EV_KERNEL_STACK = 4,
	UT_EV_PRINT = 5,
	UT_EV_FUNCGRAPH_EXIT = 10,
	UT_EV_FUNCGRAPH_ENTRY = 11,
	UT_EV_USER_STACK = 13,
	UT_EV_FUNC_REPEATS = 20, /* func-no-repeats: made by the readers (common/repeats.h) */
	/*
	 * utrace's own events (event system "utrace" in trace.dat): a signal
	 * handler starts / returns, marked in function_graph output as the
	 * kernel marks interrupts.
	 */
	UT_EV_SIGNAL_ENTER = 1000,
	UT_EV_SIGNAL_EXIT = 1001,
	/*
	 * A USDT probe hit (event system = its provider): @ip its address,
	 * @args its arguments.  In trace.dat each probe's event has an id of
	 * its own from UT_EV_PROBE_FIRST_ID (common/usdt_events.h); decoded
	 * events carry this type and the format in @probe.
	 */
	UT_EV_PROBE = 1002,
	/*
	 * function_graph: an inlined instance was entered (-O inlined): @ip
	 * its site, named after the function inlined; @depth the depth a
	 * call from the function holding it has.  Printed as a leaf without a
	 * duration, marked with an "inlined" comment.
	 */
	UT_EV_FUNCGRAPH_INLINED = 1003,
	/*
	 * A process event (common/procevents.h): @evid its id (the trace.dat
	 * id), @raw its fields in the kernel's layout from offset 8.
	 */
	UT_EV_STATIC = 1004,
};

struct ut_evfmt;

/* The most arguments an event of a USDT probe has (sys/sdt.h's limit). */
#define UT_EV_MAX_ARGS 12
/* A string argument's most bytes recorded, NUL included (longer ones are cut). */
#define UT_EV_MAX_STR 256
/* The most bytes of a USDT event after its common fields: slots, then strings. */
#define UT_EV_MAX_ARGBYTES (8 * UT_EV_MAX_ARGS + UT_EV_MAX_ARGS * UT_EV_MAX_STR)

struct ut_event {
	uint64_t ts;        /* in the trace clock's unit (ns for ns clocks) */
	int32_t pid;        /* thread id (common_pid) */
	int32_t tgid;       /* process id, 0 if unknown */
	uint32_t cpu;
	uint16_t type;      /* UT_EV_* */
	uint8_t flags;      /* common_flags (0 in user space) */
	uint8_t preempt;    /* common_preempt_count */
	uint64_t ip;        /* function: ip; graph: func */
	uint64_t parent_ip; /* function: parent_ip */
	/* function_graph */
	uint32_t depth;     /* graph events; signal events: the handler's depth */
	uint32_t overrun;
	int32_t sig;        /* signal events */
	uint32_t repeats;   /* func_repeats: the calls folded after the first */
	uint64_t calltime, rettime;
	uint64_t retval;
	/* print (trace_marker) and stack traces */
	const char *str;    /* NUL-terminated, not owned */
	const uint64_t *callers;
	uint32_t nr_callers;
	uint32_t nargs;     /* USDT probes: how many arguments @args holds */
	uint64_t last_ts;   /* func_repeats: the last folded call's time */
	/*
	 * USDT probes: the arguments in 8-byte slots, then the strings' bytes
	 * (@argbytes in all; a string's slot holds its __data_loc: offset from
	 * the event's start, common fields included, and length), not owned;
	 * the format if known
	 */
	const uint64_t *args;
	const struct ut_evfmt *probe;
	/* process events: the record's bytes from offset 8 on, not owned */
	const uint8_t *raw;
	uint32_t argbytes;  /* USDT probes: the bytes at @args (above) */
	uint16_t raw_len;
	uint16_t evid;
};

/*
 * One of the events a tracer writes millions of (function, funcgraph_entry,
 * funcgraph_exit), decoded without the rest of struct ut_event: the record
 * writer's fast path (ut_rb_decode_call(), ut_tracedat_write_call()).
 * Its fields mean what struct ut_event's of the same names do.
 */
struct ut_call {
	uint64_t ts;
	uint64_t ip;
	uint64_t parent_ip; /* function */
	uint64_t calltime;  /* funcgraph_exit: calltime, retval, overrun */
	uint64_t retval;
	uint32_t cpu;
	uint32_t depth;     /* graph */
	uint32_t overrun;
	uint16_t type;      /* UT_EV_FUNCTION, UT_EV_FUNCGRAPH_ENTRY or _EXIT */
};

#endif

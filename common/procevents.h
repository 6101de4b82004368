/* SPDX-License-Identifier: MIT */
/*
 * Process events: what happens to a traced process that the kernel has a
 * trace event for (a fork, an exec, an exit, a signal), recorded by the
 * runtime under the kernel's system, name and fields, so that a kernel
 * user's set_event words, filters and hist keys work unchanged; and what
 * only utrace sees (a thread starts or exits, an object is dlopen()ed or
 * dlclose()d) under utrace's own system "utrace".
 *
 * Each event has a fixed id (the trace.dat event id and the mount's `id`)
 * and the kernel's record layout: a record is the 8 bytes of common fields
 * then the event's fields at the offsets its format gives, strings
 * (`__data_loc char[]`) after the fixed fields, located by a u32 whose low
 * 16 bits are the string's offset from the record's start and whose high
 * 16 bits its length with the NUL.  The runtime writes the bytes from
 * offset 8 on (the payload) into an EVENT record of the thread's ring
 * (include/utrace/abi.h); the trace.dat writer puts the common fields in
 * front of them.  ftrace:print (trace_marker) is listed here too, though
 * its record is the MARKER record.
 */
#ifndef UT_PROCEVENTS_H
#define UT_PROCEVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The events' ids (trace.dat, events/<sys>/<event>/id). */
enum {
	UT_PEV_PRINT = 5, /* ftrace:print, the kernel's own id (common/event.h UT_EV_PRINT) */
	UT_PEV_FIRST = 1010,
	UT_PEV_FORK = UT_PEV_FIRST, /* sched:sched_process_fork */
	UT_PEV_EXEC,                /* sched:sched_process_exec */
	UT_PEV_EXIT,                /* sched:sched_process_exit */
	UT_PEV_SIG_GENERATE,        /* signal:signal_generate */
	UT_PEV_SIG_DELIVER,         /* signal:signal_deliver */
	UT_PEV_THREAD_START,        /* utrace:thread_start */
	UT_PEV_THREAD_EXIT,         /* utrace:thread_exit */
	UT_PEV_DLOPEN,              /* utrace:dlopen */
	UT_PEV_DLCLOSE,             /* utrace:dlclose */
	UT_PEV_FREE,                /* sched:sched_process_free (the parent reaps a child) */
	UT_PEV_WAIT,                /* sched:sched_process_wait (a wait call starts) */
	UT_PEV_END
};

/* The most payload bytes an EVENT record carries (a path of PATH_MAX and more). */
#define UT_PEV_MAX_PAYLOAD 1024

struct ut_procev {
	const char *system, *name;
	uint16_t id;
	uint16_t min_len; /* the record's fixed part, common fields included */
	const char *fields; /* the format's field lines after the common ones */
	const char *print_fmt;
};

/* Every event, ftrace:print first; @n set to their count. */
const struct ut_procev *ut_procev_all(size_t *n);
/* The event of id @id, or NULL. */
const struct ut_procev *ut_procev_by_id(uint16_t id);
/* The event SYSTEM:NAME, or NULL. */
const struct ut_procev *ut_procev_find(const char *system, const char *name);
/* Whether set_event word @w (@len bytes, no `!`) names at least one of them. */
bool ut_procev_word_matches(const char *w, size_t len);

/* The format file's text of @e (name, ID, fields, print fmt), malloc'd; NULL on ENOMEM. */
char *ut_procev_format(const struct ut_procev *e);

/*
 * The event's text as the kernel prints it after "NAME: " (no newline):
 * @rec is the whole record (common fields first), @len bytes.  A record
 * too short for its fields, or a string out of it, prints what is sound
 * and "(fault)" for the rest.
 */
void ut_procev_print(char *buf, size_t size, const struct ut_procev *e, const uint8_t *rec,
		     size_t len);

#endif

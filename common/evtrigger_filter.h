/* SPDX-License-Identifier: MIT */
/*
 * A trigger's `if FILTER` (common/evtrigger.h): the one place where an
 * event-filter engine (the kernel's grammar, SPEC §9.3) plugs into the
 * triggers.  The tools check a filter against the event's format when the
 * trigger is written; the traced process compiles it when it builds its
 * trigger table and matches each hit against it before the trigger acts.
 *
 * The engine is common/evfilter.h's: the kernel's grammar and messages.
 */
#ifndef UT_EVTRIGGER_FILTER_H
#define UT_EVTRIGGER_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/usdt_events.h"

struct ut_evtrig_filter;

/* What a hit knows besides its arguments (the kernel's common_pid, comm, CPU). */
struct ut_evtrig_ctx {
	int32_t pid;         /* the thread (common_pid) */
	uint32_t cpu;
	const char *comm;
};

/*
 * Whether @filter parses against event @fmt (NULL: the event is not known
 * yet: its common fields only).  0, or -EINVAL with the message in *@msg
 * and the caret's place in @filter in *@pos.
 */
int ut_evtrig_filter_check(const char *filter, const struct ut_evfmt *fmt, const char **msg,
			   size_t *pos);

/* @filter compiled for event @fmt, malloc'd; NULL if it cannot be (or ENOMEM). */
struct ut_evtrig_filter *ut_evtrig_filter_compile(const char *filter, const struct ut_evfmt *fmt);

/*
 * Whether a hit with arguments @args (@nargs 8-byte slots, as recorded)
 * passes.  Async-signal-safe: no allocation, no lock.
 */
bool ut_evtrig_filter_match(const struct ut_evtrig_filter *f, const uint64_t *args,
			    unsigned nargs, const struct ut_evtrig_ctx *ctx);

void ut_evtrig_filter_free(struct ut_evtrig_filter *f);

/*
 * The string fields of @fmt that @filter names (bit i: field i): the ones
 * a hit must give the text of (the others' slots are not read).
 */
uint32_t ut_evtrig_filter_strings(const char *filter, const struct ut_evfmt *fmt);

#endif

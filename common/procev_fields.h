/* SPDX-License-Identifier: MIT */
/*
 * A process event (common/procevents.h) as the triggers see an event: its
 * fields as 8-byte slots under the kernel's names (common/procev_fields.c).
 */
#ifndef UT_PROCEV_FIELDS_H
#define UT_PROCEV_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/procevents.h"
#include "common/usdt_events.h"

/* @e's fields as a probe's format (named slots; strings with their array size). */
bool ut_procev_evfmt(const struct ut_procev *e, struct ut_evfmt *f);
/* The same for SYS:EVT; false if it is no process event (ftrace:print is none). */
bool ut_procev_evfmt_named(const char *sys, const char *evt, struct ut_evfmt *f);
/*
 * The slots of record @rec (@len bytes, common fields first) of event @e
 * into @slots (UT_USDT_MAX_ARGS): how many.  A string's slot is the
 * address of its text in @rec (0: none).  No allocation: the runtime
 * calls it as the event happens.
 */
unsigned ut_procev_slots(const struct ut_procev *e, const uint8_t *rec, size_t len,
			 uint64_t *slots);

#endif

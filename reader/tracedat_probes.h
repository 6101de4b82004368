/* SPDX-License-Identifier: MIT */
/*
 * USDT probe events in a trace.dat being written: each probe address met
 * gets an event id (from UT_EV_PROBE_FIRST_ID, in the order met), and at
 * the end each id its format under its provider's system, named from the
 * probes of the objects the sessions loaded (common/usdt_events.h).  A
 * probe the table does not know (its object gone) is named probe_<address>
 * under system "usdt", its arguments unsigned 8-byte values.
 */
#ifndef UT_READER_TRACEDAT_PROBES_H
#define UT_READER_TRACEDAT_PROBES_H

#include <stddef.h>
#include <stdint.h>

#include "common/usdt_events.h"

struct td_probe_ids {
	struct td_probe_id {
		uint64_t pc;
		uint16_t id;
		uint8_t nargs;
	} *v;          /* sorted by pc */
	size_t n;
};

/* The id of the probe at @pc (with @nargs arguments), given one if new; 0 if none can be. */
uint16_t td_probe_id(struct td_probe_ids *ids, uint64_t pc, uint32_t nargs);

/* One event system's formats, for the writer's event-systems section. */
struct td_probe_system {
	char name[64];
	char **texts;
	size_t n;
};

/*
 * The systems and format texts of the ids in @ids, named after @tab (may
 * be NULL).  Free with td_probe_systems_free().  Return: 0 or -ENOMEM.
 */
int td_probe_systems(const struct td_probe_ids *ids, const struct ut_probetab *tab,
		     struct td_probe_system **out, size_t *n);
void td_probe_systems_free(struct td_probe_system *v, size_t n);

void td_probe_ids_free(struct td_probe_ids *ids);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * -f FILTER after -e EVENT (record, start): the filter of the events the
 * last -e named, compiled (common/evfilter.h) against each such event's
 * format as the objects' probes give it, into the configuration's
 * event_filter lines; a filter that does not parse exits 2 with the
 * kernel's report (the filter, the caret, parse_error: MESSAGE).
 */
#ifndef UT_CLI_EVFILTER_OPT_H
#define UT_CLI_EVFILTER_OPT_H

#include <stdbool.h>

#include "common/config.h"
#include "common/elfsites.h"

/* -f @text, after -e @events (NULL: no -e yet, which exits 2). */
void ut_evf_opt_add(const char *events, const char *text);

/* Whether some -f waits to be compiled. */
bool ut_evf_opt_pending(void);

/*
 * Compile every -f against the probes of @objs that its -e words name, into
 * @c.  A word naming no probe there (a provider a dlopen may bring) gets no
 * filter and is said; a filter that does not parse exits 2.
 */
void ut_evf_opt_compile(struct ut_cfg *c, const struct ut_objlist *objs);

#endif

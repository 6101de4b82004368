/* SPDX-License-Identifier: MIT */
/*
 * A synthetic event's record payload (common/synth.h): one 8-byte slot per
 * field, as the event's format lays it out (an integer cut to its size,
 * sign-extended when signed; a string's slot its __data_loc), then the
 * strings' text.  Both writers of synthetic events lay it out here: the
 * traced process when its onmatch() fires (libutrace/synth.c), and the
 * mount when a trigger it runs on trace_marker's event fires
 * (tracefs/marker_vars.c), so readers decode both alike.  Pure.
 */
#ifndef UT_SYNTHREC_H
#define UT_SYNTHREC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/event.h"
#include "common/synth.h"

/* Words of a payload at most: the slots, then every field a string of UT_EV_MAX_STR. */
#define UT_SYNTH_REC_WORDS (UT_SYNTH_MAX_FIELDS + UT_SYNTH_MAX_FIELDS * UT_EV_MAX_STR / 8)

/*
 * The fields' values @args (a string field's: the address of its text, 0
 * none: recorded empty) laid out into @rec (UT_SYNTH_REC_WORDS words):
 * returns the strings' bytes after the d->nfields slots.
 */
unsigned ut_synth_lay_out(const struct ut_synth_def *d, const uint64_t *args, uint64_t *rec);

/*
 * Whether the event passes @f, its `filter` (common/evfilter.h), before it
 * is recorded: @rec[0] gets the common fields (common_pid @tid), rec[1..]
 * holds its payload (@nfields slots, @sb string bytes), as its format lays
 * the record out.  @comm: the thread's name (NULL: "", when @f reads
 * none: ut_evf_uses()); @cpu its CPU.
 */
struct ut_evf;
bool ut_synth_passes(const struct ut_evf *f, uint64_t *rec, unsigned nfields, unsigned sb,
		     int32_t tid, const char *comm, uint32_t cpu);

#endif

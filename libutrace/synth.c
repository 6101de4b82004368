// SPDX-License-Identifier: MIT
/*
 * A synthetic event's record (common/synth.h): written into the thread's
 * ring as a USDT probe's is (a PROBE record: the event's pseudo address,
 * then one 8-byte slot per field), so readers name it through the same
 * table, from the session's "synth" file (common/sessprobes.c).
 */
#include <string.h>

#include "libutrace/evtrig_tab.h"

void ut_synth_record(const struct rt_synth *s, const uint64_t *args)
{
	struct ut_thread *t = &ut_self;
	unsigned n = s->d.nfields, size = 16 + ((8 * n + 15) & ~15u);
	uint64_t *w, delta;
	uint32_t cpu = ut_cpu();


	if (!ut_tracing_on(t) || !ut_enter(t))
		return;
	w = ut_rec_reserve(t, size, &delta);
	if (w) {
		if (size > 16)
			w[(size - 8) / 8] = 0; /* the padding */
		w[0] = ut_rec_word0(UT_REC_PROBE, cpu, s->pc);
		w[1] = (delta << UT_REC_DELTA_SHIFT) | n;
		for (unsigned i = 0; i < n; i++) /* the field's size of it, as a probe's argument */
			w[2 + i] = s->d.size[i] < 8 && s->d.is_signed[i]
					   ? (uint64_t)(((int64_t)args[i] << (64 - 8 * s->d.size[i])) >>
							(64 - 8 * s->d.size[i]))
					   : s->d.size[i] < 8 ? args[i] & ((1ULL << (8 * s->d.size[i])) - 1)
							      : args[i];
		ut_rec_commit(t, size);
	}
	ut_leave(t);
}

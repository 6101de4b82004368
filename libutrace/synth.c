// SPDX-License-Identifier: MIT
/*
 * A synthetic event's record (common/synth.h): written into the thread's
 * ring as a USDT probe's is (a PROBE record: the event's pseudo address,
 * then its payload, common/synthrec.h), so readers name it through the
 * same table, from the session's "synth" file (common/sessprobes.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/event.h"
#include "common/evfilter.h"
#include "common/synthrec.h"
#include "libutrace/evtrig_tab.h"

/*
 * As a probe's (usdt.c): a filter replaced is not freed, since a thread
 * may be evaluating it in a signal handler; filters change at the pace of
 * someone writing a file.
 */
void ut_synth_filter_apply(struct rt_synth *s)
{
	char ev[96];
	const struct ut_cfg_evf *e;
	struct ut_evf *f = NULL;
	char *prog = NULL;

	snprintf(ev, sizeof(ev), "%s:%s", UT_SYNTH_SYSTEM, s->d.name);
	e = ut_cfg_find_evf(&ut_rt.cfg, ev);
	if (e ? s->fprog && !strcmp(s->fprog, e->prog) : !s->fprog)
		return; /* unchanged */
	if (e && (ut_evf_decode(e->prog, strlen(e->prog), &f) || !(prog = strdup(e->prog)))) {
		ut_evf_free(f);
		ut_log("synth: the filter of %s could not be used; the event is not filtered", ev);
		f = NULL;
	}
	__atomic_store_n(&s->filter, f, __ATOMIC_RELEASE);
	s->fprog = prog; /* the old text goes with the old filter: kept */
}

/* Whether the event (@rec: 1 + its payload's words, @sb string bytes) passes @f. */
static bool passes(const struct ut_evf *f, const struct rt_synth *s, uint64_t *rec, unsigned sb,
		   uint32_t cpu)
{
	char comm[17] = "";
	int32_t tid = ut_self.tid ? ut_self.tid : (int32_t)gettid();

	if (ut_evf_uses(f) & UT_EVF_USES_COMM)
		prctl(PR_GET_NAME, comm);
	return ut_synth_passes(f, rec, s->d.nfields, sb, tid, comm, cpu);
}

void ut_synth_record(const struct rt_synth *s, const uint64_t *args)
{
	struct ut_thread *t = &ut_self;
	unsigned n = s->d.nfields, sb, size;
	uint64_t *w, delta;
	uint32_t cpu = ut_cpu();
	const struct ut_evf *f = __atomic_load_n(&s->filter, __ATOMIC_ACQUIRE);
	uint64_t rec[1 + UT_SYNTH_REC_WORDS];

	if (!ut_tracing_on(t) || !ut_enter(t))
		return;
	sb = ut_synth_lay_out(&s->d, args, rec + 1); /* rec[0]: the common fields */
	if (f && !passes(f, s, rec, sb, cpu)) {
		ut_leave(t);
		return;
	}
	size = 16 + ((8 * n + sb + 15) & ~15u);
	w = ut_rec_reserve(t, size, &delta);
	if (w) {
		if (size > 16)
			w[(size - 8) / 8] = 0; /* the padding */
		w[0] = ut_rec_word0(UT_REC_PROBE, cpu, s->pc);
		w[1] = (delta << UT_REC_DELTA_SHIFT) | (uint64_t)sb << 8 | n;
		memcpy(w + 2, rec + 1, 8 * (size_t)n + sb);
		ut_rec_commit(t, size);
	}
	ut_leave(t);
}

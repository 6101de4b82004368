// SPDX-License-Identifier: MIT
/*
 * A synthetic event's record (common/synth.h): written into the thread's
 * ring as a USDT probe's is (a PROBE record: the event's pseudo address,
 * then one 8-byte slot per field, a string's its __data_loc, then the
 * strings' text), so readers name it through the same table, from the
 * session's "synth" file (common/sessprobes.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/event.h"
#include "common/evfilter.h"
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

/* Whether the event (@rec: as its format lays it out, @len bytes) passes @f. */
static bool passes(const struct ut_evf *f, uint64_t *rec, size_t len, uint32_t cpu)
{
	char comm[17] = "";
	struct ut_evf_ctx ctx = {.cpu = cpu, .comm = comm};
	int32_t tid = ut_self.tid ? ut_self.tid : (int32_t)gettid();

	rec[0] = (uint64_t)(uint32_t)tid << 32; /* common_pid at 4 */
	if (ut_evf_uses(f) & UT_EVF_USES_COMM)
		prctl(PR_GET_NAME, comm);
	return ut_evf_match(f, rec, len, &ctx);
}

/*
 * String field @i's text at address @a (0: none, recorded empty) after
 * the @n slots of @rec, @used bytes of strings there already: its
 * __data_loc; the bytes added to *@used (a char[N]: N - 1 at most).
 */
static uint64_t put_string(const struct rt_synth *s, unsigned i, uint64_t *rec, unsigned n,
			   unsigned *used, uint64_t a)
{
	const char *src = (const char *)(uintptr_t)a;
	char *dst = (char *)(rec + 1 + n) + *used;
	unsigned max = s->d.strsize[i] ? s->d.strsize[i] : UT_EV_MAX_STR, len = 0;

	while (src && len + 1 < max && src[len]) {
		dst[len] = src[len];
		len++;
	}
	dst[len++] = '\0';
	*used += len;
	return (uint64_t)len << 16 | (8 + 8 * n + *used - len);
}

/* The event as its format lays it out into @rec (common fields left): the strings' bytes. */
static unsigned lay_out(const struct rt_synth *s, const uint64_t *args, uint64_t *rec)
{
	unsigned n = s->d.nfields, used = 0;

	for (unsigned i = 0; i < n; i++) { /* the field's size of it, as a probe's argument */
		unsigned sz = s->d.size[i];

		if (s->d.is_string[i])
			rec[1 + i] = put_string(s, i, rec, n, &used, args[i]);
		else if (sz < 8 && s->d.is_signed[i])
			rec[1 + i] = (uint64_t)(((int64_t)args[i] << (64 - 8 * sz)) >> (64 - 8 * sz));
		else
			rec[1 + i] = sz < 8 ? args[i] & ((1ULL << (8 * sz)) - 1) : args[i];
	}
	return used;
}

void ut_synth_record(const struct rt_synth *s, const uint64_t *args)
{
	struct ut_thread *t = &ut_self;
	unsigned n = s->d.nfields, sb, size;
	uint64_t *w, delta;
	uint32_t cpu = ut_cpu();
	const struct ut_evf *f = __atomic_load_n(&s->filter, __ATOMIC_ACQUIRE);
	uint64_t rec[1 + UT_SYNTH_MAX_FIELDS + UT_SYNTH_MAX_FIELDS * UT_EV_MAX_STR / 8];

	if (!ut_tracing_on(t) || !ut_enter(t))
		return;
	sb = lay_out(s, args, rec);
	if (f && !passes(f, rec, 8 + 8 * (size_t)n + sb, cpu)) {
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

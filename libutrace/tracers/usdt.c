// SPDX-License-Identifier: MIT
/*
 * A USDT probe enabled with a jump (libutrace/usdt_jump.c): the hit, from
 * utrace_usdt_tramp with the thread's general registers in @frame.  The
 * program's vector registers are live here, and this file is built
 * without them: the common case -- a selected probe without a filter,
 * string or trigger -- writes the same PROBE record as the int3's handler
 * (libutrace/usdt.c: the probe's address, one 8-byte slot per argument)
 * and answers 0.  Anything else answers 1: the trampoline saves the
 * vector registers and ut_usdt_jump_slow runs the int3's code.
 */
#include "libutrace/internal.h"
#include "usdt_fetch.h"

int ut_usdt_jump_hit(const struct ut_usdt_jump *j, uint64_t *frame)
{
	const struct ut_probe *r = j->r;
	const struct ut_module *m = j->m;
	struct ut_thread *t = &ut_self;
	const struct ut_usdt_probe *p;
	unsigned n, size;
	uint64_t *w, delta;
	uint32_t cpu;

	/* a hit racing with the probe being disabled: not recorded */
	if (unlikely(!__atomic_load_n(&r->on, __ATOMIC_RELAXED) || !ut_rt.ready))
		return 0;
	if (unlikely(!__atomic_load_n(&r->fast, __ATOMIC_RELAXED)))
		return 1;
	if (!ut_tracing_on(t) || !ut_enter(t))
		return 0;
	p = &m->usdt.v[r->idx];
	n = (unsigned)p->nargs;
	size = 16 + ((8 * n + 15) & ~15u);
	frame[UT_ARCH_USDT_NREGS - 1] = r->addr + 1; /* rip as after the int3: after the nop */
	cpu = ut_cpu();
	w = ut_rec_reserve(t, size, &delta);
	if (likely(w != NULL)) {
		if (size > 16)
			w[(size - 8) / 8] = 0; /* the padding */
		w[0] = ut_rec_word0(UT_REC_PROBE, cpu, r->addr);
		w[1] = (delta << UT_REC_DELTA_SHIFT) | n;
		for (unsigned i = 0; i < n; i++)
			w[2 + i] = ut_arch_usdt_fetch_inline(frame, &p->arg[i], m->bias);
		ut_rec_commit(t, size);
	}
	ut_leave(t);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * A USDT probe enabled with a jump (libutrace/usdt_jump.c): the hit, from
 * utrace_usdt_tramp with the thread's general registers in @frame.  The
 * program's vector registers are live here, and this file is built
 * without them: the common case -- a selected probe without a string
 * argument or a trigger, its filter if any passed (common/evfilter.c is
 * built the same way) -- writes the same PROBE record as the int3's
 * handler (libutrace/usdt.c: the probe's address, one 8-byte slot per
 * argument) and answers 0.  Anything else answers 1: the trampoline saves the
 * vector registers and ut_usdt_jump_slow runs the int3's code.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/evfilter.h"
#include "libutrace/internal.h"
#include "usdt_fetch.h"

/*
 * Whether the event passes filter @f: @rec is the event as its format lays
 * it out (common fields, then @n 8-byte slots).  prctl is a system call's
 * wrapper: no vector register.
 */
static bool passes(const struct ut_evf *f, uint64_t *rec, unsigned n, uint32_t cpu)
{
	char comm[17] = {0};
	struct ut_evf_ctx ctx = {.cpu = cpu, .comm = comm};

	if (!ut_self.tid)
		ut_self.tid = (int32_t)syscall(SYS_gettid);
	rec[0] = (uint64_t)(uint32_t)ut_self.tid << 32; /* common_pid at 4; type, flags: 0 */
	if (ut_evf_uses(f) & UT_EVF_USES_COMM)
		prctl(PR_GET_NAME, comm);
	return ut_evf_match(f, rec, 8 + 8 * (size_t)n, &ctx);
}

int ut_usdt_jump_hit(const struct ut_usdt_jump *j, uint64_t *frame)
{
	const struct ut_probe *r = j->r;
	const struct ut_module *m = j->m;
	struct ut_thread *t = &ut_self;
	const struct ut_usdt_probe *p;
	const struct ut_evf *f;
	unsigned n, size;
	uint64_t *w, delta, rec[1 + UT_USDT_MAX_ARGS];
	uint32_t cpu;

	/* a hit racing with the probe being disabled: not recorded */
	if (unlikely(!__atomic_load_n(&r->on, __ATOMIC_RELAXED) || !ut_rt.ready))
		return 0;
	if (unlikely(!__atomic_load_n(&r->fast, __ATOMIC_RELAXED)))
		return 1;
	/*
	 * set_event_pid: this thread's cached verdict; one to take again
	 * (ut_evpid_recheck is built with vector registers) goes the slow way
	 */
	if (unlikely(ut_evpid_self.gen != __atomic_load_n(&ut_evpid_gen, __ATOMIC_RELAXED)))
		return 1;
	if (ut_evpid_self.skip || !ut_tracing_on(t) || !ut_enter(t))
		return 0;
	p = &m->usdt.v[r->idx];
	n = (unsigned)p->nargs;
	size = 16 + ((8 * n + 15) & ~15u);
	frame[UT_ARCH_USDT_NREGS - 1] = r->addr + 1; /* rip as after the int3: after the nop */
	cpu = ut_cpu();
	f = __atomic_load_n(&r->filter, __ATOMIC_ACQUIRE);
	if (unlikely(f != NULL)) { /* judged before anything is written, as the int3's */
		for (unsigned i = 0; i < n; i++)
			rec[1 + i] = ut_arch_usdt_fetch_inline(frame, &p->arg[i], m->bias);
		if (!passes(f, rec, n, cpu)) {
			ut_leave(t);
			return 0;
		}
	}
	w = ut_rec_reserve(t, size, &delta);
	if (likely(w != NULL)) {
		if (size > 16)
			w[(size - 8) / 8] = 0; /* the padding */
		w[0] = ut_rec_word0(UT_REC_PROBE, cpu, r->addr);
		w[1] = (delta << UT_REC_DELTA_SHIFT) | n;
		for (unsigned i = 0; i < n; i++)
			w[2 + i] = f ? rec[1 + i] : ut_arch_usdt_fetch_inline(frame, &p->arg[i], m->bias);
		ut_rec_commit(t, size);
	}
	ut_leave(t);
	return 0;
}

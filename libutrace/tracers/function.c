// SPDX-License-Identifier: MIT
/*
 * The function tracer: one record (timestamp, cpu, ip, parent_ip) per call
 * of a traced function.  Called from utrace_func_caller for every enabled
 * site, so every instruction counts.  The fast path makes no calls (so the
 * compiler saves no registers): a TLS guard, one rdtsc, three stores and a
 * release store.  Anything unusual -- first event of a thread, a page
 * crossing, a clock other than the TSC, tracing off -- jumps to the slow
 * path with the guard already held.
 */
#include "libutrace/internal.h"

void ut_function_entry(uint64_t ip, uint64_t parent_ip) UT_HIDDEN;

static inline void commit(struct ut_thread *t, uint64_t pos, uint64_t ts, uint64_t ip,
			  uint64_t parent_ip)
{
	uint64_t *w = (uint64_t *)(t->data + (pos & t->mask));

	w[0] = ts;
	w[1] = ut_rec_word1(UT_REC_FUNCTION, ut_cpu(), ip);
	w[2] = parent_ip;
	t->head = pos + 24;
	t->hdr->written++;
	__atomic_store_n(&t->hdr->head, pos + 24, __ATOMIC_RELEASE);
}

static __attribute__((noinline)) void function_entry_slow(struct ut_thread *t, uint64_t ip,
							  uint64_t parent_ip)
{
	if (!ut_rt.ctl || !ut_rt.ctl->tracing_on)
		goto out;
	if (t->head + 24 > t->limit && !ut_writer_slow(t, 24))
		goto out;
	commit(t, t->head, ut_now(), ip, parent_ip);
out:
	barrier();
	t->busy = 0;
}

void ut_function_entry(uint64_t ip, uint64_t parent_ip)
{
	struct ut_thread *t = &ut_self;
	const struct ut_ctl *ctl = ut_rt.ctl;
	uint64_t pos;

	if (unlikely(t->busy)) {
		/* A signal arrived inside the tracer: count, never corrupt. */
		if (t->hdr)
			t->hdr->nested++;
		return;
	}
	t->busy = 1;
	barrier();
	pos = t->head;
	if (unlikely(pos + 24 > t->limit || !ctl || !ctl->tracing_on ||
		     ut_rt.cfg.clock != UT_CLOCK_LOCAL)) {
		function_entry_slow(t, ip, parent_ip);
		return;
	}
	commit(t, pos, ut_arch_cycles(), ip, parent_ip);
	barrier();
	t->busy = 0;
}

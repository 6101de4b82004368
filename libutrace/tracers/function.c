// SPDX-License-Identifier: MIT
/*
 * The function tracer: one 16-byte record (ip, cpu, time delta, parent_ip)
 * per call of a traced function.  Called from utrace_func_caller for every
 * enabled site, so every instruction counts.  The fast path makes no calls
 * (so the compiler saves no registers): a TLS guard, one rdtsc, two stores
 * and a release store.  Anything unusual -- first event of a thread, a page
 * crossing, a time delta too large for 16 bits, a clock other than the TSC,
 * tracing off -- goes to the slow path with the guard already held.
 */
#include "libutrace/internal.h"

void ut_function_entry(uint64_t ip, uint64_t parent_ip) UT_HIDDEN;

static inline void commit(struct ut_thread *t, uint64_t pos, uint64_t ts, uint64_t delta,
			  uint64_t ip, uint64_t parent_ip)
{
	uint64_t *w = (uint64_t *)(t->data + (pos & t->mask));

	w[0] = ut_rec_word0(UT_REC_FUNCTION, ut_cpu(), ip);
	w[1] = (delta << UT_REC_DELTA_SHIFT) | (parent_ip & UT_REC_ADDR_MASK);
	t->last_ts = ts;
	t->head = pos + UT_REC_SIZE;
	t->hdr->written++;
	__atomic_store_n(&t->hdr->head, pos + UT_REC_SIZE, __ATOMIC_RELEASE);
}

static __attribute__((noinline)) void function_entry_slow(struct ut_thread *t, uint64_t ip,
							  uint64_t parent_ip)
{
	uint64_t ts;

	if (!ut_rt.ctl || !ut_rt.ctl->tracing_on)
		goto out;
	/* Room for a TIME record and ours: a new page starts with a TIME record. */
	if (t->head + 2 * UT_REC_SIZE > t->limit && !ut_writer_slow(t, 2 * UT_REC_SIZE))
		goto out;
	ts = ut_now();
	if (ts - t->last_ts > UT_REC_DELTA_MAX)
		ut_writer_time(t, ts);
	commit(t, t->head, ts, ts - t->last_ts, ip, parent_ip);
out:
	barrier();
	t->busy = 0;
}

void ut_function_entry(uint64_t ip, uint64_t parent_ip)
{
	struct ut_thread *t = &ut_self;
	const struct ut_ctl *ctl = ut_rt.ctl;
	uint64_t pos, ts;

	if (unlikely(t->busy)) {
		/* A signal arrived inside the tracer: count, never corrupt. */
		if (t->hdr)
			t->hdr->nested++;
		return;
	}
	t->busy = 1;
	barrier();
	pos = t->head;
	if (unlikely(pos + UT_REC_SIZE > t->limit || !ctl || !ctl->tracing_on ||
		     ut_rt.cfg.clock != UT_CLOCK_LOCAL)) {
		function_entry_slow(t, ip, parent_ip);
		return;
	}
	ts = ut_arch_cycles();
	if (unlikely(ts - t->last_ts > UT_REC_DELTA_MAX)) {
		function_entry_slow(t, ip, parent_ip);
		return;
	}
	commit(t, pos, ts, ts - t->last_ts, ip, parent_ip);
	barrier();
	t->busy = 0;
}

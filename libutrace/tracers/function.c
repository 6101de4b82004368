// SPDX-License-Identifier: MIT
/*
 * The function tracer: one record (timestamp, cpu, ip, parent_ip) per call
 * of a traced function.  Called from utrace_func_caller for every enabled
 * site, so every instruction here counts: a TLS guard, one timestamp, three
 * stores, one release store.  Everything unusual goes to ut_writer_slow().
 */
#include "libutrace/internal.h"

void ut_function_entry(uint64_t ip, uint64_t parent_ip) UT_HIDDEN;

void ut_function_entry(uint64_t ip, uint64_t parent_ip)
{
	struct ut_thread *t = &ut_self;
	uint64_t pos, *w;

	if (unlikely(t->busy)) {
		/* A signal arrived inside the tracer: count, never corrupt. */
		if (t->hdr)
			t->hdr->nested++;
		return;
	}
	t->busy = 1;
	barrier();
	if (unlikely(!ut_rt.ctl || !ut_rt.ctl->tracing_on))
		goto out;
	pos = t->head;
	if (unlikely(pos + 24 > t->limit)) {
		if (!ut_writer_slow(t, 24))
			goto out;
		pos = t->head;
	}
	w = (uint64_t *)(t->data + (pos & t->mask));
	w[0] = ut_now();
	w[1] = ut_rec_word1(UT_REC_FUNCTION, ut_cpu(), ip);
	w[2] = parent_ip;
	t->head = pos + 24;
	t->hdr->written++;
	__atomic_store_n(&t->hdr->head, pos + 24, __ATOMIC_RELEASE);
out:
	barrier();
	t->busy = 0;
}

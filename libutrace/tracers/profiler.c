// SPDX-License-Identifier: MIT
/*
 * The function profiler (function_profile_enabled, trace_stat/function):
 * per function, the number of calls and the sum and sum of squares of their
 * durations, with and without callees.  It rides on the function_graph
 * hooks (tracers/function_graph.c) but writes no events: one hash-table
 * update at entry (the hit) and one at return (the time), in a per-thread
 * table in shared memory (prof.<slot>), so a crashed program's profile is
 * still readable.
 */
#include <time.h>

#include "libutrace/internal.h"

static struct ut_prof_hdr *create_table(struct ut_thread *t)
{
	struct ut_prof_hdr *h;
	uint32_t slot;
	bool fresh;

	if (ut_thread_slot(t, &slot))
		return NULL;
	/* a reused slot's table: cleared if a reader took it, else it goes on counting */
	h = ut_slot_prof(slot, sizeof(*h) + (size_t)UT_PROF_ENTRIES * sizeof(struct ut_prof_entry),
			 &fresh);
	if (!h || !fresh)
		return h;
	h->version = UT_ABI_VERSION;
	h->nr_entries = UT_PROF_ENTRIES;
	h->tid = ut_rt.ctl->threads[slot].tid;
	h->slot = slot;
	h->cpu_time = !ut_rt.cfg.sleep_time;
	h->taken = 0;
	__atomic_store_n(&h->magic, UT_PROF_MAGIC, __ATOMIC_RELEASE);
	return h;
}

/* Count a call of @ip; returns its row (for the time at return) or NULL. */
struct ut_prof_entry *ut_prof_hit(struct ut_thread *t, uint64_t ip)
{
	struct ut_prof_hdr *h = t->prof;
	struct ut_prof_entry *tab;
	uint32_t mask, i;

	if (unlikely(!h)) {
		if (t->failed)
			return NULL;
		h = t->prof = create_table(t);
		if (!h) {
			t->failed = 1;
			return NULL;
		}
	}
	tab = (struct ut_prof_entry *)(h + 1);
	mask = h->nr_entries - 1;
	i = ut_prof_home(h, ip);
	for (uint32_t n = 0; n <= mask; n++, i = (i + 1) & mask) {
		if (tab[i].ip == ip) {
			tab[i].hits++;
			return &tab[i];
		}
		if (!tab[i].ip) {
			tab[i].hits = 1;
			__atomic_store_n(&tab[i].ip, ip, __ATOMIC_RELEASE);
			return &tab[i];
		}
	}
	h->overflow++;
	return NULL;
}

/* The profiler's clock: the trace clock, or thread CPU time (nosleep-time). */
uint64_t ut_prof_now(void)
{
	struct timespec ts;

	if (ut_rt.cfg.sleep_time)
		return ut_now();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

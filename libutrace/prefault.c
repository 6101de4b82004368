// SPDX-License-Identifier: MIT
/*
 * Prefaulting: the pages of a thread's ring are populated by a helper
 * thread ahead of the writer, so the traced thread does not take a page
 * fault on every new page of its ring's first lap (in this VM a fault costs
 * microseconds: with a large buffer_size_kb it more than doubled the cost of
 * a call).
 *
 * Memory stays what the threads use: nothing is populated for a thread
 * until it has written PF_START bytes itself, and then only as far ahead of
 * its head as it has written so far (doubling, like readahead), at most
 * PF_MAX_AHEAD.  A thousand quiet threads populate nothing more than they
 * touch; a busy one at most its ring.  After the first lap every page
 * exists and nothing more is asked.
 *
 * The writer's side (ut_prefault_ahead) runs on the tracing path, at a page
 * crossing: no locks, one futex wake per request (every PF_MAX_AHEAD / 2
 * bytes at most).  A request that finds no free mailbox slot is dropped:
 * the writer then faults the pages itself, as without a prefaulter.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libutrace/internal.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define PF_START (64u << 10)      /* written by a thread before we help it */
#define PF_MAX_AHEAD (8u << 20)   /* populated ahead of a writer at most */
#define PF_SLOTS 64u

/* A request: [addr, addr + len) to populate; addr 0 = free, 1 = being filled. */
struct pf_req {
	uint64_t addr;
	uint64_t len;
};

static struct {
	uint32_t gen;             /* futex word: bumped by every request */
	bool running;
	struct pf_req req[PF_SLOTS];
} pf;

/* Post [addr, addr + len) to the prefaulter; false if every slot is taken. */
static bool post(uint64_t addr, uint64_t len)
{
	for (uint32_t i = 0; i < PF_SLOTS; i++) {
		uint64_t free_ = 0;

		if (__atomic_load_n(&pf.req[i].addr, __ATOMIC_RELAXED) ||
		    !__atomic_compare_exchange_n(&pf.req[i].addr, &free_, 1, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		pf.req[i].len = len;
		__atomic_store_n(&pf.req[i].addr, addr, __ATOMIC_RELEASE);
		__atomic_add_fetch(&pf.gen, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &pf.gen, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		return true;
	}
	return false;
}

/**
 * ut_prefault_ahead - ask for @t's next pages, if it is time to
 *
 * Called when the writer has opened a new page at t->head (in its first lap).
 * t->pf_next is how far the ring was asked for; it restarts at 0 for a new
 * buffer (t->data changed: first event, resize, fork).
 */
void ut_prefault_ahead(struct ut_thread *t)
{
	uint64_t size = t->mask + 1, pos = t->head, ahead, from, to;
	int saved;

	if (unlikely(t->pf_data != t->data)) {
		t->pf_data = t->data;
		t->pf_next = 0;
	}
	if (t->pf_next >= size || pos >= size || pos < PF_START ||
	    !__atomic_load_n(&pf.running, __ATOMIC_RELAXED))
		return;
	ahead = pos < PF_MAX_AHEAD ? pos : PF_MAX_AHEAD;
	if (t->pf_next >= pos + ahead / 2)
		return; /* still far enough ahead */
	from = (pos | (UT_PAGE_SIZE - 1)) + 1; /* the pages after the writer's */
	if (from < t->pf_next)
		from = t->pf_next;
	to = pos + ahead < size ? (pos + ahead) & ~(uint64_t)(UT_PAGE_SIZE - 1) : size;
	if (to <= from)
		return;
	saved = errno;
	if (post((uint64_t)(t->data + from), to - from))
		t->pf_next = to;
	errno = saved;
}

/* Populate one request's pages (already present ones cost a page walk). */
static void populate(uint64_t addr, uint64_t len)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), lo = addr & ~(pg - 1);
	uint64_t hi = (addr + len + pg - 1) & ~(pg - 1);

	if (!madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) || errno != EINVAL)
		return;
	/*
	 * A kernel before 5.14: a write fault that changes nothing.  The add
	 * is atomic, so a writer's store to the same word is never lost.
	 */
	for (uint64_t p = lo < addr ? lo + pg : lo; p < hi; p += pg)
		__atomic_fetch_add((uint64_t *)p, 0, __ATOMIC_RELAXED);
}

static void *prefault_main(void *arg)
{
	(void)arg;
	ut_self.busy = 1; /* never traced */
	prctl(PR_SET_NAME, "utrace-prefault", 0, 0, 0);
	for (;;) {
		uint32_t gen = __atomic_load_n(&pf.gen, __ATOMIC_ACQUIRE);
		bool found = false;

		for (uint32_t i = 0; i < PF_SLOTS; i++) {
			uint64_t addr = __atomic_load_n(&pf.req[i].addr, __ATOMIC_ACQUIRE);

			if (addr <= 1)
				continue;
			populate(addr, pf.req[i].len);
			__atomic_store_n(&pf.req[i].addr, 0, __ATOMIC_RELEASE);
			found = true;
		}
		if (!found)
			syscall(SYS_futex, &pf.gen, FUTEX_WAIT_PRIVATE, gen, NULL, NULL, 0);
	}
	return NULL;
}

/**
 * ut_prefault_start - start this process's prefaulter (at start-up, and in
 * a fork child: threads do not survive fork)
 *
 * UTRACE_NO_PREFAULT=1 runs without it (the writer faults its pages itself).
 * Return: 0 or a negative errno.
 */
int ut_prefault_start(void)
{
	int ret;

	for (uint32_t i = 0; i < PF_SLOTS; i++)
		pf.req[i].addr = 0; /* a fork child: the parent's requests are not ours */
	pf.running = false;
	if (getenv("UTRACE_NO_PREFAULT"))
		return 0;
	ret = ut_rt_thread_start(prefault_main, NULL, (size_t)64 * 1024);
	if (!ret)
		__atomic_store_n(&pf.running, true, __ATOMIC_RELEASE);
	return ret;
}

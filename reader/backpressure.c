// SPDX-License-Identifier: MIT
/* The recorder's side of back-pressure (reader/backpressure.h). */
#include "reader/backpressure.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "utrace/abi.h"

uint64_t ut_bp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool ut_bp_beat(const struct ut_rb_reader *rb, uint64_t now)
{
	static int32_t me; /* this process, the consumer */
	/* the consumer's words of the header: the reader maps it writable */
	struct ut_buf_hdr *h = (struct ut_buf_hdr *)rb->hdr;
	uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	bool waiting;

	if (!me)
		me = (int32_t)getpid();
	/* who beats: a waiting writer asks whether it lives once the beat is stale */
	if (__atomic_load_n(&h->consumer_pid, __ATOMIC_RELAXED) != me)
		__atomic_store_n(&h->consumer_pid, me, __ATOMIC_RELAXED);
	/* even: a consumer's (a producer arms a new buffer with an odd one) */
	__atomic_store_n(&h->beat_ns, now & ~1ull, __ATOMIC_RELEASE);
	/* tail's store (ut_rb_consume) before this load: a writer going to sleep
	 * either saw the new tail or is seen waiting here */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	waiting = __atomic_load_n(&h->waiting, __ATOMIC_SEQ_CST) != 0;
	if (waiting) {
		__atomic_store_n(&h->waiting, 0, __ATOMIC_RELAXED);
		syscall(SYS_futex, &h->waiting, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
	return waiting || (head >= rb->tail && head - rb->tail > rb->size / 2);
}

void ut_bp_nap(const struct ut_rb_reader *const *rings, size_t n, long ns)
{
	struct futex_waitv w[UT_BP_NAP_MAX];
	struct timespec ts;

	if (n && n <= UT_BP_NAP_MAX) {
		for (size_t i = 0; i < n; i++)
			w[i] = (struct futex_waitv){
				.val = 0, .uaddr = (uintptr_t)&rings[i]->hdr->waiting, .flags = FUTEX_32};
		clock_gettime(CLOCK_MONOTONIC, &ts); /* futex_waitv's timeout is absolute */
		ts.tv_nsec += ns;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		/* woken, timed out, or a writer already waits (EAGAIN): all done */
		if (syscall(SYS_futex_waitv, w, (unsigned)n, 0, &ts, CLOCK_MONOTONIC) >= 0 ||
		    errno != ENOSYS)
			return;
	}
	ts = (struct timespec){ns / 1000000000, ns % 1000000000};
	nanosleep(&ts, NULL);
}

long ut_test_us(const char *env)
{
	const char *v = getenv(env);
	long us = v ? strtol(v, NULL, 10) : 0;

	return us < 0 || us > 10000000 ? 0 : us; /* 10 s at most */
}

void ut_test_delay_us(const char *env, long *cache)
{
	if (*cache < 0)
		*cache = ut_test_us(env);
	if (*cache) {
		struct timespec ts = {*cache / 1000000, *cache % 1000000 * 1000};

		nanosleep(&ts, NULL);
	}
}

void ut_bp_test_delay(void)
{
	static long delay_us = -1;

	ut_test_delay_us("UTRACE_TEST_DRAIN_DELAY_US", &delay_us);
}

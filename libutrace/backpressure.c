// SPDX-License-Identifier: MIT
/*
 * Back-pressure: in `utrace record`'s lossless mode (configuration
 * "lossless 1"), a thread whose ring is full waits for the recorder to
 * consume instead of dropping the record.  The traced program must never
 * hang on a recorder that is gone (killed, stopped, a disk that fails), so
 * a thread waits only while the consumer's heartbeat (ut_buf_hdr.beat_ns,
 * stored on every pass) is fresh, and not again until the consumer has
 * moved since a wait gave up; otherwise the buffer drops and counts as in
 * the kernel (docs/shm-abi.md).
 *
 * Runs on the tracing path, inside the trampoline, holding nothing but the
 * thread's recursion guard: a signal handler that traces meanwhile is
 * refused by the guard (counted in hdr->nested), as at any other time.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "libutrace/internal.h"

#define SPINS 512                 /* pauses before sleeping: tens of microseconds */
#define SLEEP_NS 2000000L         /* a sleep's bound: liveness is looked at again */
#define ALIVE_LOOK_NS 100000000ull /* its process looked at this often */

uint64_t ut_bp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether top-level buffers of this process wait when full. */
static bool wanted(const struct ut_thread *t)
{
	return !t->inst && ut_rt.cfg.lossless && !ut_rt.cfg.overwrite;
}

void ut_bp_arm(struct ut_thread *t)
{
	/*
	 * A new buffer, or one no recorder has beaten yet: the recorder has not
	 * seen it yet (it looks for new sessions and threads on every pass), so
	 * it starts with a beat of its own, as if just read, and the pid of the
	 * recorder the configuration names (lossless_pid): a recorder held up
	 * past STALE before it found the buffer is waited for as on a buffer
	 * it has beaten (consumer_there), where a new thread's first wait gave
	 * up after a second (tests/record/425).
	 */
	if (wanted(t)) {
		if (ut_rt.cfg.lossless_pid > 0)
			__atomic_store_n(&t->hdr->consumer_pid, ut_rt.cfg.lossless_pid,
					 __ATOMIC_RELAXED);
		__atomic_store_n(&t->hdr->beat_ns, ut_bp_now() | 1, __ATOMIC_RELEASE);
	}
}

/*
 * Whether a consumer beat @h lately: a fresh beat of its own (even), not
 * the producer's arming (odd).  A recorder that died left every new
 * thread's buffer armed, fresh, and the slot claims that ask whether a
 * recorder is there (libutrace/slots.c) kept waiting for it.
 */
bool ut_bp_beaten(const struct ut_buf_hdr *h, uint64_t now)
{
	return ut_bp_fresh(h, now) && !(__atomic_load_n(&h->beat_ns, __ATOMIC_ACQUIRE) & 1);
}

bool ut_bp_fresh(const struct ut_buf_hdr *h, uint64_t now)
{
	uint64_t beat = __atomic_load_n(&h->beat_ns, __ATOMIC_ACQUIRE);

	return beat && (beat >= now || now - beat < UT_BP_STALE_NS);
}

/* A consumer's pid found gone for good (no such process, or a zombie). */
static int32_t gone_pid;

/*
 * Whether process @pid exists and is not stopped: its state in /proc (no
 * /proc: whether a signal reaches it).  A recorder stopped with SIGSTOP
 * is gone for our purpose, as one killed; one traced (a ptrace stop) or
 * sleeping runs.  One found gone for good is remembered: the slot claims
 * of a program whose recorder died ask on every new thread.  System calls
 * only: the tracing path.
 */
static bool consumer_runs(int32_t pid)
{
	char path[32], buf[512];
	ssize_t len;
	const char *c = NULL;
	int fd;

	if (__atomic_load_n(&gone_pid, __ATOMIC_RELAXED) == pid)
		return false;
	ut_num_name(path, "/proc/", (uint32_t)pid, "/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT && (!kill(pid, 0) || errno == EPERM))
			return true;
		if (errno == ENOENT || errno == ESRCH)
			__atomic_store_n(&gone_pid, pid, __ATOMIC_RELAXED);
		return false;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (ssize_t i = 0; i < len; i++) /* the command may hold ')': the last one */
		if (buf[i] == ')')
			c = buf + i;
	if (!c || c + 2 >= buf + len)
		return false;
	if (c[2] == 'Z' || c[2] == 'X' || c[2] == 'x')
		__atomic_store_n(&gone_pid, pid, __ATOMIC_RELAXED);
	return c[2] != 'T' && c[2] != 'Z' && c[2] != 'X' && c[2] != 'x';
}

/**
 * ut_bp_named_runs - whether the consumer @h names is slow, not gone
 *
 * The process in ut_buf_hdr.consumer_pid (the recorder that beat @h, or
 * on a buffer it has not found yet the one the configuration names:
 * ut_bp_arm) fell silent on @h less than UT_BP_ALIVE_NS ago and still runs.  A
 * recorder held up longer than UT_BP_STALE_NS -- starved on a busy
 * machine, blocked behind a lock, not yet at a new thread's buffer -- is
 * slow: giving up on it dropped a lossless record's events
 * (tests/record/422, 425).  @looked: until when a process was last seen
 * running (0 at first; one per waiter, who asks about one recorder).
 */
bool ut_bp_named_runs(const struct ut_buf_hdr *h, uint64_t now, uint64_t *looked)
{
	uint64_t beat = __atomic_load_n(&h->beat_ns, __ATOMIC_ACQUIRE);
	int32_t pid = __atomic_load_n(&h->consumer_pid, __ATOMIC_RELAXED);

	if (pid <= 0 || !beat || (beat < now && now - beat >= UT_BP_ALIVE_NS))
		return false;
	if (now < *looked)
		return true;
	if (!consumer_runs(pid))
		return false;
	*looked = now + ALIVE_LOOK_NS;
	return true;
}

/* Whether the consumer may still come to @h: a fresh beat, or one slow (above). */
static bool consumer_there(const struct ut_buf_hdr *h, uint64_t now, uint64_t *looked)
{
	return ut_bp_fresh(h, now) || ut_bp_named_runs(h, now, looked);
}

static uint64_t tail_of(const struct ut_buf_hdr *h)
{
	return __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
}

/*
 * Sleep until the consumer wakes us (it consumed) or SLEEP_NS pass.  The
 * first time, wake the recorder too, should it nap on this word.
 */
static void sleep_for_room(struct ut_buf_hdr *h, uint64_t need, bool first)
{
	struct timespec ts = {0, SLEEP_NS};

	__atomic_store_n(&h->waiting, 1, __ATOMIC_SEQ_CST);
	if (first)
		syscall(SYS_futex, &h->waiting, FUTEX_WAKE, 1, NULL, NULL, 0);
	/* after announcing: a consumer that moved tail before saw no sleeper */
	if (__atomic_load_n(&h->tail, __ATOMIC_SEQ_CST) < need)
		syscall(SYS_futex, &h->waiting, FUTEX_WAIT, 1, &ts, NULL, 0);
	__atomic_store_n(&h->waiting, 0, __ATOMIC_RELAXED);
}

/**
 * ut_bp_wait - wait until the consumer's tail reaches @need
 *
 * Spins a little (the recorder usually runs on another CPU and frees pages
 * within microseconds), then sleeps on the futex, looking at the heartbeat
 * between sleeps.  Return: true if there is room now; false to drop.
 */
bool ut_bp_wait(struct ut_thread *t, uint64_t need)
{
	struct ut_buf_hdr *h = t->hdr;
	uint64_t tail = tail_of(h), start, now, looked = 0;

	if (!wanted(t) || h->stuck_tail == tail + 1)
		return false; /* not lossless, or gave up here and nothing moved since */
	if (!__atomic_load_n(&h->beat_ns, __ATOMIC_ACQUIRE))
		ut_bp_arm(t); /* a buffer from before "lossless 1" (record -P): a grace period too */
	start = now = ut_bp_now();
	if (!consumer_there(h, now, &looked))
		return false;
	h->waits++;
	for (int i = 0; i < SPINS && tail < need; i++) {
		ut_arch_relax();
		tail = tail_of(h);
	}
	while (tail < need && wanted(t)) { /* record -P ending puts "lossless 0" back */
		/*
		 * Only a consumer that stopped beating ends the wait: one that
		 * beats but has not reached this ring for a second (a writer
		 * behind, the queue full of other threads' data) is slow, not
		 * gone, and giving up then dropped a lossless record's events.
		 */
		if (!consumer_there(h, now, &looked)) {
			h->stuck_tail = tail + 1;
			break;
		}
		sleep_for_room(h, need, now == start);
		tail = tail_of(h);
		now = ut_bp_now();
	}
	h->wait_ns += ut_bp_now() - start;
	return tail >= need;
}

// SPDX-License-Identifier: MIT
/*
 * The slow half of the per-thread ring-buffer writer (the fast half is
 * inlined in each tracer): creating a thread's buffer at its first event,
 * and moving to the next page.  Runs on the tracing path, so only system
 * calls, no malloc, no stdio; errno is preserved for the traced program.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "libutrace/internal.h"

__thread struct ut_thread ut_self;
__thread struct ut_thread ut_inst_self[UT_MAX_INST];

/* The buffer size and mode of @t's buffer (top level or its instance). */
static uint32_t buf_size_of(const struct ut_thread *t)
{
	return t->inst ? ut_rt.inst[t->inst].buf_size : ut_rt.ctl->buf_size;
}

static bool overwrite_of(const struct ut_thread *t)
{
	return t->inst ? ut_rt.inst[t->inst].overwrite : ut_rt.ctl->overwrite;
}

/* The time now in the clock of @t's buffer (an instance has its own). */
static uint64_t now_of(const struct ut_thread *t)
{
	return ut_now_in(t->inst ? ut_rt.inst[t->inst].clock : ut_rt.cfg.clock);
}

static bool create_buffer(struct ut_thread *t)
{
	struct ut_ctl *ctl = ut_rt.ctl;
	uint32_t slot;

	/* The thread's slot (its name for readers) is the top level's. */
	if (ut_thread_slot(&ut_self, &slot) || !ut_slot_buffer(t, slot, buf_size_of(t)))
		return false;
	ut_bp_arm(t);
	/* Publish the slot only now that its buffer exists (a reused one is already). */
	if (__atomic_load_n(&ctl->threads[slot].state, __ATOMIC_ACQUIRE) == UT_SLOT_FREE)
		__atomic_store_n(&ctl->threads[slot].state, UT_SLOT_ACTIVE, __ATOMIC_RELEASE);
	return true;
}

/**
 * ut_writer_slow - make room for a record of @size bytes at t->head
 *
 * Creates the thread's buffer at its first event, or closes the current page
 * and opens the next one.  In producer/consumer mode (overwrite=0) a full
 * buffer waits for the recorder in lossless mode (libutrace/backpressure.c),
 * else refuses the record and counts it in hdr->dropped.
 *
 * Return: true if t->head .. t->head + @size may now be written.
 */
bool ut_writer_slow(struct ut_thread *t, unsigned size)
{
	uint64_t pos, off;
	int saved = errno;
	bool ok = false;

	if (unlikely(t->hdr && buf_size_of(t) != t->mask + 1 && !t->inst)) {
		/*
		 * buffer_size_kb changed: go on in a new buffer of the new size,
		 * in a new slot (same thread).  The old one stays for readers,
		 * EXITED, until a new thread reuses it.
		 */
		ut_slot_leave(false);
	}
	if (!t->hdr) {
		if (t->failed || !ut_rt.ready || !ut_rt.ctl)
			goto out;
		if (!create_buffer(t)) {
			t->failed = 1;
			goto out;
		}
		/* Open the first page like any other (it starts with a TIME record). */
		t->limit = 0;
	}
	pos = t->head;
	off = pos & (UT_PAGE_SIZE - 1);
	if (off) {
		/* Close this page: a zero word tells the reader the rest is empty. */
		if (UT_PAGE_SIZE - off >= 8)
			*(uint64_t *)(t->data + (pos & t->mask)) = 0;
		pos += UT_PAGE_SIZE - off;
	}
	if (!overwrite_of(t)) {
		uint64_t tail = __atomic_load_n(&t->hdr->tail, __ATOMIC_ACQUIRE);

		/* full: wait for the recorder (lossless), or refuse and count */
		if (pos + UT_PAGE_SIZE - tail > t->mask + 1 &&
		    !ut_bp_wait(t, pos + UT_PAGE_SIZE - (t->mask + 1))) {
			t->hdr->dropped++;
			goto out;
		}
	}
	t->head = pos;
	t->limit = pos + UT_PAGE_SIZE;
	/* Every page starts with a full timestamp, so it decodes on its own. */
	ut_writer_time(t, now_of(t));
	if (t->hdr->dropped != t->dropped_told) {
		/* Tell the reader, in the stream, how many records were refused. */
		uint64_t *w = (uint64_t *)(t->data + (t->head & t->mask));

		w[0] = ut_rec_word0(UT_REC_LOST, ut_cpu(), 0);
		w[1] = t->hdr->dropped - t->dropped_told;
		t->dropped_told = t->hdr->dropped;
		t->head += UT_REC_SIZE;
	}
	__atomic_store_n(&t->hdr->head, t->head, __ATOMIC_RELEASE);
	ok = true;
out:
	errno = saved;
	return ok;
}

/**
 * ut_rec_reserve_slow - reserve @size bytes when the fast path cannot
 *
 * Opens a page (first event, page full), writes a TIME record when the delta
 * would not fit, and reads the clock when it is not the TSC.
 * Return: where to write, with *@delta set, or NULL (buffer full or none).
 */
uint64_t *ut_rec_reserve_slow(struct ut_thread *t, unsigned size, uint64_t *delta)
{
	uint64_t ts;

	/* Room for a TIME record and ours: a new page starts with a TIME record. */
	if (t->head + UT_REC_SIZE + size > t->limit) {
		if (!ut_writer_slow(t, UT_REC_SIZE + size))
			return NULL;
		ut_prefault_ahead(t); /* a new page: ask for the next ones early */
	}
	ts = now_of(t);
	if (ts - t->last_ts > UT_REC_DELTA_MAX)
		ut_writer_time(t, ts);
	t->new_ts = ts;
	*delta = ts - t->last_ts;
	return (uint64_t *)(t->data + (t->head & t->mask));
}

/*
 * A TIME record at t->head (the caller made room): the base for the deltas
 * of the records that follow.  Not published: the next record's commit does.
 */
void ut_writer_time(struct ut_thread *t, uint64_t ts)
{
	uint64_t *w = (uint64_t *)(t->data + (t->head & t->mask));

	w[0] = ut_rec_word0(UT_REC_TIME, ut_cpu(), 0);
	w[1] = ts;
	t->last_ts = ts;
	t->head += UT_REC_SIZE;
}

/* Timestamps for the clocks that are not the TSC. */
uint64_t ut_clock_slow(uint32_t clock)
{
	struct timespec ts;
	clockid_t id;

	switch (clock) {
	case UT_CLOCK_COUNTER:
		return __atomic_add_fetch(&ut_rt.counter, 1, __ATOMIC_RELAXED);
	case UT_CLOCK_MONO_RAW:
		id = CLOCK_MONOTONIC_RAW;
		break;
	case UT_CLOCK_BOOT:
		id = CLOCK_BOOTTIME;
		break;
	default:
		id = CLOCK_MONOTONIC;
		break;
	}
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * ut_pid_recheck - set_ftrace_pid or tracing_cpumask changed since this
 * thread last looked
 *
 * Wanted: remember the generation, so the next events take the fast path.
 * Not wanted: leave it stale and say no (the thread pays this check on every
 * event it would have recorded; its sites stay patched for the others).
 * With a tracing_cpumask the generation is never remembered: the thread may
 * move to another CPU at any time, so each event asks here, and the fast
 * path costs nothing more when there is no mask.
 */
bool ut_pid_recheck(struct ut_thread *t)
{
	uint32_t gen = __atomic_load_n(&ut_rt.pid_gen, __ATOMIC_ACQUIRE);
	bool wanted;

	if (!t->tid)
		t->tid = (int32_t)gettid();
	wanted = ut_cfg_pid_wanted(&ut_rt.cfg, ut_rt.pid, t->tid);
	if (wanted && ut_rt.cfg.cpumask_set)
		return ut_cfg_cpu_wanted(&ut_rt.cfg, ut_cpu());
	if (wanted)
		t->pid_gen = gen;
	return wanted;
}

/* After fork: the child must not write into its parent's buffers. */
void ut_writer_forget(void)
{
	ut_self.hdr = NULL;
	ut_self.data = NULL;
	ut_self.head = 0;
	ut_self.limit = 0;
	ut_self.failed = 0;
	ut_self.dropped_told = 0;
	ut_self.has_slot = 0;
	ut_self.prof = NULL; /* the parent's table is shared memory: not ours */
	ut_stacks_forget_prof(&ut_self); /* nor the rows its calls in progress hold */
	ut_slots_forget();
	ut_self.busy = 0;
	ut_self.tid = 0;
	ut_self.pid_gen = ut_rt.pid_gen - 1; /* check again: another pid */
	for (uint32_t k = 1; k < UT_MAX_INST; k++) {
		ut_inst_self[k].hdr = NULL;
		ut_inst_self[k].data = NULL;
		ut_inst_self[k].head = 0;
		ut_inst_self[k].limit = 0;
		ut_inst_self[k].failed = 0;
		ut_inst_self[k].dropped_told = 0;
	}
}

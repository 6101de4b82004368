// SPDX-License-Identifier: MIT
/*
 * Thread slots and their buffers, recycled (docs/shm-abi.md, "Recycling").
 *
 * A thread claims a slot of the control block at its first event; the slot
 * names it for readers and numbers its files (buf.N, iK.buf.N, prof.N).
 * When the thread exits (a pthread key's destructor) its slot goes EXITED:
 * its buffers stay readable, and the mappings stay in this table, owned by
 * the slot rather than the thread.  A new thread takes an EXITED slot, and
 * its buffers as they are, once their content is out:
 *
 *   - taken: every buffer of the slot has tail == head (`record` drained
 *     it, trace_pipe consumed it, `echo > trace` cleared it);
 *   - or, when no such slot exists and a new buffer would take the
 *     process's buffers past buffer_total_size_kb (and the buffers do not
 *     wait for a recorder: lossless), the slot whose thread exited first:
 *     its unread records are overwritten, as the kernel overwrites its
 *     oldest pages, and counted (ctl.recycled_lost).
 *
 * So UT_MAX_THREADS bounds the threads alive (or whose data is not yet
 * taken) at one time, not the threads of a process's life.  Reuse continues
 * a buffer's positions: the new thread starts at the next page, tail is
 * moved there (tail_records = written, as a clear does: both claimed in one
 * piece, common/tail_claim.h), and the slot's gen
 * is incremented before the new thread publishes its first record, so a
 * reader that loads head and then gen knows whose data it has.
 *
 * Runs on the tracing path (a thread's first event): system calls, no
 * malloc; built with -mgeneral-regs-only.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/tail_claim.h"
#include "libutrace/internal.h"

#define REAP_EVERY_NS 100000000ull    /* vanished threads looked for at most this often */

/* This process's side of a slot: the mappings it made, reused with the slot. */
struct slot_rt {
	struct ut_buf_hdr *buf[UT_MAX_INST]; /* the top level's [0], instance K's [K] */
	uint32_t size[UT_MAX_INST];          /* their data bytes */
	uint64_t told[UT_MAX_INST];          /* hdr->dropped told in LOST records at exit */
	struct ut_prof_hdr *prof;            /* prof.N: kept, cleared or added to by later threads */
	uint64_t prof_gen;                   /* the slot's gen that last counted in it */
	bool prof_clear;                     /* taken by a reader: cleared for the next thread */
	int32_t older, newer;                /* the exited list's links (-1: none) */
	bool listed;                         /* on the exited list */
	bool freed;                          /* FREE again, its files given back */
};

/*
 * Claims cost O(1), not a scan of the table: a program creating threads
 * after its recorder died fills the table with data nobody takes, and each
 * new thread scanned all 4,096 slots three times (record/522: 6 s instead
 * of 0.3).  So the exited slots are kept in a list in the order their
 * threads exited (the oldest is the one to overwrite), and slots given back
 * on a stack.  Whether an exited slot's data is taken is looked at in the
 * oldest TAKEN_LOOK of them: a recorder or trace_pipe takes data in the
 * order it was written, so a taken slot further in means the first ones are
 * taken too.
 */
#define TAKEN_LOOK 64

static struct slot_rt slots[UT_MAX_THREADS];
static int lock_word;          /* a spin lock: claims are rare and short */
static int32_t oldest_exited = -1, newest_exited = -1; /* the exited list's ends */
static uint32_t freed_stack[UT_MAX_THREADS];
static uint32_t nr_freed;
static pthread_key_t exit_key;
static bool key_made;

static void lock(void)
{
	while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
		ut_arch_relax();
}

static void unlock(void)
{
	__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

/**
 * ut_thread_file - create the session file PREFIX<slot> of @size bytes and map it
 *
 * Not populated: pages are allocated as the thread first writes them, so a
 * program with many quiet threads does not pay for full rings (the first
 * lap's page faults are a one-time cost).  Return: the mapping, or NULL.
 */
void *ut_thread_file(const char *prefix, uint32_t slot, size_t size)
{
	char name[32];
	void *map;
	int fd;

	ut_num_name(name, prefix, slot, "");
	fd = openat(ut_rt.dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	/* its header page now: readers read it (a hole would fault on a full file system) */
	if (ftruncate(fd, (off_t)size) || fallocate(fd, 0, 0, UT_PAGE_SIZE)) {
		close(fd);
		unlinkat(ut_rt.dirfd, name, 0);
		return NULL;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		unlinkat(ut_rt.dirfd, name, 0);
		return NULL;
	}
	return map;
}

static uint64_t total_bound(void)
{
	uint64_t kb = ut_rt.cfg.total_kb ? ut_rt.cfg.total_kb : UT_CFG_TOTAL_KB_DEFAULT;

	return kb * 1024;
}

/*
 * Whether the buffers of slot @i hold nothing unread (every one: tail ==
 * head), and its profiler table, if its thread counted in it, was taken by
 * a reader (record: ut_prof_hdr.taken is the slot's gen + 1).  The live
 * readers of tables (trace_stat) do not take them: such a slot is reused
 * only when none is left, its counts going on with the next thread's.
 */
static bool taken(uint32_t i)
{
	const struct ut_prof_hdr *p = slots[i].prof;
	uint64_t gen = __atomic_load_n(&ut_rt.ctl->threads[i].gen, __ATOMIC_RELAXED);

	if (p && slots[i].prof_gen == gen && __atomic_load_n(&p->taken, __ATOMIC_ACQUIRE) != gen + 1)
		return false;
	for (int k = 0; k < UT_MAX_INST; k++) {
		const struct ut_buf_hdr *h = slots[i].buf[k];

		if (h && __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE) <
			     __atomic_load_n(&h->head, __ATOMIC_ACQUIRE))
			return false;
	}
	return true;
}

/*
 * Whether a recorder will take what buffer @h holds: it beat @h lately, or
 * the one @h names is held up but runs (ut_bp_named_runs).  Not a fresh
 * arming alone: a recorder that died left every new thread's buffer
 * armed, and the claims that ask kept waiting for it.
 */
static bool taker_there(const struct ut_buf_hdr *h, uint64_t now, uint64_t *looked)
{
	return ut_bp_beaten(h, now) || ut_bp_named_runs(h, now, looked);
}

/* Whether a recorder will take slot @i's buffers (above). */
static bool consumer_near(uint32_t i, uint64_t now, uint64_t *looked)
{
	for (int k = 0; k < UT_MAX_INST; k++)
		if (slots[i].buf[k] && taker_there(slots[i].buf[k], now, looked))
			return true;
	return false;
}

/*
 * Whether a recorder is there to take what a full table holds: one of the
 * first few buffers found has one (a recorder beats them all each pass).
 * Without one, lossless waiting and looking for a taken slot are vain:
 * every new thread would scan the table for nothing (a recorder that died
 * made a program creating threads crawl).
 */
static bool recorder_present(uint32_t nr)
{
	uint64_t now = ut_bp_now(), looked = 0;
	int seen = 0;

	for (uint32_t i = 0; i < nr && seen < 8; i++) {
		if (!slots[i].buf[0])
			continue;
		seen++;
		if (taker_there(slots[i].buf[0], now, &looked))
			return true;
	}
	return !seen; /* nothing to tell by: as if there were */
}

/* Slot @i joins the exited list, as the newest.  Under the lock. */
static void list_exited(uint32_t i)
{
	if (slots[i].listed)
		return;
	slots[i].listed = true;
	slots[i].newer = -1;
	slots[i].older = newest_exited;
	if (newest_exited >= 0)
		slots[newest_exited].newer = (int32_t)i;
	else
		oldest_exited = (int32_t)i;
	newest_exited = (int32_t)i;
}

/* Slot @i leaves the exited list (grabbed for a new thread).  Under the lock. */
static void unlist_exited(uint32_t i)
{
	if (!slots[i].listed)
		return;
	if (slots[i].older >= 0)
		slots[slots[i].older].newer = slots[i].newer;
	else
		oldest_exited = slots[i].newer;
	if (slots[i].newer >= 0)
		slots[slots[i].newer].older = slots[i].older;
	else
		newest_exited = slots[i].older;
	slots[i].listed = false;
}

/*
 * An EXITED slot: among the TAKEN_LOOK that exited first, one whose data is
 * taken, else (@oldest) the first to exit.  Under the lock.
 */
static int64_t find_exited(bool oldest)
{
	int64_t first = -1;
	int n = 0;

	for (int32_t i = oldest_exited; i >= 0 && n < TAKEN_LOOK; i = slots[i].newer, n++) {
		/* (listed just before its state is stored: ut_slot_leave) */
		if (__atomic_load_n(&ut_rt.ctl->threads[i].state, __ATOMIC_ACQUIRE) != UT_SLOT_EXITED)
			continue;
		if (taken((uint32_t)i)) {
			first = i;
			oldest = true;
			break;
		}
		if (first < 0)
			first = i;
	}
	__atomic_add_fetch(&ut_rt.ctl->slot_looks, (uint64_t)n, __ATOMIC_RELAXED);
	return oldest ? first : -1;
}

/*
 * Threads that ended without the key's destructor (a raw exit system call,
 * a thread killed some other way): their tid no longer exists.  A tid
 * reused meanwhile only keeps the slot longer.
 */
static void reap_vanished(uint32_t nr)
{
	static uint64_t last;
	uint64_t now = ut_bp_now();

	/*
	 * A system call per slot: at most every REAP_EVERY_NS.  Every new
	 * thread of a full table comes here; a table that stays full (its
	 * data never taken: the recorder died) made each thread creation
	 * cost 4,096 of them, and a program creating threads crawl for
	 * half an hour.
	 */
	if (last && now - last < REAP_EVERY_NS)
		return;
	last = now;
	for (uint32_t i = 0; i < nr; i++) {
		struct ut_thread_slot *s = &ut_rt.ctl->threads[i];

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == UT_SLOT_ACTIVE &&
		    syscall(SYS_tgkill, ut_rt.pid, s->tid, 0) && errno == ESRCH) {
			for (int k = 0; k < UT_MAX_INST; k++) /* what it told is unknown: all */
				if (slots[i].buf[k])
					slots[i].told[k] = slots[i].buf[k]->dropped;
			list_exited(i);
			__atomic_store_n(&s->state, UT_SLOT_EXITED, __ATOMIC_RELEASE);
		}
	}
}

/*
 * What buffer @h's last thread wrote that no reader took or was told of,
 * the buffer taken from its readers: its consumed pair claimed at head
 * (common/tail_claim.h), so that a reader copying what lies past the tail
 * claimed here drops its copy rather than print what is counted lost.
 */
static uint64_t take_unread(struct ut_buf_hdr *h, uint64_t told, uint64_t head)
{
	uint64_t written = __atomic_load_n(&h->written, __ATOMIC_ACQUIRE);
	struct ut_tail t = ut_tail_claim(h, (struct ut_tail){head, written});
	uint64_t lost = h->dropped - told + h->nested;

	if (t.pos < head) /* overwritten before it was read: the total bound */
		lost += written - t.records;
	return lost;
}

/*
 * Buffer @h of a slot, for the slot's next thread @tid: closes the page the
 * last one wrote into, moves head and tail to the next page (a reader at the
 * old head finds the page's end), and counts what was never taken or told.
 */
static void recycle_buffer(struct ut_buf_hdr *h, uint32_t inst, uint64_t told, int32_t tid,
			   uint64_t gen)
{
	uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	uint64_t pos = (head + UT_PAGE_SIZE - 1) & ~(uint64_t)(UT_PAGE_SIZE - 1);
	uint64_t lost = take_unread(h, told, head);

	if (head != pos)
		*(uint64_t *)((uint8_t *)h + UT_BUF_HDR_SIZE + (head & (h->buf_size - 1))) = 0;
	__atomic_add_fetch(&ut_rt.ctl->recycled_lost[inst], lost, __ATOMIC_RELAXED);
	h->dropped = 0;
	h->nested = 0;
	h->stuck_tail = 0;
	h->tid = tid;
	h->gen = gen;
	h->gen_pos = pos;
	__atomic_store_n(&h->head, pos, __ATOMIC_RELEASE);
	ut_tail_claim(h, (struct ut_tail){pos, h->written});
}

/* Slot @i's table, taken by a reader, is cleared when a thread next counts in it. */
static void prof_taken(uint32_t i)
{
	const struct ut_prof_hdr *p = slots[i].prof;

	if (p && __atomic_load_n(&p->taken, __ATOMIC_ACQUIRE) == ut_rt.ctl->threads[i].gen + 1)
		slots[i].prof_clear = true;
}

/* Slot @i's buffer of set @inst is about to go: no longer said to exist (ut_slot_has_buf). */
static void buf_gone(uint32_t i, uint32_t inst)
{
	__atomic_and_fetch(&ut_rt.ctl->threads[i].reserved[0], ~(1ull << inst), __ATOMIC_RELEASE);
}

/* Slot @i, EXITED and claimed by us (REUSING), becomes @tid's. */
static void reuse(uint32_t i, int32_t tid)
{
	struct ut_thread_slot *s = &ut_rt.ctl->threads[i];
	uint64_t gen = s->gen + 1;

	for (int k = 0; k < UT_MAX_INST; k++)
		if (slots[i].buf[k])
			recycle_buffer(slots[i].buf[k], (uint32_t)k, slots[i].told[k], tid, gen);
	prof_taken(i);
	/* before the new thread's first record is published (readers: head, then gen) */
	__atomic_store_n(&s->gen, gen, __ATOMIC_RELEASE);
	__atomic_add_fetch(&ut_rt.ctl->slots_reused, 1, __ATOMIC_RELAXED);
}

/* Take EXITED slot @i if nobody else did first.  Under the lock. */
static bool grab(int64_t i)
{
	uint32_t want = UT_SLOT_EXITED;

	if (i < 0 || !__atomic_compare_exchange_n(&ut_rt.ctl->threads[i].state, &want,
						  UT_SLOT_REUSING, false, __ATOMIC_ACQ_REL,
						  __ATOMIC_ACQUIRE))
		return false;
	unlist_exited((uint32_t)i);
	return true;
}

/* Slot @i's files go (a grabbed EXITED slot): FREE again, a new gen for readers. */
static void give_back(uint32_t i)
{
	struct ut_thread_slot *s = &ut_rt.ctl->threads[i];
	char prefix[] = "iK.buf.", name[32];

	for (int k = 0; k < UT_MAX_INST; k++) {
		struct ut_buf_hdr *h = slots[i].buf[k];

		if (!h)
			continue;
		buf_gone(i, (uint32_t)k);
		__atomic_add_fetch(&ut_rt.ctl->recycled_lost[k],
				   take_unread(h, slots[i].told[k],
					       __atomic_load_n(&h->head, __ATOMIC_ACQUIRE)),
				   __ATOMIC_RELAXED);
		munmap(h, UT_BUF_HDR_SIZE + (size_t)slots[i].size[k]);
		prefix[1] = (char)('0' + k);
		ut_num_name(name, k ? prefix : "buf.", i, "");
		unlinkat(ut_rt.dirfd, name, 0);
		__atomic_sub_fetch(&ut_rt.ctl->buf_bytes, UT_BUF_HDR_SIZE + (uint64_t)slots[i].size[k],
				   __ATOMIC_RELAXED);
		slots[i].buf[k] = NULL;
		slots[i].size[k] = 0;
		slots[i].told[k] = 0;
	}
	prof_taken(i);
	__atomic_store_n(&s->gen, s->gen + 1, __ATOMIC_RELEASE);
	slots[i].freed = true;
	freed_stack[nr_freed++] = i;
	__atomic_store_n(&s->state, UT_SLOT_FREE, __ATOMIC_RELEASE);
}

/*
 * While the process holds more than the bound (a burst of threads has
 * ended), exited slots give their files back: those whose data is taken
 * first, then, unless the buffers wait for a recorder (lossless), those of
 * the threads that exited first, their unread records counted as lost (the
 * kernel's oldest pages overwritten).  Under the lock.
 */
#define TRIM_MAX 8 /* slots given back per call: the lock is a spin lock */

static void trim(bool lossless)
{
	/*
	 * A few at a time: each thread's start and exit trims, so the process
	 * comes back under the bound within a few threads, and no thread
	 * spins while another gives back thousands of files (a recorder that
	 * died leaves the whole table over the bound at once).
	 */
	for (int n = 0; n < TRIM_MAX &&
			__atomic_load_n(&ut_rt.ctl->buf_bytes, __ATOMIC_RELAXED) > total_bound();
	     n++) {
		int64_t i = find_exited(!lossless);

		if (!grab(i))
			return;
		give_back((uint32_t)i);
	}
}

/* A slot given back by trim(), or -1.  Under the lock. */
static int64_t find_freed(void)
{
	while (nr_freed) {
		uint32_t i = freed_stack[--nr_freed];

		if (slots[i].freed &&
		    __atomic_load_n(&ut_rt.ctl->threads[i].state, __ATOMIC_ACQUIRE) == UT_SLOT_FREE) {
			slots[i].freed = false;
			return i;
		}
	}
	return -1;
}

/* A slot for a new thread: reused, new, or -1.  Under the lock. */
static int64_t pick(bool lossless)
{
	struct ut_ctl *ctl = ut_rt.ctl;
	uint32_t nr = __atomic_load_n(&ctl->nr_slots, __ATOMIC_ACQUIRE);
	uint64_t need = (uint64_t)ut_rt.buf_size + UT_BUF_HDR_SIZE;
	bool over = __atomic_load_n(&ctl->buf_bytes, __ATOMIC_RELAXED) + need > total_bound();
	int64_t i = find_exited(over && !lossless);

	if (grab(i))
		return i;
	i = find_freed();
	if (i >= 0)
		return i;
	if (nr < UT_MAX_THREADS) {
		__atomic_store_n(&ctl->nr_slots, nr + 1, __ATOMIC_RELEASE);
		return nr;
	}
	reap_vanished(UT_MAX_THREADS);
	i = find_exited(!lossless);
	return grab(i) ? i : -1;
}

/*
 * Every slot is taken: in lossless mode wait while a recorder is there to
 * take an exited thread's data (taker_there: it beats their buffers, or is
 * held up less than ten seconds and runs), as a full ring waits
 * (ut_bp_wait); then the oldest exited slot, with its loss counted.  A
 * total bound of a second here lost a loaded recorder's data
 * (tests/record/426).
 */
static int64_t pick_waiting(void)
{
	struct timespec nap = {0, 200000};
	uint64_t looked = 0;
	int64_t i;

	for (;;) {
		bool near = false;
		uint64_t now = ut_bp_now();

		lock();
		i = pick(true);
		for (uint32_t k = 0; i < 0 && k < UT_MAX_THREADS && !near; k++)
			near = ut_rt.ctl->threads[k].state == UT_SLOT_EXITED &&
			       consumer_near(k, now, &looked);
		if (i < 0 && !near)
			i = pick(false);
		unlock();
		if (i >= 0 || !near)
			return i;
		nanosleep(&nap, NULL);
	}
}

static void exit_destructor(void *arg);

/**
 * ut_thread_slot - this thread's slot in the control block, claimed once
 *
 * The slot names the thread (tid, comm) for readers and numbers its files.
 * Return: 0, or -ENOSPC when all UT_MAX_THREADS slots hold live threads or
 * data a recorder has yet to take.
 */
int ut_thread_slot(struct ut_thread *t, uint32_t *slotp)
{
	struct ut_ctl *ctl = ut_rt.ctl;
	bool lossless = ut_rt.cfg.lossless && !ut_rt.cfg.overwrite;
	char comm[16] = {0};
	struct ut_thread_slot *s;
	int32_t tid = (int32_t)gettid();
	int64_t i;

	if (t->has_slot) {
		*slotp = t->slot;
		return 0;
	}
	ctl->total_bytes = total_bound();
	lock();
	if (lossless && __atomic_load_n(&ctl->nr_slots, __ATOMIC_ACQUIRE) >= UT_MAX_THREADS)
		lossless = recorder_present(UT_MAX_THREADS);
	i = pick(lossless);
	trim(lossless); /* a burst ended */
	unlock();
	if (i < 0 && lossless)
		i = pick_waiting();
	if (i < 0) {
		__atomic_fetch_add(&ctl->threads_untraced, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	s = &ctl->threads[i];
	s->tid = tid;
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	for (int k = 0; k < 16; k++)
		s->comm[k] = comm[k];
	if (s->state == UT_SLOT_REUSING)
		reuse((uint32_t)i, tid);
	t->slot = *slotp = (uint32_t)i;
	t->has_slot = 1;
	/* the exit tells the slot (a key below 32 needs no allocation in glibc) */
	if (key_made)
		pthread_setspecific(exit_key, (void *)1);
	/* a reused slot is readable again at once; a new one when its buffer exists */
	if (s->state == UT_SLOT_REUSING)
		__atomic_store_n(&s->state, UT_SLOT_ACTIVE, __ATOMIC_RELEASE);
	return 0;
}

/* Map (or keep) slot @slot's buffer for @inst, @size data bytes.  NULL: none. */
static struct ut_buf_hdr *slot_buffer(uint32_t slot, uint32_t inst, uint32_t size, bool *fresh)
{
	struct slot_rt *r = &slots[slot];
	char prefix[] = "iK.buf.", name[32];
	struct ut_buf_hdr *h;

	*fresh = false;
	prefix[1] = (char)('0' + inst);
	if (r->buf[inst] && r->size[inst] == size)
		return r->buf[inst];
	if (r->buf[inst]) { /* another size now: this file goes, a new one is made */
		buf_gone(slot, inst);
		munmap(r->buf[inst], UT_BUF_HDR_SIZE + (size_t)r->size[inst]);
		ut_num_name(name, inst ? prefix : "buf.", slot, "");
		unlinkat(ut_rt.dirfd, name, 0);
		__atomic_sub_fetch(&ut_rt.ctl->buf_bytes, UT_BUF_HDR_SIZE + (uint64_t)r->size[inst],
				   __ATOMIC_RELAXED);
		r->buf[inst] = NULL;
	}
	h = ut_thread_file(inst ? prefix : "buf.", slot, UT_BUF_HDR_SIZE + (size_t)size);
	if (!h)
		return NULL;
	__atomic_add_fetch(&ut_rt.ctl->buf_bytes, UT_BUF_HDR_SIZE + (uint64_t)size,
			   __ATOMIC_RELAXED);
	r->buf[inst] = h;
	r->size[inst] = size;
	r->told[inst] = 0;
	*fresh = true;
	return h;
}

/**
 * ut_slot_buffer - @t's buffer in slot @slot, @size data bytes
 *
 * A slot's buffer is reused as it is (ut_thread_slot moved it on for this
 * thread); a new one is created.  Sets t->hdr, t->data, t->mask, t->head.
 * Return: false if the file cannot be made.
 */
bool ut_slot_buffer(struct ut_thread *t, uint32_t slot, uint32_t size)
{
	const struct ut_thread_slot *s = &ut_rt.ctl->threads[slot];
	struct ut_buf_hdr *h;
	bool fresh;

	h = slot_buffer(slot, t->inst, size, &fresh);
	if (!h)
		return false;
	t->hdr = h;
	t->data = (uint8_t *)h + UT_BUF_HDR_SIZE;
	t->mask = size - 1;
	t->limit = 0;
	t->dropped_told = 0;
	if (fresh) {
		h->version = UT_ABI_VERSION;
		h->buf_size = size;
		h->tid = s->tid;
		h->slot = slot;
		h->gen = s->gen;
		__atomic_store_n(&h->magic, UT_BUF_MAGIC, __ATOMIC_RELEASE);
		/* readers may now tell its file missing from never made */
		__atomic_or_fetch(&ut_rt.ctl->threads[slot].reserved[0], 1ull << t->inst,
				  __ATOMIC_RELEASE);
		t->head = 0;
	} else {
		t->head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
		if (h->gen != s->gen) /* a buffer the slot's last thread did not have */
			recycle_buffer(h, t->inst, slots[slot].told[t->inst], s->tid, s->gen);
		t->head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	}
	return true;
}

/*
 * A taken table emptied for the next thread: its pages given back (a hole
 * punched in the file), else its used rows cleared.
 */
static void prof_clear(struct ut_prof_hdr *p, size_t size)
{
	struct ut_prof_entry *e = (struct ut_prof_entry *)(p + 1);

	if (!madvise(p, size, MADV_REMOVE))
		return;
	for (uint32_t i = 0; i < p->nr_entries && i < UT_PROF_ENTRIES; i++)
		if (e[i].ip) {
			e[i].ip = e[i].hits = e[i].time = e[i].self = 0;
			e[i].time_sq[0] = e[i].time_sq[1] = e[i].self_sq[0] = e[i].self_sq[1] = 0;
		}
	p->overflow = 0;
}

/*
 * The profiler's table of slot @slot (*@fresh: new or emptied, its header to
 * write): one per slot, emptied for the next thread once a reader took it,
 * else its counts kept across threads.
 */
struct ut_prof_hdr *ut_slot_prof(uint32_t slot, size_t size, bool *fresh)
{
	struct slot_rt *r = &slots[slot];

	*fresh = !r->prof || r->prof_clear;
	if (r->prof && r->prof_clear)
		prof_clear(r->prof, size);
	r->prof_clear = false;
	if (!r->prof)
		r->prof = ut_thread_file("prof.", slot, size);
	r->prof_gen = __atomic_load_n(&ut_rt.ctl->threads[slot].gen, __ATOMIC_RELAXED);
	return r->prof;
}

/* @t no longer writes its buffer: remember what its LOST records told. */
static void detach(struct ut_thread *t, uint32_t slot, bool exiting)
{
	if (t->hdr && slots[slot].buf[t->inst] == t->hdr)
		slots[slot].told[t->inst] = t->dropped_told;
	t->hdr = NULL;
	t->data = NULL;
	t->limit = 0;
	t->head = 0;
	t->failed = exiting; /* events after the exit are not recorded */
}

/* Whether slot @slot has no file (its thread's buffer or table could not be made). */
static bool no_files(uint32_t slot)
{
	for (int k = 0; k < UT_MAX_INST; k++)
		if (slots[slot].buf[k])
			return false;
	return !slots[slot].prof;
}

/**
 * ut_slot_leave - this thread gives up its slot: it exits (@exiting), or
 * goes on in a new slot (buffer_size_kb changed)
 *
 * Its buffers stay readable, EXITED, until a new thread reuses them.
 */
void ut_slot_leave(bool exiting)
{
	struct ut_thread *t = &ut_self;
	uint32_t slot = t->slot, busy = t->busy;

	if (!t->has_slot || !ut_rt.ctl)
		return;
	t->busy = 1; /* a signal handler tracing meanwhile is refused */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	detach(t, slot, exiting);
	for (uint32_t k = 1; k < UT_MAX_INST; k++)
		detach(&ut_inst_self[k], slot, exiting);
	t->prof = NULL;
	t->has_slot = 0;
	lock();
	if (no_files(slot)) { /* its buffer could not be made: nothing to read, FREE again */
		slots[slot].freed = true;
		freed_stack[nr_freed++] = slot;
		unlock();
		__atomic_add_fetch(&ut_rt.ctl->threads_exited, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&ut_rt.ctl->threads[slot].state, UT_SLOT_FREE, __ATOMIC_RELEASE);
		t->busy = busy;
		return;
	}
	list_exited(slot);
	trim(ut_rt.cfg.lossless && !ut_rt.cfg.overwrite);
	unlock();
	__atomic_add_fetch(&ut_rt.ctl->threads_exited, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&ut_rt.ctl->threads[slot].state, UT_SLOT_EXITED, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = busy;
}

/* The thread exits: its slot is EXITED, its shadow stack given back if empty. */
static void exit_destructor(void *arg)
{
	struct ut_thread *t = &ut_self;

	(void)arg;
	ut_procev_exit(false);
	ut_slot_leave(true);
	if (t->home && !t->home->top && (!t->shadow || t->shadow == t->home)) {
		munmap(t->home, sizeof(struct ut_shadow) +
				       UT_SHADOW_DEPTH * sizeof(struct ut_shadow_frame));
		t->home = t->shadow = NULL;
	}
}

/*
 * The mapping of a buffer or profiler table holding @addr (libutrace/
 * shmfault.c: a write to it faulted): its start and length.  In a signal
 * handler: reads the table without the lock (a mapping being made or
 * given back meanwhile is not found; the fault is then not ours).
 */
bool ut_slot_mapping(uintptr_t addr, uintptr_t *start, size_t *len)
{
	for (uint32_t i = 0; i < UT_MAX_THREADS; i++) {
		for (int k = 0; k < UT_MAX_INST; k++) {
			uintptr_t b = (uintptr_t)slots[i].buf[k];

			if (b && addr >= b && addr - b < UT_BUF_HDR_SIZE + (size_t)slots[i].size[k]) {
				*start = b;
				*len = UT_BUF_HDR_SIZE + (size_t)slots[i].size[k];
				return true;
			}
		}
		if (slots[i].prof && addr >= (uintptr_t)slots[i].prof &&
		    addr - (uintptr_t)slots[i].prof <
			    sizeof(struct ut_prof_hdr) + (size_t)UT_PROF_ENTRIES * sizeof(struct ut_prof_entry)) {
			*start = (uintptr_t)slots[i].prof;
			*len = sizeof(struct ut_prof_hdr) +
			       (size_t)UT_PROF_ENTRIES * sizeof(struct ut_prof_entry);
			return true;
		}
	}
	return false;
}

/* At start-up: the key whose destructor tells a thread's exit. */
void ut_slots_init(void)
{
	if (!key_made && !pthread_key_create(&exit_key, exit_destructor))
		key_made = true;
}

/* After fork: the parent's slots and mappings are not the child's. */
void ut_slots_forget(void)
{
	for (uint32_t i = 0; i < UT_MAX_THREADS; i++) {
		for (int k = 0; k < UT_MAX_INST; k++)
			if (slots[i].buf[k])
				munmap(slots[i].buf[k], UT_BUF_HDR_SIZE + (size_t)slots[i].size[k]);
		if (slots[i].prof)
			munmap(slots[i].prof, sizeof(struct ut_prof_hdr) +
						      (size_t)UT_PROF_ENTRIES *
							      sizeof(struct ut_prof_entry));
		for (int k = 0; k < UT_MAX_INST; k++) { /* no memset here (-fno-builtin) */
			slots[i].buf[k] = NULL;
			slots[i].size[k] = 0;
			slots[i].told[k] = 0;
		}
		slots[i].prof = NULL;
		slots[i].prof_clear = false;
		slots[i].listed = false;
		slots[i].freed = false;
	}
	oldest_exited = newest_exited = -1;
	nr_freed = 0;
	lock_word = 0;
}

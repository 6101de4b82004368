// SPDX-License-Identifier: MIT
/*
 * The chunk queue (chunkq.h).  A block is one mapping: its header, then
 * chunks laid end to end, each behind a small item header linking the queue.
 * A block is referenced by every chunk in it not yet released, plus once by
 * the producer while it still allocates from it; the last reference sends
 * it back to the spare list (or unmaps it when there are spares enough).
 *
 * Mapping a block usually takes a third of a millisecond, but now and then
 * the kernel compacts memory to find huge pages and it takes 5 to 15 ms: a
 * producer waiting that long lets the ring it empties overflow.  So a grower
 * thread maps blocks ahead of need and the producer takes spares.
 */
#include "common/chunkq.h"
#include "common/pi_mutex.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE (2u << 20)
#define ALIGN 16u
#define MAX_SPARE 16

struct block {
	struct block *next;   /* on the spare list */
	void *map;            /* the mapping, and its length */
	size_t maplen;
	size_t size, used;    /* bytes for chunks, and taken */
	int refs;
	uint8_t data[] __attribute__((aligned(64)));
};

struct item {
	struct item *next;
	struct block *blk;
	size_t len;
	size_t pad;
};

struct ut_chunkq {
	pthread_mutex_t mu;            /* the list, the spares, nr_blocks, stop */
	pthread_cond_t grow;           /* wakes the grower */
	pthread_t grower;
	bool has_grower, stop;
	bool idle_grower;              /* the grower at SCHED_IDLE (ut_chunkq_new_idle) */
	unsigned ahead;                /* spares the grower keeps now */
	unsigned max_ahead;            /* and at most (ut_chunkq_new's) */
	struct item *head, **tail;
	struct block *cur;             /* the producer's */
	struct block *spare;
	unsigned nr_spare;
	size_t queued;                 /* bytes pushed and not yet popped */
	size_t nr_blocks, max_blocks, block_size;
};

static size_t round_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* A new block, mapped on a huge-page boundary and populated up front. */
static struct block *map_block(size_t block_size)
{
	size_t maplen = block_size + HUGE;
	uint8_t *map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	struct block *b;

	if (map == MAP_FAILED)
		return NULL;
	b = (struct block *)round_up((uintptr_t)map, HUGE);
	madvise(b, block_size, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
	if (madvise(b, block_size, MADV_POPULATE_WRITE))
#endif
		for (size_t off = 0; off < block_size; off += 4096)
			((volatile uint8_t *)b)[off] = 0;
	b->map = map;
	b->maplen = maplen;
	b->size = block_size - offsetof(struct block, data);
	return b;
}

/*
 * Called with q->mu held.  While the programs may burst, emptied blocks are
 * kept for reuse up to MAX_SPARE; while they are quiet, up to the few spares
 * wanted then.
 */
static void put_block(struct ut_chunkq *q, struct block *b)
{
	if (q->nr_spare < (q->ahead < q->max_ahead ? q->ahead : MAX_SPARE)) {
		b->next = q->spare;
		q->spare = b;
		q->nr_spare++;
	} else {
		q->nr_blocks--;
		munmap(b->map, b->maplen);
	}
}

static void unref(struct ut_chunkq *q, struct block *b)
{
	if (__atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_mutex_lock(&q->mu);
	put_block(q, b);
	pthread_mutex_unlock(&q->mu);
}

static void *grower_main(void *arg)
{
	struct ut_chunkq *q = arg;
	struct sched_param prio = {0};

	/*
	 * A normal thread by default, whatever its creator is (a real-time
	 * drainer).  Not SCHED_IDLE: populating a block holds the process's
	 * mmap lock, and a starved holder (a busy machine) held up `record`'s
	 * drainer's mmap of a new ring for seconds -- past the heartbeat that
	 * lets a lossless program wait, which then dropped nearly all of its
	 * events.  A drop-and-count reader that prefers to lose events than
	 * to compete for the CPU asks for SCHED_IDLE (ut_chunkq_new_idle).
	 * Nor is it kept to one CPU with the recorder's other threads (tried,
	 * and taken back): pinned beside a program's busy threads it could be
	 * that starved holder again, and what it spared the program (fib's
	 * first 150 ms) was not measurable.
	 */
	pthread_setschedparam(pthread_self(), q->idle_grower ? SCHED_IDLE : SCHED_OTHER, &prio);
	pthread_mutex_lock(&q->mu);
	while (!q->stop) {
		struct block *b;

		if (q->nr_spare >= q->ahead || q->nr_blocks >= q->max_blocks) {
			pthread_cond_wait(&q->grow, &q->mu);
			continue;
		}
		q->nr_blocks++; /* counted while being mapped: the cap holds */
		pthread_mutex_unlock(&q->mu);
		b = map_block(q->block_size);
		pthread_mutex_lock(&q->mu);
		if (!b) {
			q->nr_blocks--;
			break; /* out of memory: the producer maps on demand */
		}
		if (q->nr_spare >= q->ahead) {
			/* set_ahead lowered the count while this one was being mapped */
			q->nr_blocks--;
			pthread_mutex_unlock(&q->mu);
			munmap(b->map, b->maplen);
			pthread_mutex_lock(&q->mu);
			continue;
		}
		b->next = q->spare;
		q->spare = b;
		q->nr_spare++;
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

static struct block *get_block(struct ut_chunkq *q)
{
	struct block *b = NULL;

	pthread_mutex_lock(&q->mu);
	if (q->spare) {
		b = q->spare;
		q->spare = b->next;
		q->nr_spare--;
		if (q->nr_spare < q->ahead)
			pthread_cond_signal(&q->grow);
	} else if (q->nr_blocks < q->max_blocks) {
		b = map_block(q->block_size);
		q->nr_blocks += b != NULL;
	}
	pthread_mutex_unlock(&q->mu);
	if (b) {
		b->used = 0;
		b->refs = 1; /* the producer's */
	}
	return b;
}

static struct ut_chunkq *chunkq_new(size_t block_size, size_t max_bytes, unsigned ahead,
				    bool idle_grower)
{
	struct ut_chunkq *q = calloc(1, sizeof(*q));
	sigset_t all, old;

	if (!q)
		return NULL;
	q->idle_grower = idle_grower;
	/*
	 * Priority inheritance: the producer is often a real-time drainer and
	 * the consumer a normal thread; one preempted while holding the lock
	 * (a busy machine) must not hold the drainer up with it.
	 */
	ut_mutex_init_pi(&q->mu);
	pthread_cond_init(&q->grow, NULL);
	q->tail = &q->head;
	q->block_size = round_up(block_size ? block_size : HUGE, HUGE);
	q->max_blocks = max_bytes / q->block_size;
	if (!q->max_blocks)
		q->max_blocks = 1;
	q->ahead = q->max_ahead = ahead < MAX_SPARE ? ahead : MAX_SPARE;
	if (q->ahead) {
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old); /* signals are the caller's */
		q->has_grower = !pthread_create(&q->grower, NULL, grower_main, q);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	return q;
}

struct ut_chunkq *ut_chunkq_new(size_t block_size, size_t max_bytes, unsigned ahead)
{
	return chunkq_new(block_size, max_bytes, ahead, false);
}

struct ut_chunkq *ut_chunkq_new_idle(size_t block_size, size_t max_bytes, unsigned ahead)
{
	return chunkq_new(block_size, max_bytes, ahead, true);
}

void ut_chunkq_prefill(struct ut_chunkq *q, unsigned n)
{
	pthread_mutex_lock(&q->mu);
	while (q->nr_spare < n && q->nr_spare < MAX_SPARE && q->nr_blocks < q->max_blocks) {
		struct block *b = map_block(q->block_size);

		if (!b)
			break;
		b->next = q->spare;
		q->spare = b;
		q->nr_spare++;
		q->nr_blocks++;
	}
	pthread_mutex_unlock(&q->mu);
}

void ut_chunkq_set_ahead(struct ut_chunkq *q, unsigned ahead)
{
	struct block *drop = NULL, *b;

	pthread_mutex_lock(&q->mu);
	q->ahead = ahead < q->max_ahead ? ahead : q->max_ahead;
	while (q->nr_spare > q->ahead) {
		b = q->spare;
		q->spare = b->next;
		q->nr_spare--;
		q->nr_blocks--;
		b->next = drop;
		drop = b;
	}
	pthread_cond_signal(&q->grow);
	pthread_mutex_unlock(&q->mu);
	for (; drop; drop = b) {
		b = drop->next;
		munmap(drop->map, drop->maplen);
	}
}

void ut_chunkq_free(struct ut_chunkq *q)
{
	struct block *b, *next;
	size_t len;

	if (!q)
		return;
	if (q->has_grower) {
		pthread_mutex_lock(&q->mu);
		q->stop = true;
		pthread_cond_signal(&q->grow);
		pthread_mutex_unlock(&q->mu);
		pthread_join(q->grower, NULL);
	}
	for (void *c; (c = ut_chunkq_pop(q, &len));)
		ut_chunkq_release(q, c);
	if (q->cur)
		unref(q, q->cur);
	for (b = q->spare; b; b = next) {
		next = b->next;
		munmap(b->map, b->maplen);
	}
	pthread_cond_destroy(&q->grow);
	pthread_mutex_destroy(&q->mu);
	free(q);
}

void *ut_chunkq_reserve(struct ut_chunkq *q, size_t min, size_t max, size_t *len)
{
	const size_t hdr = round_up(sizeof(struct item), ALIGN);
	struct block *b = q->cur;
	struct item *it;
	size_t avail;

	if (max < min)
		max = min;
	if (!b || b->used + hdr + min > b->size) {
		if (b)
			unref(q, b);
		q->cur = b = get_block(q);
		if (!b || hdr + min > b->size)
			return NULL;
	}
	avail = b->size - b->used - hdr;
	it = (struct item *)(b->data + b->used);
	*it = (struct item){.blk = b};
	*len = max < avail ? max : avail;
	return (uint8_t *)it + hdr;
}

void ut_chunkq_push(struct ut_chunkq *q, void *chunk, size_t len)
{
	const size_t hdr = round_up(sizeof(struct item), ALIGN);
	struct item *it = (struct item *)((uint8_t *)chunk - hdr);
	struct block *b = it->blk;

	it->len = len;
	it->next = NULL;
	b->used += hdr + round_up(len, ALIGN);
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&q->mu);
	*q->tail = it;
	q->tail = &it->next;
	__atomic_store_n(&q->queued, q->queued + len, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&q->mu);
}

void *ut_chunkq_pop(struct ut_chunkq *q, size_t *len)
{
	const size_t hdr = round_up(sizeof(struct item), ALIGN);
	struct item *it;

	pthread_mutex_lock(&q->mu);
	it = q->head;
	if (it) {
		q->head = it->next;
		if (!q->head)
			q->tail = &q->head;
		__atomic_store_n(&q->queued, q->queued - it->len, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&q->mu);
	if (!it)
		return NULL;
	*len = it->len;
	return (uint8_t *)it + hdr;
}

size_t ut_chunkq_queued(const struct ut_chunkq *q)
{
	return __atomic_load_n(&q->queued, __ATOMIC_RELAXED);
}

void ut_chunkq_release(struct ut_chunkq *q, void *chunk)
{
	const size_t hdr = round_up(sizeof(struct item), ALIGN);

	unref(q, ((struct item *)((uint8_t *)chunk - hdr))->blk);
}

size_t ut_chunkq_bytes(struct ut_chunkq *q)
{
	size_t n;

	pthread_mutex_lock(&q->mu);
	n = (q->nr_blocks - q->nr_spare) * q->block_size;
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t ut_chunkq_mapped(struct ut_chunkq *q)
{
	size_t n;

	pthread_mutex_lock(&q->mu);
	n = q->nr_blocks * q->block_size;
	pthread_mutex_unlock(&q->mu);
	return n;
}

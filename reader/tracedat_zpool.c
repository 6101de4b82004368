// SPDX-License-Identifier: MIT
/*
 * The compression pool (reader/tracedat_zpool.h).
 *
 * zstd is most of what a function_graph record costs after the program:
 * ~850 MB/s here over 80 bytes of kernel layout per call, about twice the
 * writer's own encoding.  While the traced program waits for the writer (a
 * full ring in a lossless record) its core is idle; compressing on it
 * halves the write-out.
 *
 * Jobs live in a small ring, oldest first.  A job is pending, being
 * compressed (by a pool thread or by the writer), or done; the writer
 * delivers done jobs from the oldest on, so the output order is the
 * submission order whoever compressed what.  Each slot has its own zstd
 * context and output buffer: a done chunk stays valid until delivered.
 */
#include "reader/tracedat_zpool.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader/tracedat_compress.h"
#include "reader/yield.h"

enum { J_FREE, J_PENDING, J_BUSY, J_DONE };

#define ZP_JOBS 6
#define ZP_MAX_THREADS 2
#define ZP_SPARE_BUFS 8

struct zjob {
	struct td_zenc *z;
	unsigned char *plain;
	size_t n;
	const unsigned char *chunk;
	size_t zn;
	int cpu;
	bool store;
	int state;
};

struct td_zpool {
	pthread_mutex_t mu;
	pthread_cond_t work;     /* a job is pending, or quit */
	pthread_cond_t done;     /* a job is done */
	struct zjob jobs[ZP_JOBS];
	unsigned head, count;    /* the oldest job, and how many are not free */
	pthread_t th[ZP_MAX_THREADS];
	int want, nth;           /* threads asked for, and started */
	bool quit;
	struct ut_yield *yield;  /* the threads' CPU policy (td_zpool_set_yield), or NULL */
	int err;                 /* the first error of a delivery */
	td_zpool_out_fn out;
	void *ctx;
	unsigned char *spare[ZP_SPARE_BUFS];
	size_t nspare, bufsize;
};

static void compress_job(struct zjob *j)
{
	j->zn = j->store ? td_zenc_store(j->z, j->plain, j->n, &j->chunk)
			 : td_zenc_chunk(j->z, j->plain, j->n, &j->chunk);
}

static struct zjob *first_pending(struct td_zpool *p)
{
	for (unsigned i = 0; i < p->count; i++) {
		struct zjob *j = &p->jobs[(p->head + i) % ZP_JOBS];

		if (j->state == J_PENDING)
			return j;
	}
	return NULL;
}

/* Compress @j on this thread, the lock dropped meanwhile. */
static void run_job(struct td_zpool *p, struct zjob *j)
{
	j->state = J_BUSY;
	pthread_mutex_unlock(&p->mu);
	compress_job(j);
	pthread_mutex_lock(&p->mu);
	j->state = J_DONE;
	pthread_cond_broadcast(&p->done);
}

static void *pool_main(void *arg)
{
	struct td_zpool *p = arg;
	struct ut_yield_seen seen = {0};

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct zjob *j = first_pending(p);

		if (p->yield)
			ut_yield_apply(p->yield, &seen, true);
		if (j)
			run_job(p, j);
		else if (p->quit)
			break;
		else
			pthread_cond_wait(&p->work, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The buffer back to the spares (or freed). */
static void recycle(struct td_zpool *p, unsigned char *buf)
{
	if (p->nspare < ZP_SPARE_BUFS)
		p->spare[p->nspare++] = buf;
	else
		free(buf);
}

/* The oldest job, done, to the writer's callback (lock held, dropped meanwhile). */
static void deliver_head(struct td_zpool *p)
{
	struct zjob *j = &p->jobs[p->head];
	int ret;

	/* after a failed delivery, none: the file keeps its chunks whole and in order */
	pthread_mutex_unlock(&p->mu);
	ret = p->err ? p->err : p->out(p->ctx, j->cpu, j->chunk, j->zn);
	pthread_mutex_lock(&p->mu);
	if (ret && !p->err)
		p->err = ret;
	recycle(p, j->plain);
	j->plain = NULL;
	j->state = J_FREE;
	p->head = (p->head + 1) % ZP_JOBS;
	p->count--;
}

/*
 * Deliver what is done from the oldest on; with @until jobs or fewer left
 * not enough, help (compress a pending job) or wait.  Lock held.
 */
static void settle(struct td_zpool *p, unsigned until)
{
	while (p->count) {
		struct zjob *h = &p->jobs[p->head], *j;

		if (h->state == J_DONE) {
			deliver_head(p);
			continue;
		}
		if (p->count <= until)
			break;
		j = first_pending(p);
		if (j)
			run_job(p, j);
		else
			pthread_cond_wait(&p->done, &p->mu);
	}
}

int td_zpool_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	const char *env = getenv("UTRACE_COMPRESS_THREADS");

	if (env && *env)
		n = strtol(env, NULL, 10);
	return n < 0 ? 0 : n > ZP_MAX_THREADS ? ZP_MAX_THREADS : (int)n;
}

struct td_zpool *td_zpool_new(int level, int threads, td_zpool_out_fn out, void *ctx)
{
	struct td_zpool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->out = out;
	p->ctx = ctx;
	p->want = threads < 0 ? 0 : threads > ZP_MAX_THREADS ? ZP_MAX_THREADS : threads;
	for (int i = 0; i < ZP_JOBS; i++) {
		p->jobs[i].z = td_zenc_new(level);
		if (!p->jobs[i].z) {
			td_zpool_free(p);
			return NULL;
		}
	}
	return p;
}

unsigned char *td_zpool_buf(struct td_zpool *p, size_t size)
{
	unsigned char *b = NULL;

	pthread_mutex_lock(&p->mu);
	if (p->nspare && size == p->bufsize)
		b = p->spare[--p->nspare];
	pthread_mutex_unlock(&p->mu);
	if (b)
		return b;
	if (size != p->bufsize) {
		pthread_mutex_lock(&p->mu);
		while (p->nspare)
			free(p->spare[--p->nspare]);
		p->bufsize = size;
		pthread_mutex_unlock(&p->mu);
	}
	return malloc(size);
}

/*
 * The threads, started with the first chunk (a small trace never pays for
 * them), with every signal blocked: signals are the caller's business.  A
 * thread that cannot start leaves the work to the writer.
 */
static void start_threads(struct td_zpool *p)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (p->nth < p->want && !pthread_create(&p->th[p->nth], NULL, pool_main, p))
		p->nth++;
	p->want = p->nth;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int td_zpool_submit(struct td_zpool *p, int cpu, unsigned char *plain, size_t n, bool store)
{
	struct zjob *j;

	if (p->nth < p->want)
		start_threads(p);
	pthread_mutex_lock(&p->mu);
	settle(p, ZP_JOBS - 1);
	j = &p->jobs[(p->head + p->count) % ZP_JOBS];
	j->plain = plain;
	j->n = n;
	j->cpu = cpu;
	j->store = store;
	j->state = J_PENDING;
	p->count++;
	if (p->nth)
		pthread_cond_signal(&p->work);
	else
		settle(p, 0); /* no threads: compressed and delivered now */
	pthread_mutex_unlock(&p->mu);
	return p->err;
}

int td_zpool_drain(struct td_zpool *p)
{
	pthread_mutex_lock(&p->mu);
	settle(p, 0);
	pthread_mutex_unlock(&p->mu);
	return p->err;
}

void td_zpool_free(struct td_zpool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	for (int i = 0; i < ZP_JOBS; i++) {
		td_zenc_free(p->jobs[i].z);
		free(p->jobs[i].plain);
	}
	while (p->nspare)
		free(p->spare[--p->nspare]);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

void td_zpool_set_yield(struct td_zpool *p, struct ut_yield *y)
{
	pthread_mutex_lock(&p->mu);
	p->yield = y;
	pthread_mutex_unlock(&p->mu);
}

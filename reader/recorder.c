// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/control.h"
#include "common/grow.h"
#include "common/names.h"
#include "common/populate.h"
#include "common/output/output.h"
#include "common/output/graph.h"
#include "common/repeats.h"
#include "common/ring_buffer.h"
#include "common/sessname.h"
#include "common/demangle.h"
#include "common/symbols.h"
#include "common/warn.h"
#include "common/usdt_events.h"
#include "reader/backpressure.h"
#include "reader/drain.h"
#include "reader/proftake.h"
#include "reader/recorder.h"
#include "reader/record_stream.h"
#include "reader/stat.h"
#include "reader/stream.h"
#include "reader/tracedat.h"
#include "reader/yield.h"
#include "utrace/read.h"

#define SPOOL_CHUNK UT_SPOOL_CHUNK /* decode granularity: bounds memory at merge time */
#define COPYBUF (4u << 20)     /* bytes taken from one ring per pass */
#define spool_hdr ut_spool_hdr  /* reader/record_stream.h: the writer reads spills */

struct thr {
	int32_t tid;
	char comm[17];
	void *map;
	size_t maplen;
	struct ut_rb_reader rb;
	int spool;            /* fd; -1 when streaming; live modes': the recorder's one */
	struct ut_rs_thread rs; /* streaming: the writer thread's view */
	uint64_t last_head;   /* the ring's head at the previous pass */
	uint64_t queued_to;   /* streaming: the stream position past its last data in the queue */
	bool spilled;         /* streaming: its data goes to its spool (the queue refused it) */
	bool told_spill;      /* streaming: the writer was told it spilled (ut_rstream_spilled) */
	uint64_t spool_room;  /* streaming: bytes its spool may take in this drain (spool_left()) */
	/* live modes: its pieces' offsets in the one spool, whose end is *shared_end */
	uint64_t *pieces, *shared_end;
	size_t npieces, cappieces;
	uint64_t total;       /* a snapshot's: written + dropped + nested when it was read */
	bool taken;           /* a snapshot's: read and unmapped */
	uint64_t gen;         /* the slot's incarnation this thread is */
	const char *sname;    /* its session's name (the spool's) */
	uint32_t slot;
	/*
	 * Retired and spooling: its pieces were moved to the recorder's file of
	 * retired threads (spool is that file's descriptor, not its own), at
	 * roff, rlen bytes; UINT64_MAX: its own spool, all of it.
	 */
	uint64_t roff, rlen;
	/* what the "never read" warning tells of it (a bug's evidence) */
	uint64_t opened_pass, drains, drained;
	long last_drain;
};

struct sess {
	char name[64];
	int32_t pid;
	struct ut_ctl *ctl;
	struct ut_clockconv clk;
	struct thr *thr[UT_MAX_THREADS];
	uint32_t nr_thr;
	/*
	 * Threads whose slot a later thread took (docs/shm-abi.md, Recycling):
	 * their data is all taken; kept for the task names, the writer thread
	 * (which may still hold their events) and, spooling, the final merge.
	 */
	struct thr **old;
	size_t nold, capold;
	uint64_t *prof_seen;    /* profile: per slot, the gen + 1 whose table was looked at */
	uint64_t *gone_told;    /* per slot, the gen + 1 whose buffer was said to be gone */
	uint64_t *seen_ns;      /* UTRACE_TEST_OPEN_DELAY_US: per slot, when first seen */
};

/* An exited thread's profiler table, taken while the program ran (reader/proftake.c). */
struct taken_tab {
	struct ut_proftab t;
	struct sess *s;
};

/* Thread slots a session has used (the count is the writer's: bounded here). */
static uint32_t nr_slots(const struct sess *s)
{
	uint32_t n = __atomic_load_n(&s->ctl->nr_slots, __ATOMIC_ACQUIRE);

	return n < UT_MAX_THREADS ? n : UT_MAX_THREADS;
}

struct ut_recorder {
	/* pointers and 64-bit words first, then ints, then flags: no padding */
	uint64_t options;
	struct sess **sess;
	size_t nr_sess;
	uint64_t lost_total;
	uint64_t waits, wait_ns;    /* lossless: the threads' waits for room, and their length */
	uint64_t gave_up;           /* lossless: rings whose wait gave up (the recorder silent) */
	uint64_t pass_start, max_gap; /* when the last pass (or the recorder) began; the longest gap */
	uint64_t unwritten;         /* of them: not written after a write error (said apart) */
	uint64_t unread;            /* of them: written by a lossless run's thread, never taken */
	uint64_t recycled;          /* of them: exited threads' data its slot's new thread replaced */
	int32_t unread_pid, unread_tid; /* the first such thread */
	char unread_why[256];       /* its ring's state then, for a bug report */
	uint8_t *copybuf;
	size_t copybuf_ready;       /* its bytes populated (spool_drain_thr) */
	struct ut_tsc_pair start;   /* TSC/mono at start: see fix_clocks() */
	FILE *profile;              /* profile mode: where the tables go */
	struct taken_tab *ptaken;   /* profile: exited threads' tables taken so far */
	size_t nptaken, capptaken;
	uint64_t thresh_ns;
	/* live mode (extract, show, record -P): sessions of running processes */
	const int32_t *pids;        /* only these processes; NULL = all */
	size_t npids;
	/* streaming (record): written while the program runs, see reader/record_stream.h */
	struct ut_rstream *rs;      /* started before the program */
	struct ut_tracedat_writer *tw;
	struct ut_rs_thread **mark_thr; /* the pass's threads, and whether each ring was emptied */
	bool *mark_empty;
	size_t mark_n, mark_cap;
	struct ut_symtab *syms;     /* every session's symbols, loaded at the first write-out */
	struct ut_probetab *probes; /* the USDT probes of the sessions' objects (their formats) */
	uint64_t pass_ns;           /* when the pass began (the heartbeat) */
	uint64_t one_end;           /* the one spool's size */
	uint64_t spooled;           /* streaming: bytes the threads spilled to their spools */
	uint64_t spool_max;         /* and at most this much on disk at a time (0: not known yet) */
	int clock;
	int32_t profile_only;       /* -1: merged + per thread; 0: merged; TID: that thread */
	uint32_t mult, shift;       /* a first conversion, handed to the processes */
	int inst;                   /* instances/: whose buffers (0: the top level) */
	int32_t tid;                /* only this thread's buffers (0: all) */
	int zlevel;                 /* with compress: trace.dat version 7, zstd at this level */
	int nr_cpus;
	int my_cpus;                /* the CPUs the recorder may run on (0: not known yet) */
	int yield_to;               /* the one it keeps to when it yields (reader/yield.c's) */
	uint32_t alive;             /* traced threads alive at the last pass */
	int spill_err;              /* a spool write failed (full disk, file-size limit) */
	int one_fd;                 /* live modes' one spool, unlinked (-1: none yet) */
	int retired_fd;             /* spooling: retired threads' pieces, one after another */
	uint64_t passes;            /* drain passes so far (each starts one thread further) */
	bool refused;               /* a session file was refused (ut_live_strerror) */
	bool graph_time;
	unsigned names;             /* profile: UT_STAT_DEMANGLE, UT_STAT_WIDE */
	bool live;
	bool consume;               /* take what is read (producer/consumer buffers) */
	bool compress;
	bool zpace;                 /* store chunks raw while behind (record_stream.c) */
	bool streaming;             /* asked for, and the clock allows it */
	bool pass_incomplete;       /* a session or thread could not be opened this pass */
	bool test_spill;            /* UTRACE_TEST_SPILL set: tests take the spill path */
	bool test_unread;           /* UTRACE_TEST_UNREAD set: rings are not read (a bug's effect) */
	bool delay_late;            /* UTRACE_TEST_DRAIN_DELAY_LATE: slowed once a ring was beaten */
	bool beaten;                /* a ring was beaten (lossless) */
	uint64_t open_delay_ns;     /* UTRACE_TEST_OPEN_DELAY_US: rings opened late */
	bool queue_full;            /* this pass, the writer's queue refused data */
	bool final;                 /* the program is gone: what is left may spill */
	bool lossless;              /* writers wait for us: beat (reader/backpressure.h) */
	bool pressed;               /* the last pass met a writer waiting or a ring half full */
	bool spooldir_made;         /* the per-thread spools' folder exists (made at first use) */
	bool calib_open;            /* the program started before mult was measured: clock_settle() */
	char tracer[32];
	char dir[PATH_MAX / 2];
	char spooldir[PATH_MAX / 2];
	char output[PATH_MAX];
};

void ut_read_set_warn(void (*warn)(const char *msg))
{
	ut_warn_set(warn);
}

/* A warning for the user, handed to the front end (common/warn.h): the library never prints. */
#define rwarn(r, ...) ((void)(r), ut_warn(__VA_ARGS__))

void ut_recorder_set_instance(struct ut_recorder *r, int inst)
{
	r->inst = inst;
}

void ut_recorder_set_thread(struct ut_recorder *r, int32_t tid)
{
	r->tid = tid;
}

void ut_recorder_set_compress(struct ut_recorder *r, bool compress, int level)
{
	r->compress = compress;
	r->zlevel = level;
}

void ut_recorder_set_compress_pace(struct ut_recorder *r, bool pace)
{
	r->zpace = pace;
}

void ut_recorder_set_live(struct ut_recorder *r, const int32_t *pids, size_t npids, bool consume)
{
	r->live = true;
	r->consume = consume;
	r->pids = pids;
	r->npids = npids;
}

struct ut_recorder *ut_recorder_new(const char *session_dir, const char *output,
				    const char *tracer, int clock, const struct ut_opts *opts)
{
	struct ut_recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	snprintf(r->dir, sizeof(r->dir), "%s", session_dir);
	snprintf(r->output, sizeof(r->output), "%s", output);
	/* the spools' folder is made when a thread first needs one (a snapshot never does) */
	if (snprintf(r->spooldir, sizeof(r->spooldir), "%s.spool.XXXXXX", output) >=
	    (int)sizeof(r->spooldir)) {
		free(r);
		errno = ENAMETOOLONG;
		return NULL;
	}
	r->one_fd = -1;
	r->clock = clock;
	r->profile_only = -1;
	r->retired_fd = -1;
	snprintf(r->tracer, sizeof(r->tracer), "%s", tracer);
	r->options = opts ? opts->bits : 0;
	r->copybuf = malloc(COPYBUF);
	if (!r->copybuf) {
		free(r);
		return NULL;
	}
	/*
	 * The run-wide conversion's first reading, now: the setting up that
	 * follows (the writer's queue, mapped and populated) fills part of the
	 * 10 ms ut_recorder_clock_env measures over, instead of a spin after it.
	 */
	ut_tsc_pair_read(&r->start);
	r->pass_start = ut_bp_now(); /* a recorder held up before its first pass counts too */
	return r;
}

/*
 * A snapshot (show, extract, the mount's trace files, the public live
 * reader) reads each ring once, and unmaps it.
 */
static bool snapshot_mode(const struct ut_recorder *r)
{
	return r->live && !r->consume && !r->profile;
}

/*
 * The live modes (snapshots, record -P) spool every thread into one file,
 * unlinked from the start: nothing is left behind whatever ends the reader
 * (SIGKILL too), and one file is open however many threads came and went.
 * Each thread keeps the offsets of its pieces.  (record keeps a file per
 * thread: its writer thread reads a spill back as one run.)
 */
static bool one_spool_mode(const struct ut_recorder *r)
{
	return r->live && !r->profile;
}

/* The one spool, made at first use next to the output (its file system). */
static int one_spool(struct ut_recorder *r)
{
	char dir[PATH_MAX], tmpl[PATH_MAX + 16];
	char *slash;

	if (r->one_fd >= 0)
		return r->one_fd;
	memcpy(dir, r->output, sizeof(dir));
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	r->one_fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	if (r->one_fd >= 0 || snprintf(tmpl, sizeof(tmpl), "%s.spool.XXXXXX", r->output) >=
				       (int)sizeof(tmpl))
		return r->one_fd;
	/* no O_TMPFILE here: a name, gone at once */
	r->one_fd = mkostemp(tmpl, O_CLOEXEC);
	if (r->one_fd >= 0)
		unlink(tmpl);
	return r->one_fd;
}

/* The per-thread spools' folder (record, record -P), made at first use. */
static bool spooldir_ready(struct ut_recorder *r)
{
	if (!r->spooldir_made)
		r->spooldir_made = mkdtemp(r->spooldir) != NULL;
	return r->spooldir_made;
}

/* The run-wide conversion measured over 10 ms from r->start: what is left of them is waited. */
#define CALIB_NS 10000000ull

/*
 * A lossless record's program need not wait for the run-wide conversion:
 * nothing of it is converted before the recorder takes its first session,
 * and its threads wait for a recorder that has not beaten yet (a new
 * buffer's grace, libutrace/backpressure.c) rather than drop.  So the
 * program is handed a first conversion measured over 1 ms and starts; the
 * recorder finishes the 10 ms one before it opens a session (clock_settle),
 * while the program loads and runs.  A record that may drop keeps its
 * program waiting until the conversion is measured: nothing it writes may
 * sit undrained meanwhile.
 */
static bool clock_deferred(const struct ut_recorder *r)
{
	return r->lossless && r->streaming;
}

/* The run-wide conversion, if the program was started before it was measured. */
static void clock_settle(struct ut_recorder *r)
{
	if (!r->calib_open)
		return;
	r->calib_open = false;
	ut_tsc_calibrate_from(&r->start, CALIB_NS, &r->mult, &r->shift);
}

void ut_recorder_clock_env(struct ut_recorder *r, char *buf, size_t len)
{
	uint32_t mult = r->mult, shift = r->shift;

	/*
	 * From the recorder's creation (its setting up fills part of the
	 * interval); finish() refines the conversion over the whole run.
	 */
	if (!r->mult && !r->calib_open && clock_deferred(r)) {
		ut_tsc_calibrate_from(&r->start, CALIB_NS / 10, &mult, &shift);
		r->calib_open = true;
	} else if (!r->mult && !r->calib_open) {
		ut_tsc_calibrate_from(&r->start, CALIB_NS, &r->mult, &r->shift);
		mult = r->mult;
		shift = r->shift;
	}
	snprintf(buf, len, "%llu %llu %u %u", (unsigned long long)r->start.tsc,
		 (unsigned long long)r->start.mono, mult, shift);
}

/*
 * The TSC is one clock for every process (constant_tsc, nonstop_tsc), so one
 * conversion measured over the whole run -- from before the first process
 * started to after the last one ended -- orders every process's events
 * correctly and drifts less than any per-process one.  Sessions that got the
 * kernel's own conversion (perf mmap page: tsc0 == 0) keep it.
 */
static void fix_clocks(struct ut_recorder *r)
{
	struct ut_tsc_pair end;
	uint32_t mult, shift;

	clock_settle(r);
	if (!r->mult)
		return; /* no run-wide start point: the sessions' own conversions */
	ut_tsc_pair_read(&end);
	while (end.mono - r->start.mono < 20000000) {
		struct timespec ts = {0, 1000000};

		nanosleep(&ts, NULL);
		ut_tsc_pair_read(&end);
	}
	if (!ut_tsc_mult(&r->start, &end, &mult, &shift))
		return;
	for (size_t i = 0; i < r->nr_sess; i++) {
		struct ut_clockconv *c = &r->sess[i]->clk;

		if (c->clock != UT_CLOCK_LOCAL || c->tsc0 == 0)
			continue;
		c->tsc0 = r->start.tsc;
		c->mono0 = r->start.mono;
		c->mult = mult;
		c->shift = shift;
	}
}

static struct sess *find_sess(struct ut_recorder *r, const char *name)
{
	for (size_t i = 0; i < r->nr_sess; i++)
		if (!strcmp(r->sess[i]->name, name))
			return r->sess[i];
	return NULL;
}

/* A session mapping failed: remember a refusal (ut_live_strerror says why). */
static bool map_failed(struct ut_recorder *r, int ret)
{
	if (ret == -EPERM)
		r->refused = true;
	/* not ready yet: no watermark from this pass (a file, like config, is no session) */
	if (ret && ret != -EPERM && ret != -ENOTDIR)
		r->pass_incomplete = true;
	return ret != 0;
}

/*
 * Whether the session directory @name may be one of the pids asked for.
 * Sessions are named "PID.NS" by the process that made them (common/
 * control.c, list_sessions()): one of another pid is not mapped at all --
 * every pass looks at every name, and the mount's processes/PID/trace
 * shares the run-time directory with hundreds of other sessions.
 */
static bool may_be_wanted(const struct ut_recorder *r, const char *name)
{
	int32_t pid;

	if (!r->pids)
		return true;
	if (!ut_sessname_parse(name, &pid, NULL))
		return true; /* not a session's name: mapping it says why */
	for (size_t k = 0; k < r->npids; k++)
		if (r->pids[k] == pid)
			return true;
	return false;
}

static struct sess *open_sess(struct ut_recorder *r, const char *name)
{
	char path[PATH_MAX], err[256];
	struct sess *s, **n;
	struct ut_ctl *ctl;

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	/* not ready yet, or not ours: looked at again on the next pass */
	if (map_failed(r, ut_sess_map_ctl(path, false, &ctl, err, sizeof(err))))
		return NULL;
	clock_settle(r); /* before anything of it is converted */
	if (r->pids) {
		size_t k = 0;

		while (k < r->npids && r->pids[k] != ctl->pid)
			k++;
		if (k == r->npids) {
			ut_sess_unmap_ctl(ctl);
			return NULL;
		}
	}
	n = realloc(r->sess, (r->nr_sess + 1) * sizeof(struct sess *));
	if (n)
		r->sess = n;
	s = n ? calloc(1, sizeof(*s)) : NULL;
	if (!s) {
		ut_sess_unmap_ctl(ctl);
		return NULL;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->pid = ctl->pid;
	s->ctl = ctl;
	s->clk = (struct ut_clockconv){.clock = ctl->clock, .tsc0 = ctl->tsc0, .mono0 = ctl->mono0,
				       .mult = ctl->tsc_mult, .shift = ctl->tsc_shift};
	if (r->inst) { /* an instance's buffers are in its own clock */
		snprintf(path, sizeof(path), "%s/%s", r->dir, name);
		s->clk.clock = ut_inst_clock(r->dir, path, r->inst);
	}
	/*
	 * Streamed events are converted as they come: with the run-wide
	 * conversion measured before the program started (fix_clocks() would
	 * refine it at the end, too late for them).
	 */
	if (r->streaming && r->mult && s->clk.clock == UT_CLOCK_LOCAL && s->clk.tsc0)
		s->clk = (struct ut_clockconv){.clock = UT_CLOCK_LOCAL, .tsc0 = r->start.tsc,
					       .mono0 = r->start.mono, .mult = r->mult,
					       .shift = r->shift};
	r->sess[r->nr_sess++] = s;
	return s;
}

/*
 * @t's spool file, made now.  Read back through its descriptor only, so it
 * is unlinked at once: nothing is left behind, whatever ends the recorder.
 * One a thread at most; a streamed thread needs one only if it spills.
 */
static bool open_spool(struct ut_recorder *r, struct thr *t)
{
	char path[PATH_MAX];

	if (t->spool >= 0)
		return true;
	if (!spooldir_ready(r))
		return false;
	snprintf(path, sizeof(path), "%s/%s.%u.%llu", r->spooldir, t->sname, t->slot,
		 (unsigned long long)t->gen);
	t->spool = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (t->spool >= 0)
		unlink(path);
	t->rs.spool = t->spool;
	t->rs.aligned = r->rs != NULL; /* the record stream reads it back: whole pages */
	return t->spool >= 0;
}

/* The slot is being handed to a new thread: looked at again next pass. */
static bool slot_busy(struct ut_recorder *r, uint32_t state)
{
	if (state == UT_SLOT_REUSING)
		r->pass_incomplete = true;
	return !ut_slot_readable(state);
}

/*
 * Slot @slot's buffer could not be opened (@ret, @err): if the slot still
 * says it has one (its bit, readable, the same gen), the file was deleted
 * or cut short under us -- by someone else: said once, the others are
 * read on.  A thread that only profiled, or never wrote to this instance,
 * has none (`utrace profile` of a program making threads warned of each).
 */
static void buffer_gone(struct ut_recorder *r, struct sess *s, uint32_t slot, uint64_t gen,
			int ret, const char *err)
{
	const struct ut_thread_slot *ts = &s->ctl->threads[slot];

	if ((ret != -ENOENT && ret != -EINVAL) || !ut_slot_has_buf(ts, (unsigned)r->inst) ||
	    !ut_slot_readable(__atomic_load_n(&ts->state, __ATOMIC_ACQUIRE)) ||
	    __atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) != gen)
		return;
	if (!s->gone_told && !(s->gone_told = calloc(UT_MAX_THREADS, sizeof(uint64_t))))
		return;
	if (s->gone_told[slot] == gen + 1)
		return;
	s->gone_told[slot] = gen + 1;
	rwarn(r, "warning: process %d thread %d: its buffer was deleted or cut short (%s); "
		 "its events are lost, the others are read",
	      s->pid, ts->tid, ret == -ENOENT ? "no such file" : err);
}

static struct thr *open_thr(struct ut_recorder *r, struct sess *s, uint32_t slot)
{
	const struct ut_thread_slot *ts = &s->ctl->threads[slot];
	char err[256], sessdir[PATH_MAX];
	uint64_t gen = __atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE);
	struct thr *t;
	int ret;

	if (slot_busy(r, __atomic_load_n(&ts->state, __ATOMIC_ACQUIRE)))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	snprintf(sessdir, sizeof(sessdir), "%s/%s", r->dir, s->name);
	ret = ut_sess_map_thread(sessdir, r->inst, slot, true, &t->map, &t->maplen, err,
				 sizeof(err));
	if (ret)
		buffer_gone(r, s, slot, gen, ret, err);
	if (map_failed(r, ret) ||
	    ut_rb_open(&t->rb, t->map, t->maplen, !s->ctl->overwrite && (!r->live || r->consume)) ||
	    __atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) != gen) {
		/* not ready, or reused while we opened it: next pass */
		r->pass_incomplete = true;
		if (t->map)
			munmap(t->map, t->maplen);
		free(t);
		return NULL;
	}
	t->gen = gen;
	t->opened_pass = r->passes;
	t->tid = t->rb.hdr->tid;
	memcpy(t->comm, ts->comm, 16);
	t->rs = (struct ut_rs_thread){.tid = t->tid, .tgid = s->pid, .clk = &s->clk,
				      .dec = {.from = t->rb.from}};
	t->sname = s->name;
	t->slot = slot;
	t->rlen = UINT64_MAX;
	t->spool = t->rs.spool = -1;
	if (one_spool_mode(r)) { /* the live modes: the one spool */
		t->spool = one_spool(r);
		t->shared_end = &r->one_end;
	}
	/* streaming: a spool is made only when the queue refuses the thread's data */
	if (one_spool_mode(r) ? t->spool < 0 : !r->rs && !open_spool(r, t)) {
		munmap(t->map, t->maplen);
		free(t);
		return NULL;
	}
	return t;
}

/*
 * Append @len bytes of ring data that start at stream position @start, given
 * as up to two segments, to the spool as SPOOL_CHUNK pieces, in one writev.
 */
static long spool_write(struct thr *t, uint64_t start, uint64_t lost, const uint8_t *seg[2],
			const size_t seglen[2])
{
	enum { MAXIOV = 4 * 64 };
	static const uint8_t zeros[UT_SPOOL_ALIGN];
	struct spool_hdr hdrs[MAXIOV / 4];
	struct iovec iov[MAXIOV];
	size_t len = seglen[0] + seglen[1], off = 0;
	size_t chunk = t->rs.aligned ? UT_SPOOL_BIG : SPOOL_CHUNK;
	int niov = 0, nh = 0;
	ssize_t want = 0;

	while (off < len || (lost && !len)) {
		/*
		 * Pieces end on page boundaries (records never straddle one;
		 * data taken from mid-page, an idle thread's partial page, must
		 * not be cut inside a record).
		 */
		size_t cap = chunk - (size_t)((start + off) & (UT_PAGE_SIZE - 1));
		size_t n = len - off > cap ? cap : len - off;
		size_t hlen = ut_spool_hdr_bytes(t->rs.aligned);
		size_t dlen = ut_spool_data_bytes(t->rs.aligned, n);
		struct spool_hdr *h;

		if (t->rs.aligned && (uint64_t)want + hlen + dlen > t->spool_room)
			break; /* within the disk the spools may take: whole pieces */
		h = &hdrs[nh++];
		*h = (struct spool_hdr){.start = start + off, .lost = off ? 0 : lost,
					.len = (uint32_t)n};
		iov[niov++] = (struct iovec){h, sizeof(*h)};
		if (hlen > sizeof(*h)) /* the header's block, then the data */
			iov[niov++] = (struct iovec){(void *)zeros, hlen - sizeof(*h)};
		/* the piece may straddle the end of the first segment */
		for (size_t done = 0; done < n;) {
			size_t pos = off + done, s = pos < seglen[0] ? 0 : 1;
			size_t in = s ? pos - seglen[0] : pos;
			size_t take = seglen[s] - in < n - done ? seglen[s] - in : n - done;

			iov[niov++] = (struct iovec){(void *)(seg[s] + in), take};
			done += take;
		}
		if (dlen > n) /* a partial page: padded */
			iov[niov++] = (struct iovec){(void *)zeros, dlen - n};
		want += (ssize_t)(hlen + dlen);
		off += n;
		if (!n || niov + 5 > MAXIOV || nh == MAXIOV / 4)
			break;
	}
	if (!nh)
		return 0; /* no room: the data waits in the ring */
	if (t->shared_end) { /* the one spool: at its end, each piece's offset kept */
		uint64_t at = *t->shared_end;

		while (t->npieces + (size_t)nh > t->cappieces)
			if (ut_grow(&t->pieces, &t->cappieces, sizeof(*t->pieces), 64))
				return -ENOMEM;
		if (pwritev(t->spool, iov, niov, (off_t)at) != want)
			return -EIO;
		for (int i = 0; i < nh; i++) {
			t->pieces[t->npieces++] = at;
			at += sizeof(hdrs[i]) + hdrs[i].len;
		}
		*t->shared_end = at;
		return (long)off;
	}
	/* a streamed spool at its end as the writer knows it: a failed write leaves nothing */
	if ((t->rs.aligned ? pwritev(t->spool, iov, niov, (off_t)t->rs.spool_end)
			   : writev(t->spool, iov, niov)) != want)
		return -EIO;
	/* the writer thread reads it back from now on (reader/record_stream.c) */
	__atomic_store_n(&t->rs.spool_end, t->rs.spool_end + (uint64_t)want, __ATOMIC_RELEASE);
	if (t->rs.aligned && t->spool_room != UINT64_MAX)
		t->spool_room -= (uint64_t)want; /* the drain's next put: what is left */
	return (long)off;
}

/* --- the spool sink (reader/drain.h): a thread's data into its spool file --- */

struct spool_sink {
	struct ut_drain_sink sink;
	struct thr *t;
	uint8_t *buf;         /* the recorder's copy buffer */
	size_t cap;
};

static long spool_put(struct ut_drain_sink *sink, uint64_t start, uint64_t lost,
		      const uint8_t *seg[2], const size_t seglen[2])
{
	long done = spool_write(((struct spool_sink *)sink)->t, start, lost, seg, seglen);

	return done < 0 ? -EIO : done;
}

static uint8_t *spool_reserve(struct ut_drain_sink *sink, size_t min, size_t max, size_t *got)
{
	struct spool_sink *k = (struct spool_sink *)sink;

	*got = k->cap;
	return k->buf;
}

static int spool_commit(struct ut_drain_sink *sink, uint8_t *buf, uint64_t start, uint64_t lost,
			size_t len)
{
	struct thr *t = ((struct spool_sink *)sink)->t;
	const uint8_t *seg[2] = {buf, NULL};
	size_t seglen[2] = {len, 0};
	long n = spool_write(t, start, lost, seg, seglen);

	/* spool_write takes at most 64 pieces: write the rest too */
	for (size_t off = n > 0 ? (size_t)n : len; n > 0 && off < len; off += (size_t)n) {
		seg[0] = buf + off;
		seglen[0] = len - off;
		n = spool_write(t, start + off, 0, seg, seglen);
	}
	return n < 0 ? -EIO : 0;
}

static long drain_thr(struct thr *t, bool all, uint8_t *buf, size_t cap)
{
	struct spool_sink k = {.sink = {.put = spool_put, .reserve = spool_reserve,
					.commit = spool_commit},
			       .t = t, .buf = buf, .cap = cap};

	/* Zero copy when the producer will not touch unread data. */
	return ut_drain(&t->rb, t->rb.consume && t->rb.tail >= t->rb.from, all, &k.sink);
}

/*
 * Lossless recording: after each ring's drain, the heartbeat that lets its
 * writer wait for us (not after a failed drain: a recorder that cannot write
 * must not hold the program up), and the writer woken if it sleeps.
 */
static void beat_thr(struct ut_recorder *r, struct thr *t, long drained)
{
	if (r->lossless && t->rb.consume && drained >= 0) {
		r->pressed |= ut_bp_beat(&t->rb, r->pass_ns);
		r->beaten = true;
	}
}

/* --- streaming: the drainer's side (reader/record_stream.h) --------------- */

/* The clocks whose stamps are nanoseconds of a clock read here: a mark needs "now". */
static bool clock_streams(int clock)
{
	switch (clock) {
	case UT_CLOCK_LOCAL:
	case UT_CLOCK_GLOBAL:
	case UT_CLOCK_PERF:
	case UT_CLOCK_MONO:
	case UT_CLOCK_MONO_RAW:
	case UT_CLOCK_BOOT:
		return true;
	default:
		return false;
	}
}

/* Now, in a session's trace clock. */
static uint64_t clock_now(const struct ut_clockconv *c)
{
	struct timespec ts;
	clockid_t id = c->clock == UT_CLOCK_MONO_RAW ? CLOCK_MONOTONIC_RAW
		       : c->clock == UT_CLOCK_BOOT   ? CLOCK_BOOTTIME
						     : CLOCK_MONOTONIC;

	if (c->clock == UT_CLOCK_LOCAL)
		return ut_clock_to_trace(c, ut_tsc_now());
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The earliest now of the sessions (each converts its own way). */
static uint64_t pass_now(const struct ut_recorder *r)
{
	uint64_t now = UINT64_MAX;

	for (size_t i = 0; i < r->nr_sess; i++) {
		uint64_t t = clock_now(&r->sess[i]->clk);

		if (t < now)
			now = t;
	}
	return r->nr_sess ? now : 0; /* no session yet: no time to speak of */
}

/* The queue's sink, noting when the queue refused data (it was full). */
struct full_sink {
	struct ut_drain_qsink q;
	uint8_t *(*reserve)(struct ut_drain_sink *k, size_t min, size_t max, size_t *got);
	bool full;
};

static uint8_t *full_reserve(struct ut_drain_sink *k, size_t min, size_t max, size_t *got)
{
	struct full_sink *f = (struct full_sink *)(void *)k;
	uint8_t *p = f->reserve(k, min, max, got);

	f->full |= !p;
	return p;
}

/*
 * How much disk the spools may take while a lossless program runs (what
 * the writer has read is given back as it goes): a quarter of the free
 * space where they are, at most 4 GiB (test hook UTRACE_TEST_SPOOL_MAX,
 * in bytes).
 */
#define SPOOL_MAX ((uint64_t)4 << 30)

static uint64_t spool_max(struct ut_recorder *r)
{
	const char *env = getenv("UTRACE_TEST_SPOOL_MAX");
	struct statvfs fs;

	if (r->spool_max)
		return r->spool_max;
	r->spool_max = SPOOL_MAX;
	if (env && *env)
		r->spool_max = strtoull(env, NULL, 10) + 1;
	else if (spooldir_ready(r) && !statvfs(r->spooldir, &fs) &&
		 (uint64_t)fs.f_bavail * fs.f_frsize / 4 < SPOOL_MAX)
		r->spool_max = (uint64_t)fs.f_bavail * fs.f_frsize / 4 + 1;
	ut_rstream_spool_bound(r->rs, r->spool_max);
	return r->spool_max;
}

/*
 * What more the spools may take.  A thread the full queue refused spills
 * (the writer is behind): its data goes on to its spool, which the writer
 * reads back as it goes, so the program runs at its own pace, not the
 * writer's (three to four times slower per function_graph call than the
 * program's hook, zstd most of it), and the write-out goes on after it.
 * Not past spool_max() bytes on disk while a lossless program runs: its
 * threads' data then waits in their rings, and they wait for room
 * (back-pressure).  No bound at the end, nor with -O drop.
 */
static uint64_t spool_left(struct ut_recorder *r)
{
	uint64_t used = r->spooled - ut_rstream_spool_freed(r->rs), max;

	if (!r->lossless || r->final)
		return UINT64_MAX;
	max = spool_max(r);
	return used < max ? max - used : 0;
}


/*
 * @t's ring into the writer's queue, and into the pass's mark with whether
 * it was emptied.  Once the queue refuses data (the writer is behind), the
 * thread spills: the rest of its data goes to its spool file, which the
 * writer reads after the queue at the end -- nothing lost, written late.
 */
static long stream_drain_thr(struct ut_recorder *r, struct thr *t, bool all)
{
	uint64_t head = __atomic_load_n(&t->rb.hdr->head, __ATOMIC_ACQUIRE);
	struct full_sink k;
	long n = 0, m;

	if (r->test_unread)
		return 0; /* the test hook: what a recorder that misses a ring would do */
	if (r->mark_n == r->mark_cap) { /* two arrays of one length */
		size_t cap = r->mark_cap, ecap = cap;

		if (ut_grow(&r->mark_thr, &cap, sizeof(struct ut_rs_thread *), 64) ||
		    ut_grow(&r->mark_empty, &ecap, sizeof(*r->mark_empty), 64))
			return -ENOMEM;
		r->mark_cap = cap;
	}
	/* an idle thread's partial page is taken too: the watermark must not wait for it */
	if (head == t->last_head)
		all = true;
	t->last_head = head;
	if (r->test_spill) /* the test hook: every thread spills from the start */
		t->spilled = open_spool(r, t);
	else if (t->spilled && !r->final &&
		 __atomic_load_n(&t->rs.spool_off, __ATOMIC_ACQUIRE) == t->rs.spool_end)
		t->spilled = false; /* the writer read it all: the queue again, if it has room */
	if (!t->spilled) {
		ut_rstream_sink(r->rs, &t->rs, &k.q);
		k.reserve = k.q.sink.reserve;
		k.q.sink.reserve = full_reserve;
		k.full = false;
		n = ut_drain(&t->rb, t->rb.consume && t->rb.tail >= t->rb.from, all, &k.q.sink);
		r->queue_full |= k.full;
		if (n > 0)
			t->queued_to = t->rb.tail;
		if (k.full && spool_left(r) && open_spool(r, t)) {
			/* the writer reads the spool once it has the chunks before it */
			t->rs.spill_from = t->queued_to;
			t->spilled = true;
		}
	}
	if (t->spilled && !t->told_spill) /* the writer learns of it once */
		t->told_spill = !ut_rstream_spilled(r->rs, &t->rs);
	if (t->spilled)
		t->spool_room = spool_left(r); /* what does not fit waits in the ring */
	if (t->spilled && !t->spool_room)
		r->queue_full = true; /* the backlog's bound: the writer needs the CPU */
	else if (t->spilled) {
		uint64_t end = t->rs.spool_end;

		m = drain_thr(t, all, r->copybuf, COPYBUF);
		if (m < 0 && !r->spill_err)
			r->spill_err = errno ? -errno : (int)m; /* the spool's own write error */
		n = n < 0 ? n : m < 0 ? m : n + m;
		r->spooled += t->rs.spool_end - end;
	}
	r->mark_thr[r->mark_n] = &t->rs;
	/* a spilled thread's: once the writer read its spool as far as the mark says */
	r->mark_empty[r->mark_n++] = n >= 0 &&
				     t->rb.tail >= __atomic_load_n(&t->rb.hdr->head, __ATOMIC_ACQUIRE);
	return n;
}

/*
 * A snapshot's ring, read: what its header counted then, and the ring
 * unmapped -- a reader holds one ring at a time, however many threads
 * came and went.
 */
static void snap_take(struct thr *t)
{
	const struct ut_buf_hdr *h = t->rb.hdr;

	t->total = h->written + h->dropped + h->nested;
	munmap(t->map, t->maplen);
	t->map = NULL;
	t->rb.hdr = NULL;
	t->rb.data = NULL;
	t->taken = true;
}

/*
 * Spooling (record -P, show, extract): a retired thread's spool moves into
 * one file of retired threads, read back with pread at its place, so the
 * files a recorder holds open follow the threads alive, not the threads of
 * a long run.  Kept as it is if the move fails.
 */
static void spool_retire(struct ut_recorder *r, struct thr *t)
{
	char path[PATH_MAX];
	struct stat st;
	off_t in = 0, out;
	uint64_t len;

	if (t->spool < 0 || fstat(t->spool, &st) || !spooldir_ready(r))
		return;
	if (r->retired_fd < 0) {
		snprintf(path, sizeof(path), "%s/retired", r->spooldir);
		r->retired_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (r->retired_fd < 0)
			return;
		unlink(path);
	}
	out = lseek(r->retired_fd, 0, SEEK_END);
	len = (uint64_t)st.st_size;
	while (out >= 0 && (uint64_t)in < len) {
		ssize_t n = copy_file_range(t->spool, &in, r->retired_fd, NULL, len - (uint64_t)in, 0);

		if (n <= 0) {
			if (ftruncate(r->retired_fd, out)) /* keep what is whole */
				r->spill_err = -EIO;
			return;
		}
	}
	if (out < 0)
		return;
	close(t->spool);
	t->spool = r->retired_fd;
	t->rs.spool = -1;
	t->roff = (uint64_t)out;
	t->rlen = len;
}

/* A ring's waits for room (back-pressure), into the totals, and whether one gave up. */
static void count_waits(struct ut_recorder *r, const struct ut_buf_hdr *h)
{
	r->waits += __atomic_load_n(&h->waits, __ATOMIC_RELAXED);
	r->wait_ns += __atomic_load_n(&h->wait_ns, __ATOMIC_RELAXED);
	r->gave_up += __atomic_load_n(&h->stuck_tail, __ATOMIC_RELAXED) != 0;
}

/*
 * Slot @j's thread gave its slot to a new thread: everything it wrote was
 * taken (the runtime reuses a slot only then, or counts what it gave up), so
 * its ring is let go, and its spool too unless the writer reads it later.
 */
static int retire_thr(struct ut_recorder *r, struct sess *s, uint32_t j)
{
	struct thr *t = s->thr[j];

	if (s->nold == s->capold && ut_grow(&s->old, &s->capold, sizeof(struct thr *), 64))
		return -ENOMEM;
	s->old[s->nold++] = t;
	s->thr[j] = NULL;
	__atomic_store_n(&t->rs.retired, 1, __ATOMIC_RELEASE);
	if (t->map && !t->taken)
		count_waits(r, t->rb.hdr);
	if (t->map) /* a snapshot's may be let go already (snap_take) */
		munmap(t->map, t->maplen);
	t->map = NULL;
	/*
	 * Spooling: its spool joins the retired threads' file.  Not the one
	 * spool of the live modes (its pieces stay where they are), nor a
	 * streamed thread's (if it spilled, the writer closes it once read).
	 */
	if (!t->shared_end && !r->rs)
		spool_retire(r, t);
	return 0;
}

/*
 * Where a drain of slot @ts stops: at @head (read before the gen that
 * proved it ours) when the thread has exited -- only an exited thread's
 * slot is reused, and past that head may come the next thread's records.
 * A live thread's ring is taken up to its newest page: capped at a head
 * read before, a busy ring would be lapped past the cap while it is
 * copied, and a snapshot would keep nothing (the kernel's `trace` shows
 * the newest events).  The window left: a thread that exits and whose
 * slot is reused during the copy (microseconds, and only in the modes
 * that overwrite) may lend its tid to the newcomer's first records.
 */
static uint64_t stop_at(const struct ut_thread_slot *ts, uint64_t head)
{
	return __atomic_load_n(&ts->state, __ATOMIC_ACQUIRE) == UT_SLOT_ACTIVE ? 0 : head;
}

/*
 * Test hook (UTRACE_TEST_OPEN_DELAY_US, 10 s at most): a ring is opened
 * only that long after its slot was first seen, while its process runs, so
 * that its thread waits on a ring no recorder has beaten yet
 * (tests/record/425).
 */
static bool open_held(const struct ut_recorder *r, struct sess *s, uint32_t j)
{
	uint64_t now = ut_bp_now();

	if (!__atomic_load_n(&s->ctl->alive, __ATOMIC_ACQUIRE))
		return false;
	if (!s->seen_ns && !(s->seen_ns = calloc(UT_MAX_THREADS, sizeof(uint64_t))))
		return false;
	if (!s->seen_ns[j])
		s->seen_ns[j] = now;
	return now - s->seen_ns[j] < r->open_delay_ns;
}

/*
 * Slot @j before its drain: its head now, then its gen (the runtime stores
 * a new gen before the new thread's first record), so data up to that head
 * is the incarnation we know.  A new one: the old thread retired, the new
 * one opened.  Returns the thread to drain (with rb.stop set), or NULL.
 */
static struct thr *current_thr(struct ut_recorder *r, struct sess *s, uint32_t j)
{
	const struct ut_thread_slot *ts = &s->ctl->threads[j];
	struct thr *t = s->thr[j];
	uint64_t head;

	if (t && t->taken)
		return NULL; /* a snapshot's ring, read once and let go */
	if (t) {
		head = __atomic_load_n(&t->rb.hdr->head, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) == t->gen) {
			t->rb.stop = stop_at(ts, head);
			return t;
		}
		if (retire_thr(r, s, j))
			return NULL;
	}
	if (r->tid && ts->tid != r->tid)
		return NULL; /* a thread's file: only its buffers */
	if (r->open_delay_ns && open_held(r, s, j))
		return NULL;
	t = s->thr[j] = open_thr(r, s, j);
	if (!t)
		return NULL;
	if (j >= s->nr_thr)
		s->nr_thr = j + 1;
	/* checked once more after the head, as above */
	head = __atomic_load_n(&t->rb.hdr->head, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) != t->gen) {
		r->pass_incomplete = true;
		return NULL; /* retired at the next pass */
	}
	t->rb.stop = stop_at(ts, head);
	return t;
}

/*
 * Spooling: @t's ring into its spool.  An idle ring's partial page (an
 * exited thread's last one) is taken too, so the slot's data is out and the
 * runtime can reuse it for a new thread (docs/shm-abi.md, Recycling).
 */
static long spool_drain_thr(struct ut_recorder *r, const struct sess *s, uint32_t j,
			    struct thr *t, bool all)
{
	uint64_t head = __atomic_load_n(&t->rb.hdr->head, __ATOMIC_ACQUIRE);

	if (head == t->last_head ||
	    __atomic_load_n(&s->ctl->threads[j].state, __ATOMIC_ACQUIRE) == UT_SLOT_EXITED)
		all = true;
	t->last_head = head;
	/*
	 * A ring that is overwritten (a snapshot's, `show`) is copied into
	 * copybuf while its writer laps it, and what the writer reached
	 * meanwhile is torn: copybuf's pages are made present first, so that
	 * the copy does not take a fault on each (1-2 us here) while it races
	 * the writer (reader/drain.c retries one that kept little).
	 */
	if (!t->rb.consume && r->copybuf_ready < t->rb.size && r->copybuf_ready < COPYBUF) {
		r->copybuf_ready = t->rb.size < COPYBUF ? (size_t)t->rb.size : COPYBUF;
		ut_populate(r->copybuf, r->copybuf_ready);
	}
	return drain_thr(t, all, r->copybuf, COPYBUF);
}

static void find_sessions(struct ut_recorder *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] != '.' && may_be_wanted(r, de->d_name) &&
		    !find_sess(r, de->d_name))
			open_sess(r, de->d_name);
	}
	if (d)
		closedir(d);
}

/*
 * Profile: the tables of threads that exited since the last pass, copied
 * and marked taken, so the runtime empties them for new threads (one table
 * per thread alive, not per thread of the run).
 */
static void take_tables(struct ut_recorder *r)
{
	char path[PATH_MAX], err[256];

	for (size_t i = 0; i < r->nr_sess; i++) {
		struct sess *s = r->sess[i];

		if (!s->prof_seen && !(s->prof_seen = calloc(UT_MAX_THREADS, sizeof(uint64_t))))
			return;
		for (uint32_t j = 0; j < nr_slots(s); j++) {
			struct taken_tab *tt;
			int ret;

			if (r->nptaken == r->capptaken &&
			    ut_grow(&r->ptaken, &r->capptaken, sizeof(*r->ptaken), 64))
				return;
			tt = &r->ptaken[r->nptaken];
			snprintf(path, sizeof(path), "%s/%s/prof.%u", r->dir, s->name, j);
			ret = ut_prof_take(path, &s->ctl->threads[j], j, &s->prof_seen[j], &tt->t, err,
					   sizeof(err));
			if (ret == 1) {
				tt->s = s;
				r->nptaken++;
			} else if (ret < 0) {
				map_failed(r, ret);
			}
		}
	}
}

/*
 * One pass.  Live passes take whole pages only; the final pass (@all) takes
 * everything.  New sessions are looked for every time: a process's first
 * buffer fills in a millisecond or two at full speed.
 */
static long drain_pass(struct ut_recorder *r, bool all)
{
	long total = 0;
	uint64_t now;

	r->pass_incomplete = false;
	r->mark_n = 0;
	r->alive = 0;
	now = ut_bp_now();
	if (now - r->pass_start > r->max_gap)
		r->max_gap = now - r->pass_start;
	r->pass_start = now;
	find_sessions(r);
	if (r->profile && !r->live)
		take_tables(r);
	now = r->rs ? pass_now(r) : 0;
	for (size_t i = 0; i < r->nr_sess; i++) {
		struct sess *s = r->sess[i];
		uint32_t nr = nr_slots(s), first = nr ? (uint32_t)(r->passes % nr) : 0;

		/*
		 * Each pass starts one thread further: when the writer's queue
		 * is full, the room it frees goes to the first rings drained,
		 * and a fixed order starved the last ones.
		 */
		for (uint32_t k = 0; k < nr; k++) {
			uint32_t j = first + k < nr ? first + k : first + k - nr;
			struct thr *t = current_thr(r, s, j);
			long n;

			if (!t)
				continue;
			n = r->rs ? stream_drain_thr(r, t, all) : spool_drain_thr(r, s, j, t, all);
			t->drains++;
			t->last_drain = n;
			t->drained += n > 0 ? (uint64_t)n : 0;
			if (snapshot_mode(r))
				snap_take(t);
			beat_thr(r, t, n);
			if (n > 0)
				total += n;
			r->alive += __atomic_load_n(&s->ctl->threads[j].state, __ATOMIC_ACQUIRE) ==
				    UT_SLOT_ACTIVE;
		}
	}
	if (r->rs) /* a full queue refuses the mark: the next pass gives one */
		ut_rstream_mark(r->rs, now, r->mark_thr, r->mark_empty, r->mark_n,
				!r->pass_incomplete);
	r->passes++;
	return total;
}

/* --- merge ------------------------------------------------------------- */

/*
 * A thread's spooled data as a source of the merge.  It is read a page at
 * a time (pread: no file of its own, no buffered stream), so a source holds
 * at most a page and its events, and nothing once it ended: the merge of
 * many threads' rings costs little more per thread than its place in the
 * merge.
 */
struct cursor {
	struct ut_stream_src src; /* first: the stream hands it back */
	struct sess *s;
	struct thr *t;
	int fd;
	uint64_t off, end;    /* the next spool byte to read, and where its data ends */
	const uint64_t *pieces; /* the one spool: the thread's pieces' offsets (else NULL) */
	size_t npieces, k;
	uint64_t piece_pos;   /* the ring position of the piece's next byte */
	size_t piece_left;    /* bytes of the piece not read yet */
	struct ut_event *ev;  /* decoded events of the current page */
	size_t nr, pos, cap;
	uint64_t pending_lost;
	uint8_t *buf;
	size_t bufcap;
	struct ut_rb_decoder dec;
};

static int collect(void *ctx, const struct ut_event *ev)
{
	struct cursor *c = ctx;

	if (c->nr == c->cap && ut_grow(&c->ev, &c->cap, sizeof(*c->ev), 4))
		return -1;
	c->ev[c->nr++] = *ev;
	return 0;
}

/* A cursor that ended gives its memory back. */
static void cursor_release(struct cursor *c)
{
	free(c->ev);
	free(c->buf);
	c->ev = NULL;
	c->buf = NULL;
	c->cap = c->bufcap = c->nr = c->pos = 0;
}

/* The next piece's header.  False at the end (or at a malformed piece). */
static bool cursor_piece(struct cursor *c)
{
	struct spool_hdr h;

	if (c->pieces) { /* the one spool: the thread's next piece, wherever it is */
		if (c->k == c->npieces)
			return false;
		c->off = c->pieces[c->k++];
		c->end = c->off + sizeof(h) + SPOOL_CHUNK;
	}
	if (c->end - c->off < sizeof(h) ||
	    pread(c->fd, &h, sizeof(h), (off_t)c->off) != (ssize_t)sizeof(h) ||
	    h.len > SPOOL_CHUNK || h.len > c->end - c->off - sizeof(h))
		return false;
	c->off += sizeof(h);
	c->pending_lost += h.lost;
	c->piece_pos = h.start;
	c->piece_left = h.len;
	return true;
}

/* Refill: decode the spool's next page (a page decodes alone). Returns false at the end. */
static bool cursor_fill(struct cursor *c)
{
	while (c->pos >= c->nr) {
		size_t n;

		c->nr = c->pos = 0;
		if (!c->piece_left && !cursor_piece(c))
			return false;
		/* to the end of the page (the piece's first may start inside one) */
		n = UT_PAGE_SIZE - (size_t)(c->piece_pos & (UT_PAGE_SIZE - 1));
		if (n > c->piece_left)
			n = c->piece_left;
		if (!n)
			continue; /* losses only */
		if (n > c->bufcap) {
			uint8_t *b = realloc(c->buf, n);

			if (!b)
				return false;
			c->buf = b;
			c->bufcap = n;
		}
		if (pread(c->fd, c->buf, n, (off_t)c->off) != (ssize_t)n)
			return false;
		c->off += n;
		c->piece_left -= n;
		ut_rb_decode(&c->dec, c->buf, n, c->piece_pos, c->t->tid, c->s->pid, &c->s->clk,
			     collect, c);
		c->piece_pos += n;
	}
	return true;
}

/* The stream's refill() (reader/stream.h): the next page's events. */
static bool cursor_refill(struct ut_stream_src *src)
{
	struct cursor *c = (struct cursor *)src;

	c->pos = c->nr;
	if (!cursor_fill(c)) {
		cursor_release(c);
		return false;
	}
	src->cur = &c->ev[c->pos];
	src->end = &c->ev[c->nr];
	src->lost += c->pending_lost;
	c->pending_lost = 0;
	return true;
}

/* Whether session @s wrote anything: a thread buffer was found in it. */
static bool sess_wrote(const struct sess *s)
{
	if (s->nold)
		return true;
	for (uint32_t j = 0; j < s->nr_thr; j++)
		if (s->thr[j])
			return true;
	return false;
}

/*
 * Symbols of every object a session that wrote events loaded (a process
 * with no event adds none: a build's hundreds of `sh` under LD_PRELOAD
 * cost no symbols in the file).  The profiler's tables are not buffers: its
 * sessions all count.
 */
static struct ut_symtab *load_symbols(struct ut_recorder *r)
{
	char (*dirs)[PATH_MAX] = calloc(r->nr_sess + 1, PATH_MAX);
	const char **v = calloc(r->nr_sess + 1, sizeof(*v));
	struct ut_symtab *st = NULL;
	size_t n = 0;

	if (dirs && v) {
		for (size_t i = 0; i < r->nr_sess; i++) {
			if (!r->profile && !sess_wrote(r->sess[i]))
				continue;
			snprintf(dirs[n], PATH_MAX, "%s/%s", r->dir, r->sess[i]->name);
			v[n] = dirs[n];
			n++;
		}
		st = ut_live_symbols(v, n);
	}
	free(dirs);
	free(v);
	return st;
}

/* The USDT probes of the objects the sessions that wrote loaded (their events' names). */
static struct ut_probetab *load_probes(struct ut_recorder *r)
{
	char (*dirs)[PATH_MAX] = calloc(r->nr_sess + 1, PATH_MAX);
	const char **v = calloc(r->nr_sess + 1, sizeof(*v));
	struct ut_probetab *t = NULL;
	size_t n = 0;

	if (dirs && v) {
		for (size_t i = 0; i < r->nr_sess; i++) {
			if (!sess_wrote(r->sess[i]))
				continue;
			snprintf(dirs[n], PATH_MAX, "%s/%s", r->dir, r->sess[i]->name);
			v[n] = dirs[n];
			n++;
		}
		t = ut_live_probes(v, n);
	}
	free(dirs);
	free(v);
	return t;
}

static char *clock_line(int clock)
{
	static char buf[256];
	size_t n = 0;

	for (int i = 0; i < UT_CLOCK_NR; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, i == clock ? "%s[%s]" : "%s%s",
				      i ? " " : "", ut_clock_names[i]);
	return buf;
}

/*
 * One event into the sink; with func-no-repeats (record -O, the mount's
 * options/) folded as the kernel's function tracer folds when recording,
 * so the file holds its func_repeats events (common/repeats.h).
 */
static int put_event(struct ut_write_sink *w, struct ut_repeats *fold, bool folding,
		     const struct ut_event *ev)
{
	struct ut_event rep;
	int ret;

	switch (folding ? ut_repeats_fold(fold, ev, &rep) : UT_REPEATS_PASS) {
	case UT_REPEATS_DROP:
		return 0;
	case UT_REPEATS_FLUSH:
		ret = w->event(w, &rep);
		if (ret)
			return ret;
		break;
	default:
		break;
	}
	return w->event(w, ev);
}

/*
 * The threads' spooled events into @w, merged in time order (reader/stream.c).
 * Losses go in where the stream tells them and count towards the total.
 */
static int merge_out(struct ut_recorder *r, struct ut_write_sink *w, struct cursor *cur,
		     size_t ncur, int nr_cpus)
{
	bool folding = r->options >> UT_OPT_FUNC_NO_REPEATS & 1;
	struct ut_stream *st = ut_stream_new(NULL);
	struct ut_repeats fold = {0};
	struct ut_stream_item it;
	int ret = 0;

	for (size_t i = 0; st && i < ncur; i++) {
		cur[i].src = (struct ut_stream_src){.refill = cursor_refill};
		if (ut_stream_add(st, &cur[i].src))
			ret = -ENOMEM;
	}
	if (!st || ret) {
		ut_stream_free(st);
		return -ENOMEM;
	}
	while (!ret && ut_stream_next(st, &it) == 1) {
		struct cursor *c = (struct cursor *)it.src;
		struct ut_event ev;

		if (it.lost) {
			/* a LOST record, or overwritten in a flight-recorder buffer before ev */
			w->lost(w, it.cpu < (uint32_t)nr_cpus ? it.cpu : 0, it.lost);
			r->lost_total += it.lost;
			c->t->rs.lost_in_stream += it.lost;
		}
		if (!it.ev)
			continue;
		c->t->rs.read++;
		if (it.ev->cpu < (uint32_t)nr_cpus) {
			ret = put_event(w, &fold, folding, it.ev);
			continue;
		}
		/* A CPU the file has no stream for (rseq unregistered: -1): CPU 0. */
		ev = *it.ev;
		ev.cpu = 0;
		ret = put_event(w, &fold, folding, &ev);
	}
	ut_repeats_free(&fold);
	ut_stream_free(st);
	return ret;
}

/* The threads' spool cursors, and the file's comm/tgid tables (@pids, @tgids, @comms). */
struct outset {
	struct cursor *cur;
	size_t ncur, ncmd;
	int32_t *pids, *tgids;
	const char **comms;
	uint64_t *born; /* per table entry: when the session that named it began */
};

static void outset_free(struct outset *o)
{
	for (size_t i = 0; o->cur && i < o->ncur; i++)
		cursor_release(&o->cur[i]);
	free(o->cur);
	free(o->pids);
	free(o->tgids);
	free(o->comms);
	free(o->born);
}

/*
 * When session @s began: its name is "PID.NS" (libutrace/session.c), NS
 * its start.  An exec'd image's session is newer than the image it
 * replaced, whatever order the directory listed them in.
 */
static uint64_t sess_born(const struct sess *s)
{
	uint64_t born = 0;

	ut_sessname_parse(s->name, NULL, &born);
	return born;
}

/* A cursor over @t's spool, and @t in the tables.  0 or -ENOMEM. */
static int outset_add(struct outset *o, struct sess *s, struct thr *t)
{
	struct cursor *c = &o->cur[o->ncur];
	size_t k;

	/*
	 * The newest session's comm wins (the kernel's saved_cmdlines keeps the
	 * comm after exec): two sessions found in one pass come in the
	 * directory's order, not their age (record/060 under ASan).
	 */
	for (k = 0; k < o->ncmd && o->pids[k] != t->tid; k++)
		;
	if (k == o->ncmd || sess_born(s) >= o->born[k]) {
		o->pids[k] = t->tid;
		o->tgids[k] = s->pid;
		o->comms[k] = t->comm;
		o->born[k] = sess_born(s);
	}
	if (k == o->ncmd)
		o->ncmd++;
	if (t->spool < 0)
		return 0; /* streamed: no spool to read */
	c->s = s;
	c->t = t;
	c->dec.from = t->rb.from;
	c->fd = t->spool;
	if (t->shared_end) { /* its pieces of the one spool */
		c->pieces = t->pieces;
		c->npieces = t->npieces;
	} else if (t->rlen != UINT64_MAX) { /* retired: its place in the retired threads' file */
		c->off = t->roff;
		c->end = t->roff + t->rlen;
	} else {
		struct stat st;

		c->end = fstat(t->spool, &st) ? 0 : (uint64_t)st.st_size;
	}
	o->ncur++;
	return 0;
}

static int outset_make(struct ut_recorder *r, struct outset *o)
{
	size_t nthr = 0;

	for (size_t i = 0; i < r->nr_sess; i++)
		nthr += r->sess[i]->nr_thr + r->sess[i]->nold;
	o->cur = calloc(nthr + 1, sizeof(*o->cur));
	o->pids = calloc(nthr + 1, sizeof(*o->pids));
	o->tgids = calloc(nthr + 1, sizeof(*o->tgids));
	o->comms = calloc(nthr + 1, sizeof(*o->comms));
	o->born = calloc(nthr + 1, sizeof(*o->born));
	if (!o->cur || !o->pids || !o->tgids || !o->comms || !o->born)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_sess; i++) {
		/* retired threads first: a later thread of the same tid names it */
		for (size_t j = 0; j < r->sess[i]->nold; j++)
			if (outset_add(o, r->sess[i], r->sess[i]->old[j]))
				return -ENOMEM;
		for (uint32_t j = 0; j < r->sess[i]->nr_thr; j++)
			if (r->sess[i]->thr[j] && outset_add(o, r->sess[i], r->sess[i]->thr[j]))
				return -ENOMEM;
	}
	return 0;
}

/* The file's metadata but the totals (@uname_buf: room for the uname line). */
static void fill_meta(struct ut_recorder *r, const struct outset *o, struct ut_tracedat_meta *m,
		      char *uname_buf, size_t len)
{
	struct utsname uts;

	m->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (m->nr_cpus < 1)
		m->nr_cpus = 1;
	m->clock = clock_line(r->clock);
	if (!r->syms)
		r->syms = load_symbols(r);
	m->syms = r->syms;
	/* sessions come as the program runs: read again for each write-out */
	ut_probetab_free(r->probes);
	r->probes = load_probes(r);
	m->probes = r->probes;
	m->nr_cmdlines = m->nr_tgids = o->ncmd;
	m->cmd_pids = m->tgid_pids = o->pids;
	m->cmd_comms = o->comms;
	m->tgid_tgids = o->tgids;
	if (!uname(&uts)) {
		snprintf(uname_buf, len, "%s %s %s %s", uts.sysname, uts.nodename, uts.release,
			 uts.version);
		m->uname = uname_buf;
	}
	m->tracer = r->tracer;
	m->options = r->options;
	m->has_options = true;
	m->compress = r->compress;
	m->zstd_level = r->zlevel;
}

/*
 * A lossless thread's events never read are a recorder bug: what its ring
 * and our reading of it looked like, said with the warning so that a report
 * of it carries the evidence.
 */
static void unread_why(struct ut_recorder *r, const struct sess *s, const struct thr *t)
{
	const struct ut_thread_slot *ts = &s->ctl->threads[t->slot];
	const struct ut_buf_hdr *h = t->rb.hdr;

	if (!h) { /* a snapshot's, let go once read */
		snprintf(r->unread_why, sizeof(r->unread_why), "slot %u, its ring let go", t->slot);
		return;
	}
	snprintf(r->unread_why, sizeof(r->unread_why),
		 "slot %u gen %llu/%llu state %u; ring head %llu tail %llu written %llu; "
		 "read from %llu to %llu stop %llu, %llu events; opened at pass %llu of %llu, "
		 "%llu drains (%llu bytes, last %ld)%s; writer %llu events, to %llu",
		 t->slot, (unsigned long long)t->gen,
		 (unsigned long long)__atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE),
		 __atomic_load_n(&ts->state, __ATOMIC_ACQUIRE),
		 (unsigned long long)__atomic_load_n(&h->head, __ATOMIC_ACQUIRE),
		 (unsigned long long)__atomic_load_n(&h->tail, __ATOMIC_ACQUIRE),
		 (unsigned long long)__atomic_load_n(&h->written, __ATOMIC_ACQUIRE),
		 (unsigned long long)t->rb.from, (unsigned long long)t->rb.tail,
		 (unsigned long long)t->rb.stop, (unsigned long long)t->rb.read,
		 (unsigned long long)t->opened_pass, (unsigned long long)r->passes,
		 (unsigned long long)t->drains, (unsigned long long)t->drained, t->last_drain,
		 t->spilled ? ", spilled" : "", (unsigned long long)t->rs.read,
		 (unsigned long long)t->rs.got_to);
}

/* After the write-out: what the streams could not tell, into the totals. */
static void finish_totals(struct ut_recorder *r, const struct outset *o,
			  struct ut_tracedat_meta *m)
{
	(void)o;
	/* exited threads' data given up to respect buffer_total_size_kb (Recycling) */
	for (size_t i = 0; i < r->nr_sess; i++)
		r->recycled += __atomic_load_n(&r->sess[i]->ctl->recycled_lost[r->inst],
					       __ATOMIC_ACQUIRE);
	r->lost_total += r->recycled;
	/* refused at the very end, or overwritten (streamed threads have no cursor) */
	for (size_t i = 0; i < r->nr_sess; i++)
		for (uint32_t j = 0; j < r->sess[i]->nr_thr; j++) {
			const struct thr *t = r->sess[i]->thr[j];
			const struct ut_buf_hdr *h = t && !t->taken ? t->rb.hdr : NULL;
			uint64_t accounted = t ? t->rb.base + t->rs.read + t->rs.lost_in_stream : 0;
			/* a snapshot's ring: what its header counted when it was read */
			uint64_t total = h ? h->written + h->dropped + h->nested : t ? t->total : 0;

			if (h)
				count_waits(r, h);
			if (t && total > accounted && t->rb.base_known) {
				uint64_t written = h ? h->written : total;

				r->lost_total += total - accounted;
				if (r->lossless && written > t->rb.base + t->rs.read) {
					r->unread += written - t->rb.base - t->rs.read;
					if (!r->unread_tid) {
						r->unread_pid = r->sess[i]->pid;
						r->unread_tid = t->tid;
						unread_why(r, r->sess[i], t);
					}
				}
			}
		}
	m->lost = r->lost_total;
}

/*
 * Waits for the recorder worth telling: a second in all (a few threads
 * starting at once, before the drainer has their rings, wait a little).
 */
#define WAIT_TOLD_NS 1000000000ull

void ut_recorder_warn_totals(struct ut_recorder *r)
{
	uint64_t other = r->lost_total > r->unwritten ? r->lost_total - r->unwritten : 0;

	for (size_t i = 0; i < r->nr_sess; i++)
		if (r->sess[i]->ctl->threads_untraced)
			rwarn(r, "warning: process %d: %llu threads not traced (more than %d threads)",
			      r->sess[i]->pid,
			      (unsigned long long)r->sess[i]->ctl->threads_untraced, UT_MAX_THREADS);
	/*
	 * Those a write error kept out of the file were said with the error;
	 * after one, the rest are mostly its doing too (a thread the full queue
	 * refused at the end spills to a spool on the same full disk): a larger
	 * -b would not have kept them.  Events a lossless run's thread wrote
	 * and the recorder never took (nothing could overwrite them) are said
	 * apart, with whose they were.
	 */
	if (r->unread && !r->unwritten && r->unread <= other) {
		rwarn(r, "%llu events lost: written by process %d thread %d and never read from its "
			 "buffer (a utrace bug: please report it with this: %s)",
		      (unsigned long long)r->unread, (int)r->unread_pid, (int)r->unread_tid,
		      r->unread_why);
		other -= r->unread;
	}
	/*
	 * A lossless run's slot claims give an exited thread's data to a new
	 * thread only when all UT_MAX_THREADS slots are taken and no recorder
	 * will take it (gone, or silent and stopped: libutrace/slots.c).
	 */
	if (r->lossless && r->recycled && r->recycled <= other) {
		rwarn(r, "%llu events lost: exited threads' buffers were given to new threads before "
			 "the recorder took them (all %d thread slots were taken, and the recorder "
			 "was gone, stopped, or silent for over %.0f s)",
		      (unsigned long long)r->recycled, UT_MAX_THREADS, (double)UT_BP_ALIVE_NS / 1e9);
		other -= r->recycled;
	}
	if (other && r->unwritten)
		rwarn(r, "%llu more events lost (not taken after the write error, or buffers full)",
		      (unsigned long long)other);
	else if (other && r->gave_up)
		/*
		 * A lossless thread waits for room only while the recorder
		 * beats its ring (UT_BP_STALE_NS): one held up longer (stopped,
		 * or starved on a busy machine) was taken for gone, and its
		 * threads dropped events until it drained them again.  Said so,
		 * with the recorder's longest pause, not "a larger -b".
		 */
		rwarn(r, "%llu events lost: %llu of the program's threads stopped waiting for the "
			 "recorder, silent for over %.0f s (its longest pause between passes: %.1f s), "
			 "and dropped events until it drained their buffers again",
		      (unsigned long long)other, (unsigned long long)r->gave_up,
		      (double)UT_BP_STALE_NS / 1e9, (double)r->max_gap / 1e9);
	else if (other)
		rwarn(r, "%llu events lost (buffers full or overwritten; try a larger -b)",
		      (unsigned long long)other);
	/*
	 * A lossless record's program waits only when the recorder's backlog
	 * on disk reached its bound (spool_max()) or the drainer fell behind:
	 * said when it added up to something a user would notice (and kept
	 * them all: not when a wait gave up, said above).
	 */
	if (r->wait_ns >= WAIT_TOLD_NS && !r->gave_up)
		rwarn(r, "note: the program's threads waited %.1f s in all (%llu times) for the "
			 "recorder to take their events: a lossless record keeps them all (-O drop: "
			 "no wait, losses counted)",
		      (double)r->wait_ns / 1e9, (unsigned long long)r->waits);
}

int ut_recorder_replay(struct ut_recorder *r, struct ut_write_sink *k)
{
	struct ut_tracedat_meta m = {0};
	struct outset o = {0};
	char uname_buf[512];
	int ret = outset_make(r, &o), eret;

	r->lost_total = r->unwritten = r->unread = r->recycled = 0; /* each replay counts afresh */
	r->waits = r->wait_ns = r->gave_up = 0;
	r->unread_pid = r->unread_tid = 0;
	for (size_t i = 0; i < r->nr_sess; i++) {
		for (uint32_t j = 0; j < r->sess[i]->nr_thr; j++)
			if (r->sess[i]->thr[j]) {
				r->sess[i]->thr[j]->rs.read = 0;
				r->sess[i]->thr[j]->rs.lost_in_stream = 0;
			}
		for (size_t j = 0; j < r->sess[i]->nold; j++) {
			r->sess[i]->old[j]->rs.read = 0;
			r->sess[i]->old[j]->rs.lost_in_stream = 0;
		}
	}
	if (!ret) {
		fill_meta(r, &o, &m, uname_buf, sizeof(uname_buf));
		ret = k->begin(k, &m);
	}
	if (!ret) {
		ret = merge_out(r, k, o.cur, o.ncur, m.nr_cpus);
		finish_totals(r, &o, &m);
		eret = k->end(k, &m);
		if (!ret)
			ret = eret;
	}
	outset_free(&o);
	return ret;
}

/* --- the trace.dat sink ---------------------------------------------------- */

struct file_sink {
	struct ut_write_sink sink;
	struct ut_recorder *r;
	struct ut_tracedat_writer *w;
};

static int file_begin(struct ut_write_sink *k, const struct ut_tracedat_meta *m)
{
	struct file_sink *fs = (struct file_sink *)k;
	struct ut_tracedat_meta mw = *m;
	char err[256];

	/*
	 * A snapshot (extract) leaves the buffers as they are: its file
	 * appears whole or not at all, nothing if it is interrupted.  record
	 * writes in place: a killed recorder leaves what it wrote, readable.
	 */
	mw.whole = fs->r->live && !fs->r->consume;
	fs->w = ut_tracedat_create(fs->r->output, &mw, err, sizeof(err));
	if (!fs->w) {
		rwarn(fs->r, "%s", err);
		return -EIO;
	}
	return 0;
}

static int file_event(struct ut_write_sink *k, const struct ut_event *ev)
{
	return ut_tracedat_write(((struct file_sink *)k)->w, ev);
}

static int file_lost(struct ut_write_sink *k, unsigned cpu, uint64_t nr)
{
	return ut_tracedat_lost(((struct file_sink *)k)->w, cpu, nr);
}

static int file_end(struct ut_write_sink *k, const struct ut_tracedat_meta *m)
{
	struct file_sink *fs = (struct file_sink *)k;

	if (ut_tracedat_update_meta(fs->w, m))
		rwarn(fs->r, "cannot record the totals in %s", fs->r->output);
	return ut_tracedat_close(fs->w);
}

static int write_trace(struct ut_recorder *r)
{
	struct file_sink fs = {.sink = {.begin = file_begin, .event = file_event,
					.lost = file_lost, .end = file_end},
			       .r = r};
	int ret = ut_recorder_replay(r, &fs.sink);

	if (fs.w) /* written (a file that cannot be made says so itself) */
		ut_recorder_warn_totals(r);
	return ret;
}

/*
 * Streaming starts with the first pass: the output is created now, with
 * the metadata known at the start (symbols and task names follow at the
 * end), and the writer thread started.  Failing that, the spool path.
 */
static void stream_begin(struct ut_recorder *r)
{
	struct ut_tracedat_meta m = {0};
	struct outset o = {0};
	char err[256], uname_buf[512];

	fill_meta(r, &o, &m, uname_buf, sizeof(uname_buf));
	ut_symtab_free(r->syms); /* no session yet: loaded at the end, when they are known */
	r->syms = NULL;
	m.syms = NULL;
	r->tw = ut_tracedat_create(r->output, &m, err, sizeof(err));
	r->nr_cpus = m.nr_cpus;
	if (r->tw)
		r->rs = ut_rstream_new(r->tw, m.nr_cpus, r->options >> UT_OPT_FUNC_NO_REPEATS & 1,
				       r->compress && r->zpace);
	if (r->rs && !ut_rstream_start(r->rs))
		return;
	ut_rstream_free(r->rs);
	r->rs = NULL;
	if (r->tw) {
		ut_tracedat_close(r->tw);
		r->tw = NULL;
	}
	r->streaming = false;
}

/*
 * The end of a streamed record: the last data through the writer thread,
 * then the metadata known only now (symbols, task names, totals) and the
 * file closed.
 */
static int stream_finish(struct ut_recorder *r)
{
	struct ut_tracedat_meta m = {0};
	struct outset o = {0};
	char uname_buf[512];
	int ret = outset_make(r, &o), wret;

	wret = ut_rstream_finish(r->rs);
	if (!wret)
		wret = r->spill_err; /* the data that could not wait in the queue was lost */
	r->unwritten = ut_rstream_unwritten(r->rs);
	r->lost_total += ut_rstream_lost(r->rs) + r->unwritten;
	if (ut_rstream_late(r->rs))
		rwarn(r, "%llu events arrived after later ones were written (a thread held up "
			 "between its time stamp and its commit): written with their CPU's time",
		      (unsigned long long)ut_rstream_late(r->rs));
	if (wret)
		rwarn(r, "writing %s: %s: the program ran on untraced from there; %llu events "
			 "not written",
		      r->output, strerror(-wret), (unsigned long long)ut_rstream_unwritten(r->rs));
	fill_meta(r, &o, &m, uname_buf, sizeof(uname_buf));
	finish_totals(r, &o, &m);
	if (ut_tracedat_update_meta(r->tw, &m))
		rwarn(r, "cannot record the totals in %s", r->output);
	ut_recorder_warn_totals(r);
	if (!ret)
		ret = wret;
	wret = ut_tracedat_close(r->tw);
	r->tw = NULL;
	if (!ret)
		ret = wret;
	outset_free(&o);
	return ret;
}

void ut_recorder_set_streaming(struct ut_recorder *r, bool on)
{
	r->streaming = on && clock_streams(r->clock) && !r->live && !r->profile;
	const char *spill = getenv("UTRACE_TEST_SPILL"), *unread = getenv("UTRACE_TEST_UNREAD");

	r->test_spill = spill && *spill;
	r->test_unread = unread && *unread;
	r->delay_late = getenv("UTRACE_TEST_DRAIN_DELAY_LATE") != NULL;
	r->open_delay_ns = (uint64_t)ut_test_us("UTRACE_TEST_OPEN_DELAY_US") * 1000;
	if (r->streaming && !r->rs)
		stream_begin(r); /* before the program: its thread is a normal one */
}

/*
 * Whether the recorder's threads keep to one CPU, away from the program's
 * (reader/yield.h).  While a backlog waits on disk and may grow: the
 * program runs at its own pace only if the recorder leaves it its core;
 * once the backlog is read, or at its bound (the program waits: the writer
 * needs every CPU), the recorder takes what CPU it can.  And while the
 * program has fewer threads than the recorder has CPUs, unless a process
 * may run only where the recorder would go: its threads then have CPUs of
 * their own, and a writer or compressor scheduled on one of them cost the
 * program more than its time slices (fib(30) under function_graph: 107-135
 * ms against 92-105, its CPU time alike: caches refilled after each
 * switch); the recorder keeps up from one CPU or spills.  With as many
 * threads as CPUs the recorder takes its share of them as before (pinned
 * beside them, it made threads wait for their rings under strace:
 * tests/record/447).
 */
static bool yield_cpu(struct ut_recorder *r)
{
	if (r->spooled > ut_rstream_spool_read(r->rs))
		return spool_left(r) != 0;
	if (!r->my_cpus)
		r->yield_to = ut_yield_cpu(&r->my_cpus);
	if (r->alive >= (uint32_t)r->my_cpus || r->yield_to < 0)
		return false;
	/* processes that exited are passed over without a system call (a script leaves hundreds) */
	for (size_t i = 0; i < r->nr_sess; i++) {
		cpu_set_t mask;

		if (!__atomic_load_n(&r->sess[i]->ctl->alive, __ATOMIC_ACQUIRE) ||
		    sched_getaffinity(r->sess[i]->pid, sizeof(mask), &mask))
			continue;
		CPU_CLR(r->yield_to, &mask);
		if (!CPU_COUNT(&mask))
			return false;
	}
	return true;
}

long ut_recorder_drain(struct ut_recorder *r)
{
	long n;

	if (r->streaming && !r->rs)
		stream_begin(r);
	/*
	 * Test hooks: each pass slowed (UTRACE_TEST_DRAIN_DELAY_US); with
	 * UTRACE_TEST_DRAIN_DELAY_LATE only once a ring was beaten, so that
	 * its writer knows the recorder before it falls silent (record/422).
	 */
	if (!r->delay_late || r->beaten)
		ut_bp_test_delay();
	r->pressed = false;
	r->queue_full = false;
	r->pass_ns = ut_bp_now() & ~1ull; /* even: a consumer's beat (libutrace/backpressure.c) */
	n = drain_pass(r, false);
	if (r->rs)
		ut_rstream_yield_cpu(r->rs, yield_cpu(r));
	return n;
}

void ut_recorder_nap(struct ut_recorder *r, long ns)
{
	const struct ut_rb_reader *rings[UT_BP_NAP_MAX];
	size_t n = 0;

	/* a full queue: a plain nap (waiting writers would end a futex nap at once) */
	for (size_t i = 0; r->lossless && !r->queue_full && i < r->nr_sess; i++)
		for (uint32_t j = 0; j < r->sess[i]->nr_thr; j++) {
			const struct thr *t = r->sess[i]->thr[j];

			/* the rings the last pass drained (a failed one would wake us at once) */
			if (!t || t->taken || !t->rb.consume || t->rb.hdr->beat_ns != r->pass_ns)
				continue;
			if (n < UT_BP_NAP_MAX)
				rings[n++] = &t->rb;
			else
				n = UT_BP_NAP_MAX + 1; /* too many: a plain nap */
		}
	ut_bp_nap(rings, n, ns);
}

void ut_recorder_set_lossless(struct ut_recorder *r, bool on)
{
	r->lossless = on;
}

bool ut_recorder_pressed(const struct ut_recorder *r)
{
	return r->pressed && !r->queue_full; /* a full queue: the writer needs the CPU */
}

void ut_recorder_profile_only(struct ut_recorder *r, int32_t tid)
{
	r->profile_only = tid;
}

void ut_recorder_set_profile(struct ut_recorder *r, FILE *out, bool graph_time, unsigned names,
			     uint64_t thresh_ns)
{
	r->profile = out;
	r->graph_time = graph_time;
	r->names = names;
	r->thresh_ns = thresh_ns;
}

/* --- the function profiler's tables ------------------------------------ */

/* A thread's table, and whose (reader/stat.c prints it). */
struct ptable {
	struct ut_stat_table t;
	size_t sidx;             /* its session's place: the order they print in */
	uint32_t slot;
	uint64_t gen;            /* the slot's incarnation */
	int32_t tid;
	char comm[17];
};

/* Rows @e[0..@n) of a table of @s to @all and to @mine; untrusted input. */
static void add_rows(const struct ut_recorder *r, const struct sess *s, bool cpu_time,
		     const struct ut_prof_entry *e, size_t n, const struct ut_symtab *st,
		     struct ut_stat_table *all, struct ptable *mine)
{
	/* Times in TSC cycles for the local clock: ns = cycles * mult >> shift. */
	long double k = 1;

	if (!cpu_time && s->clk.clock == UT_CLOCK_LOCAL && s->clk.mult)
		k = (long double)s->clk.mult / (long double)(1ull << s->clk.shift);
	for (size_t i = 0; i < n; i++) {
		const struct ut_sym *sym;
		long double t, sq;

		if (!e[i].ip || !e[i].hits)
			continue;
		sym = ut_symtab_lookup(st, e[i].ip);
		if (!sym)
			continue;
		t = (long double)(r->graph_time ? e[i].time : e[i].self) * k;
		sq = (r->graph_time ? ldexpl((long double)e[i].time_sq[1], 64) + e[i].time_sq[0]
				    : ldexpl((long double)e[i].self_sq[1], 64) + e[i].self_sq[0]) *
		     k * k;
		ut_stat_add(all, sym->name, e[i].hits, t, sq);
		ut_stat_add(&mine->t, sym->name, e[i].hits, t, sq);
	}
}

/*
 * Add slot @slot's table (prof.<slot>) to @all and to @mine, unless its
 * counts were taken while the program ran (they are in r->ptaken).
 */
static void read_ptable(struct ut_recorder *r, struct sess *s, uint32_t slot,
			const struct ut_symtab *st, struct ut_stat_table *all, struct ptable *mine)
{
	const struct ut_thread_slot *ts = &s->ctl->threads[slot];
	char path[PATH_MAX], err[256];
	struct ut_proftab tab;
	uint64_t taken = 0;
	int ret;

	mine->slot = slot;
	mine->gen = ts->gen;
	mine->tid = ts->tid;
	memcpy(mine->comm, ts->comm, 16);
	snprintf(path, sizeof(path), "%s/%s/prof.%u", r->dir, s->name, slot);
	/* (a copy: the file's holes, pages no thread wrote, are not read) */
	ret = ut_prof_copy(path, &tab, &taken, err, sizeof(err));
	if (ret <= 0) {
		map_failed(r, ret);
		return;
	}
	if (r->live || taken != ts->gen + 1)
		add_rows(r, s, tab.cpu_time, tab.e, tab.n, st, all, mine);
	free(tab.e);
}

/* The order of the per-thread tables: session, slot, incarnation. */
static int ptable_cmp(const void *a, const void *b)
{
	const struct ptable *x = a, *y = b;

	if (x->sidx != y->sidx)
		return x->sidx < y->sidx ? -1 : 1;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* Every thread's counts: those taken while the program ran, then the slots' tables. */
static size_t gather_ptables(struct ut_recorder *r, const struct ut_symtab *st,
			     struct ut_stat_table *all, struct ptable *per, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nptaken && k < cap; i++) {
		const struct taken_tab *tt = &r->ptaken[i];

		if (r->profile_only > 0 && tt->t.tid != r->profile_only)
			continue;
		for (size_t j = 0; j < r->nr_sess; j++)
			if (r->sess[j] == tt->s)
				per[k].sidx = j;
		per[k].slot = tt->t.slot;
		per[k].gen = tt->t.gen;
		per[k].tid = tt->t.tid;
		memcpy(per[k].comm, tt->t.comm, sizeof(per[k].comm));
		add_rows(r, tt->s, tt->t.cpu_time, tt->t.e, tt->t.n, st, all, &per[k++]);
	}
	for (size_t i = 0; i < r->nr_sess; i++) {
		struct sess *s = r->sess[i];

		for (uint32_t j = 0; j < nr_slots(s) && k < cap; j++) {
			if (r->profile_only > 0 && s->ctl->threads[j].tid != r->profile_only)
				continue;
			per[k].sidx = i;
			read_ptable(r, s, j, st, all, &per[k++]);
		}
	}
	qsort(per, k, sizeof(*per), ptable_cmp);
	return k;
}

static int write_profile(struct ut_recorder *r)
{
	struct ut_symtab *st = load_symbols(r);
	struct ut_demangler *dm = r->names & UT_STAT_DEMANGLE ? ut_demangler_new() : NULL;
	bool wide = r->names & UT_STAT_WIDE;
	struct ut_stat_table all = {0};
	struct ptable *per = NULL;
	size_t nthreads = r->nptaken, k;

	if (!st)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_sess; i++)
		nthreads += nr_slots(r->sess[i]);
	per = calloc(nthreads + 1, sizeof(*per));
	if (!per) {
		ut_symtab_free(st);
		ut_demangler_free(dm);
		return -ENOMEM;
	}
	k = gather_ptables(r, st, &all, per, nthreads);
	ut_stat_print(r->profile, &all, r->thresh_ns, dm, wide);
	for (size_t i = 0; k > 1 && r->profile_only < 0 && i < k; i++) {
		if (!per[i].t.n)
			continue;
		fprintf(r->profile, "\n==> thread %s-%d <==\n", per[i].comm, per[i].tid);
		ut_stat_print(r->profile, &per[i].t, r->thresh_ns, dm, wide);
	}
	for (size_t i = 0; i < k; i++)
		ut_stat_free(&per[i].t);
	free(per);
	ut_stat_free(&all);
	ut_symtab_free(st);
	ut_demangler_free(dm);
	return 0;
}

void ut_recorder_collect(struct ut_recorder *r)
{
	if (r->streaming && !r->rs)
		stream_begin(r);
	r->final = true;
	if (r->rs) /* the program is gone: the write-out takes what CPU it can */
		ut_rstream_yield_cpu(r->rs, false);
	/*
	 * A snapshot looks at each ring once (it takes the whole ring): a
	 * program writing on must not keep it reading.  Else until nothing is
	 * left (the copy buffer may be smaller than a ring).
	 */
	if (snapshot_mode(r))
		drain_pass(r, true);
	else
		while (drain_pass(r, true) > 0)
			;
}

bool ut_recorder_refused(const struct ut_recorder *r)
{
	return r->refused;
}

/* The spools: the per-thread ones' folder (a snapshot's is unlinked already: closed). */
static void remove_spools(struct ut_recorder *r)
{
	if (r->spooldir_made)
		ut_live_remove(r->spooldir);
	r->spooldir_made = false;
}

void ut_recorder_cleanup(struct ut_recorder *r)
{
	remove_spools(r);
}

int ut_recorder_finish(struct ut_recorder *r)
{
	int ret;

	if (r->live && r->profile)
		find_sessions(r); /* the tables are files of their own: no ring is read */
	else
		ut_recorder_collect(r);
	if (!r->live && !r->rs)
		fix_clocks(r);
	ret = r->rs ? stream_finish(r) : r->profile ? write_profile(r) : write_trace(r);
	if (!ret && r->refused)
		ret = -EPERM; /* written without what was refused: say so */
	remove_spools(r);
	if (!r->live)
		ut_live_remove(r->dir);
	return ret;
}

void ut_recorder_free(struct ut_recorder *r)
{
	ut_probetab_free(r->probes);
	ut_rstream_free(r->rs); /* first: it frees what it kept in the threads */
	if (r->tw)
		ut_tracedat_close(r->tw);
	for (size_t i = 0; i < r->nr_sess; i++) {
		struct sess *s = r->sess[i];

		for (uint32_t j = 0; j < s->nr_thr; j++) {
			if (!s->thr[j])
				continue;
			if (s->thr[j]->map)
				munmap(s->thr[j]->map, s->thr[j]->maplen);
			if (s->thr[j]->spool >= 0 && s->thr[j]->spool != r->one_fd)
				close(s->thr[j]->spool);
			free(s->thr[j]->pieces);
			free(s->thr[j]);
		}
		for (size_t j = 0; j < s->nold; j++) {
			if (s->old[j]->spool >= 0 && s->old[j]->rlen == UINT64_MAX &&
			    s->old[j]->spool != r->one_fd && !s->old[j]->rs.closed)
				close(s->old[j]->spool);
			free(s->old[j]->pieces);
			free(s->old[j]);
		}
		free(s->old);
		free(s->prof_seen);
		free(s->gone_told);
		free(s->seen_ns);
		ut_sess_unmap_ctl(s->ctl);
		free(s);
	}
	if (r->one_fd >= 0)
		close(r->one_fd);
	if (r->retired_fd >= 0)
		close(r->retired_fd);
	for (size_t i = 0; i < r->nptaken; i++)
		free(r->ptaken[i].t.e);
	free(r->ptaken);
	free(r->mark_thr);
	free(r->mark_empty);
	free(r->sess);
	free(r->copybuf);
	ut_symtab_free(r->syms);
	free(r);
}

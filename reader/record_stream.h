/* SPDX-License-Identifier: MIT */
/*
 * The recorder's write-out while the program runs (reader/record_stream.c).
 *
 * The drainer (reader/recorder.c, a real-time thread) copies what the rings
 * published into a chunk queue, and after each pass pushes a mark: the time
 * the pass started and, per thread, whether its ring was left empty.  A
 * writer thread decodes the chunks into per-thread queues of events, merges
 * them by time up to a watermark and writes them (reader/tracedat_write.c:
 * kernel events, pages, zstd chunks) on the other core, so when the program
 * ends only the last milliseconds are left to write.
 *
 * The watermark: an event not yet taken from a ring whose drainer left it
 * empty at time T was stamped after T - UT_RSTREAM_SLACK (a thread stamps an
 * event just before it commits it; the slack covers one preempted between
 * the two); a ring left with data (a busy thread's partial page) holds
 * nothing older than what was taken from it.  So every event up to the
 * minimum of these bounds over all threads is known, and is written in time
 * order.  An event that breaks the rule (a thread preempted for longer than
 * the slack between stamping and committing) is written when it arrives, on
 * its CPU, with its CPU's latest time (the writer never lets a CPU's time go
 * backwards); the count of such late events is kept (ut_rstream_late).
 */
#ifndef UT_READER_RECORD_STREAM_H
#define UT_READER_RECORD_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/event.h"
#include "common/ring_buffer.h"
#include "reader/drain.h"
#include "reader/tracedat.h"

/* Slack for a stamp not yet committed: 20 ms, in ns (ns clocks only stream). */
#define UT_RSTREAM_SLACK 20000000ull

/* A spool file's piece: ring data from stream position @start, @lost records before it. */
struct ut_spool_hdr {
	uint64_t start, lost;
	uint32_t len, pad;
};
#define UT_SPOOL_CHUNK 65536 /* ring bytes per piece at most */
/*
 * The spools the record stream reads back (a thread that spilled) are laid
 * out in whole pages: a piece's header alone in a UT_SPOOL_ALIGN block, its
 * data padded to the next.  Whole pages are written at half the CPU of
 * pieces laid end to end here (no partial page to read, zero and account),
 * and the drainer writes as fast as the program's hook fills its ring.
 */
#define UT_SPOOL_ALIGN 4096
#define UT_SPOOL_BIG 262144 /* ring bytes per piece at most, in such a spool */

/* The bytes a piece's header, and its @len bytes of data, take in a spool (@aligned or not). */
static inline size_t ut_spool_hdr_bytes(bool aligned)
{
	return aligned ? UT_SPOOL_ALIGN : sizeof(struct ut_spool_hdr);
}

static inline size_t ut_spool_data_bytes(bool aligned, size_t len)
{
	return aligned ? (len + UT_SPOOL_ALIGN - 1) / UT_SPOOL_ALIGN * UT_SPOOL_ALIGN : len;
}

/* One traced thread as the stream sees it; embedded in the recorder's thread. */
struct ut_rs_thread {
	int32_t tid, tgid;
	const struct ut_clockconv *clk;
	struct ut_rb_decoder dec;   /* .from set by the recorder */
	/* the writer thread's own */
	struct ut_rb_ref *ev;       /* taken, not yet written: [pos, nr) */
	size_t nr, pos, cap;
	size_t end;                 /* the merge round's: written up to here */
	size_t scan;                /* unhold()'s */
	uint64_t lost;              /* lapped before the next chunk (flight recorder) */
	uint64_t read;              /* events written */
	uint64_t lost_in_stream;    /* losses the stream reported */
	bool known;                 /* in the writer's list */
	size_t deferred;            /* chunks held unread (record_stream.c, solo()) */
	/*
	 * Set (atomically) by the drainer when the thread's slot went to a
	 * new thread (docs/shm-abi.md, Recycling): nothing more will come,
	 * so once all is written the writer drops it from its list and frees
	 * its queue (a chunk still coming would put it back).
	 */
	int retired;
	/*
	 * Its spool, when it spilled (the full queue refused its data: what
	 * came after went to the spool file @spool, the drainer's), which the
	 * writer reads as it goes, after the thread's chunks from the queue:
	 * the queue goes on on disk, and the program need not wait for the
	 * writer.
	 */
	int spool;
	uint64_t spill_from;        /* the drainer's: stream position of the spool's first byte */
	uint64_t spool_end;         /* atomic, the drainer's: bytes in the spool (release) */
	uint64_t spool_off;         /* atomic, the writer's read position */
	uint64_t got_to;            /* the writer's: stream position past its last queue chunk */
	bool aligned;               /* laid out in whole pages (UT_SPOOL_ALIGN) */
	uint64_t punched;           /* the writer's: the spool's bytes before this are let go */
	uint64_t mark;              /* the writer's: the last mark that listed it */
	bool closed;                /* the writer closed the spool (retired, read to its end) */
	bool nopunch;               /* the file system cannot (fallocate failed) */
	bool spool_done;
};

struct ut_rstream;

/*
 * A stream into @w (which it writes, never closes), folding repeats with
 * @folding; @pace: chunks stored raw while the writer is behind
 * (ut_tracedat_store()).
 */
struct ut_rstream *ut_rstream_new(struct ut_tracedat_writer *w, int nr_cpus, bool folding,
				  bool pace);
/* The sink for @t's ring data (reader/drain.h), the queue's producer side. */
void ut_rstream_sink(struct ut_rstream *s, struct ut_rs_thread *t, struct ut_drain_qsink *k);
/*
 * After a drainer pass that started at @now (trace clock): the threads of
 * the pass, each with whether its ring was left empty (@empty[i]).  @whole:
 * every session and thread slot could be opened (a thread not yet seen may
 * hold anything: no watermark from an incomplete pass).  -ENOMEM (queue
 * full: the mark is given again after the next pass) or 0.
 */
int ut_rstream_mark(struct ut_rstream *s, uint64_t now, struct ut_rs_thread *const *thr,
		    const bool *empty, size_t n, bool whole);
/*
 * The drainer's: @t spilled (its data goes to its spool from now on), for
 * the writer to read back even if no mark it applies lists @t.  0 or -ENOMEM.
 */
int ut_rstream_spilled(struct ut_rstream *s, struct ut_rs_thread *t);
/* Start the writer thread.  0 or -errno. */
int ut_rstream_start(struct ut_rstream *s);
/*
 * The drainer is done (every ring emptied): write everything left, stop
 * the writer thread.  Returns the first write error, 0 if none.
 */
int ut_rstream_finish(struct ut_rstream *s);
/* Spool bytes the writer has read back so far, and given back to the disk (any thread). */
uint64_t ut_rstream_spool_read(const struct ut_rstream *s);
uint64_t ut_rstream_spool_freed(const struct ut_rstream *s);
/* The spools may take @bytes of disk: the writer gives back what it read in steps to fit. */
void ut_rstream_spool_bound(struct ut_rstream *s, uint64_t bytes);
/*
 * While the program runs, the writer works with the CPU the program leaves
 * (it is behind, and what it has not taken waits on disk); at the end, with
 * the CPU it can get.  @behind: which.
 */
void ut_rstream_yield_cpu(struct ut_rstream *s, bool behind);
/* Losses the stream wrote (LOST records and lapped rings), and late events. */
uint64_t ut_rstream_lost(const struct ut_rstream *s);
uint64_t ut_rstream_late(const struct ut_rstream *s);
/* Events taken after a write error and not written (the program ran on untraced). */
uint64_t ut_rstream_unwritten(const struct ut_rstream *s);
void ut_rstream_free(struct ut_rstream *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * trace.dat in the reader library (internal header; the writer is
 * reader/tracedat_write.c, the reader reader/tracedat_read.c, the layout
 * both share reader/tracedat_format.c).
 *
 * trace-cmd's trace.dat file, version 6 ("flyrecord") or version 7 (sections,
 * zstd-compressed): the formats that `trace-cmd report` (trace-cmd 3.x) reads.  The writer lays events out in the
 * kernel's ring-buffer page format, one stream of pages per CPU, so the file
 * is indistinguishable from one recorded by trace-cmd from the kernel.  The
 * reader takes such a file back apart; it treats the file as untrusted.
 *
 * docs/file-format.md describes the bytes.
 */
#ifndef UT_READER_TRACEDAT_H
#define UT_READER_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/event.h"
#include "common/symbols.h"

/* Page size of the per-CPU streams (the kernel's sub-buffer size on x86-64). */
#define UT_TRACEDAT_PAGE_SIZE 4096

/*
 * Private option holding the "pid tgid" table (the text of tracefs'
 * saved_tgids).  trace-cmd 3.1 has no such option; it skips unknown ids.
 */
#define UT_TRACEDAT_OPT_TGIDS 0x7475
/* Private option: "tracer NAME\nlost N\n" (what the trace's header prints). */
#define UT_TRACEDAT_OPT_INFO 0x7476

/* Lost-event count when the kernel could not store it (no RB_MISSED_STORED). */
#define UT_TRACEDAT_LOST_UNKNOWN UINT64_MAX

struct ut_probetab;
struct ut_tracedat_meta {
	int nr_cpus;                  /* number of per-CPU streams, >= 1 */
	const char *clock;            /* trace_clock line, "[local] global ..."; NULL: "[local]" */
	const struct ut_symtab *syms; /* kallsyms section; may be NULL */
	/* cmdlines: pid -> comm; tgids: pid -> tgid */
	size_t nr_cmdlines;
	const int32_t *cmd_pids;
	const char *const *cmd_comms;
	size_t nr_tgids;
	const int32_t *tgid_pids;
	const int32_t *tgid_tgids;
	const char *uname;            /* optional */
	const char *tracer;           /* optional: "function", "nop", ... */
	uint64_t options;             /* trace options when recorded (struct ut_opts bits) */
	bool has_options;
	uint64_t lost;                /* events lost in all, including those no page could record */
	/* names the USDT probes recorded (their formats); may be NULL */
	const struct ut_probetab *probes;
	/*
	 * Version 7 with zstd-compressed sections at this level (create only);
	 * false: version 6, uncompressed, as before.
	 */
	bool compress;
	int zstd_level;
	/*
	 * Create only: the file appears whole or not at all -- written as a
	 * temporary beside it, given its name at close (reader/outfile.h);
	 * false: written in place from the start (record: a killed recorder
	 * leaves what it wrote).
	 */
	bool whole;
};

struct ut_tracedat_writer;
struct ut_tracedat;
struct ut_clockconv;
struct ut_rb_ref;

/* --- writer --- */

struct ut_tracedat_writer *ut_tracedat_create(const char *path, const struct ut_tracedat_meta *m,
					      char *err, size_t errlen);
int ut_tracedat_update_meta(struct ut_tracedat_writer *w, const struct ut_tracedat_meta *m);
int ut_tracedat_write(struct ut_tracedat_writer *w, const struct ut_event *ev);
int ut_tracedat_write_call(struct ut_tracedat_writer *w, int32_t pid, const struct ut_call *ev);
size_t ut_tracedat_write_refs(struct ut_tracedat_writer *w, int32_t pid,
			      const struct ut_clockconv *clk, const struct ut_rb_ref *r, size_t n,
			      int *err);

/* A thread's chunk of ring data written in one pass (ut_tracedat_write_ring()). */
struct ut_tracedat_ring_run {
	int32_t pid;
	const struct ut_clockconv *clk;
	uint64_t late_before;  /* records stamped before this time count as late */
	uint64_t limit;        /* records written up to this time, */
	/* a record that is not a call (@err: the file's error, if it has one) */
	int (*other)(void *ctx, const uint8_t *rec, uint64_t raw, uint64_t ts, int err);
	/* the first record after @limit and every later one: not written */
	int (*later)(void *ctx, const uint8_t *rec, uint64_t raw, uint64_t ts);
	void *ctx;
	/* added up */
	uint64_t calls;        /* written */
	uint64_t unwritten;    /* calls after a write error */
	uint64_t late;
	uint64_t last_ts;      /* the newest written record's time */
	bool held;             /* past @limit: the rest went to @later */
	int err;               /* the write error, if one came */
};
struct ut_rb_decoder;
void ut_tracedat_write_ring(struct ut_tracedat_writer *w, struct ut_tracedat_ring_run *run,
			    struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start);
int ut_tracedat_lost(struct ut_tracedat_writer *w, unsigned cpu, uint64_t nr);
/*
 * Version 7: store the chunks written from now on raw (zstd frames of raw
 * blocks, read like any other) while @store, compressed again after; the
 * record stream does so while compressing would not keep up with the
 * program.  No effect on version 6.
 */
void ut_tracedat_store(struct ut_tracedat_writer *w, bool store);
/* Version 7: the compressing threads follow @y (reader/yield.h). */
struct ut_yield;
void ut_tracedat_yield(struct ut_tracedat_writer *w, struct ut_yield *y);
int ut_tracedat_close(struct ut_tracedat_writer *w);

/* --- reader --- */

struct ut_tracedat *ut_tracedat_open(const char *path, char *err, size_t errlen);
int ut_tracedat_next(struct ut_tracedat *r, struct ut_event *ev, uint64_t *lost, char *err,
		     size_t errlen);
/*
 * One CPU's stream on its own, for a merge done by the caller: 1 with the
 * CPU's next event (and the events lost just before it), 0 at the stream's
 * end, -1 (@err set) once the stream turns out corrupt or cut short, after
 * all its complete events.  Do not mix with ut_tracedat_next() on one reader.
 */
int ut_tracedat_cpu_next(struct ut_tracedat *r, int cpu, struct ut_event *ev, uint64_t *lost,
			 char *err, size_t errlen);
/* The file's first read error (what ut_tracedat_next() reports), NULL if none. */
const char *ut_tracedat_errmsg(struct ut_tracedat *r);
const struct ut_symtab *ut_tracedat_symbols(struct ut_tracedat *r);
const char *ut_tracedat_comm(struct ut_tracedat *r, int32_t pid);
int32_t ut_tracedat_tgid(struct ut_tracedat *r, int32_t pid);
int ut_tracedat_nr_cpus(struct ut_tracedat *r);
const char *ut_tracedat_clock(struct ut_tracedat *r);
const char *ut_tracedat_uname(struct ut_tracedat *r);
/* The tracer recorded (NULL if the file does not say) and the total lost. */
const char *ut_tracedat_tracer(struct ut_tracedat *r);
uint64_t ut_tracedat_lost_total(struct ut_tracedat *r);
/* The trace options recorded with the file; false if it has none. */
bool ut_tracedat_options(struct ut_tracedat *r, uint64_t *bits);
void ut_tracedat_close_reader(struct ut_tracedat *r);

#endif

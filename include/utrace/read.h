/* SPDX-License-Identifier: MIT */
/*
 * The reader library (libutread): everything a tool needs to read utrace's
 * traces -- running processes' sessions in the run-time directory and
 * trace.dat files -- and print them in the kernel's formats.  The CLI and
 * the tracefs mount are front ends over it; examples/read_trace.c shows it
 * used alone.
 *
 * Errors: functions return a negative errno (and, where they take one, fill
 * a message buffer the caller may print).  Nothing here exits, and nothing
 * prints to stdout or stderr on its own: text goes only to the FILE the
 * caller passes, warnings only to the callback the caller sets.
 */
#ifndef UTRACE_READ_H
#define UTRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- trace.dat files ---------------------------------------------------- */

/* A list of numbers (CPUs, thread ids) to keep; n == 0 keeps all. */
struct ut_idlist {
	long *v;
	size_t n;
};

/*
 * What a reader keeps: events of these CPUs, threads and processes (NULL or
 * empty: all), with timestamps in [@ts_min, @ts_max] (@ts_max 0: no end).
 */
struct ut_stream_filter {
	const struct ut_idlist *cpus, *tids, *pids;
	uint64_t ts_min, ts_max;
};

/*
 * Print trace.dat @file to @f in the kernel's `trace` format (@header) or as
 * trace_pipe's bare lines.  @words: -O option words applied over the file's
 * own (valid ones: the caller checks them).  @cpus, @pids: only these
 * (NULL: all).  Returns 0, or -errno with a message in @err naming the file
 * and what was wrong; what was readable before the error is printed.
 */
int ut_report(const char *file, FILE *f, const char *const *words, int nwords,
	      const struct ut_idlist *cpus, const struct ut_idlist *pids, bool header,
	      char *err, size_t errlen);

/* ---- reading events: a trace.dat or running processes (reader/reader.c) -- */

/* What a record is. */
enum {
	UT_RECORD_CALL = 1, /* a function called (function tracer; function_graph entry) */
	UT_RECORD_RETURN,   /* a function returned (function_graph) */
	UT_RECORD_LOST,     /* only losses: @lost records missing on @cpu */
	UT_RECORD_OTHER,    /* markers, stacks, signals... */
};

/* One record, in time order over every thread. */
struct ut_record {
	unsigned kind;      /* UT_RECORD_* */
	uint64_t ts;        /* in the trace clock's unit (ns for ns clocks) */
	int32_t tid, pid;   /* thread, process (0 if unknown) */
	uint32_t cpu;
	uint64_t ip;        /* the function */
	uint64_t parent_ip; /* its caller (function tracer) */
	uint32_t depth;     /* function_graph */
	const char *func;   /* @ip's name (NULL: unknown); valid until the reader is closed */
	uint64_t lost;      /* records lost just before this one */
};

struct ut_reader;

/* A trace.dat, keeping what @f lets through (NULL: all).  NULL with @err on error. */
struct ut_reader *ut_reader_open_file(const char *path, const struct ut_stream_filter *f,
				      char *err, size_t errlen);
/*
 * What the buffers of the sessions of @pids (NULL: all) in @rundir hold now,
 * left as they were: a snapshot, read as its trace.dat would be (the same
 * records, names and losses) without making one.  The snapshot is taken
 * here and held in memory (48 bytes an event) until close.
 */
struct ut_reader *ut_reader_open_live(const char *rundir, const int32_t *pids, size_t npids,
				      const struct ut_stream_filter *f, char *err, size_t errlen);
/* The next record: 1, 0 at the end, or -errno with @err (what came before is good). */
int ut_reader_next(struct ut_reader *r, struct ut_record *rec, char *err, size_t errlen);
void ut_reader_close(struct ut_reader *r);
/* The tracer the trace was recorded with ("function", ...), NULL if it does not say. */
const char *ut_reader_tracer(struct ut_reader *r);

/* ---- sessions: the run-time directory's files (reader/sessions.c) ------- */

struct ut_ctl;

/*
 * Map the control block of session directory @sessdir (read-write if @rw):
 * the directory and <sessdir>/ctl opened without following links and
 * trusted (owner, mode), at least the ABI's size, the ABI's magic, version
 * and size.  0, or -errno with @err naming the file: -EPERM refused,
 * -EINVAL not a session of this ABI (or not ready yet), -ENOENT gone.
 */
int ut_sess_map_ctl(const char *sessdir, bool rw, struct ut_ctl **ctl, char *err, size_t errlen);
void ut_sess_unmap_ctl(struct ut_ctl *ctl);

/*
 * The same for the live-control code (common/control.c, marker.c,
 * instance.c, the mount), which has no message to give: read-write, NULL
 * with errno on error.
 */
struct ut_ctl *ut_live_map_ctl(const char *sessdir);
void ut_live_unmap_ctl(struct ut_ctl *ctl);
/*
 * For a reader that lives long and looks into every session's control
 * block on each request (the mount): from now on ut_live_map_ctl() and the
 * live streams map each block once and share it while it is used, unmapped
 * when unused for 2 s (reader/ctl_cache.c).
 */
void ut_live_keep_ctl_maps(void);

/*
 * Any session file @path (trusted, a regular file of at least @min bytes):
 * its first @want bytes mapped, or all of it when @want is 0.  0 or -errno
 * with @err naming the file.
 */
int ut_sess_map_file(const char *path, bool rw, size_t min, size_t want, void **map, size_t *len,
		     char *err, size_t errlen);

/*
 * The top level's function commands in force in a session and the counts
 * they have left (reader/cmdcounts.c): copies @out[] (UT_CMDS_MAX entries)
 * and returns how many, or -errno (-ENOENT: a process that keeps no table).
 */
struct ut_cmd_entry;
long ut_live_cmds(const char *sessdir, struct ut_cmd_entry *out);

/*
 * The event triggers in force in a session and the counts they have left
 * (reader/evtrig.c): copies @out[] (UT_EVTRIGS_MAX entries) and returns
 * how many, or -errno (-ENOENT: a process that never had triggers).
 */
struct ut_evtrig_entry;
long ut_live_evtrigs(const char *sessdir, struct ut_evtrig_entry *out);

/*
 * A session's hist table hist.<@n>: its header into @hdr and a malloc'd
 * copy of its entries in use into *@entries.  Returns how many, or -errno.
 */
struct ut_hist_hdr;
struct ut_hist_entry;
long ut_live_hist(const char *sessdir, uint32_t n, struct ut_hist_hdr *hdr,
		  struct ut_hist_entry **entries);

/*
 * The same, with (when the table has them, else *@vars NULL) a malloc'd
 * copy of each entry's variables, track and saved fields in *@vars, in the
 * entries' order (struct ut_hist_vars).
 */
struct ut_hist_vars;
long ut_live_hist_vars(const char *sessdir, uint32_t n, struct ut_hist_hdr *hdr,
		       struct ut_hist_entry **entries, struct ut_hist_vars **vars);

/*
 * The same again, with (when the table has them, else *@strs NULL and
 * @hdr's str_size 0) a malloc'd copy of each entry's strings: str_size
 * bytes each, in the entries' order (string keys, string variables, saved
 * strings: their layout is the trigger's, utrace's common/histstr.h).
 */
long ut_live_hist_all(const char *sessdir, uint32_t n, struct ut_hist_hdr *hdr,
		      struct ut_hist_entry **entries, struct ut_hist_vars **vars, char **strs);

/* Empty hist table hist.<@n> of a session (`hist:...:clear`).  0 or -errno. */
int ut_live_hist_clear(const char *sessdir, uint32_t n);

/*
 * Map thread buffer file @path (checked as above): only its header page if
 * @header_only, else all of it, the header's magic and version right and the
 * ring it announces inside the file.  *@map, *@len; 0 or -errno with @err.
 */
int ut_sess_map_buf(const char *path, bool rw, bool header_only, void **map, size_t *len,
		    char *err, size_t errlen);
/* The buffer of slot @slot of @sessdir (instance @inst's; 0: the top level's). */
int ut_sess_map_thread(const char *sessdir, int inst, uint32_t slot, bool rw, void **map,
		       size_t *len, char *err, size_t errlen);

/* ---- running processes: snapshots, pipes, profiles ---------------------- */

/*
 * Write the trace of instance @inst (instances/; 0: the top level) of the
 * sessions of @pids (NULL: every session) in @rundir to @output.  @consume
 * takes what is read (trace_pipe); otherwise the buffers are left as they were.  @opts_bits: the trace options stored
 * in the file.  Returns 0, -ESRCH if there is no session, or -errno.
 */
int ut_live_snapshot(const char *rundir, int inst, const int32_t *pids, size_t npids,
		     bool consume, const char *output, uint64_t opts_bits);

/*
 * The trace of those sessions printed to @f in the kernel's `trace` format
 * (@header) or as trace_pipe's bare lines.  @words: -O option words.  A
 * snapshot (not @consume) is printed straight from the buffers' merge, as
 * its trace.dat would print, without writing one; @consume with no header
 * is one trace_pipe read.
 */
int ut_live_print(const char *rundir, int inst, const int32_t *pids, size_t npids, bool consume,
		  FILE *f, const char *const *words, int nwords, bool header);

/*
 * ut_live_print() of the events with timestamps (the trace clock's, as
 * printed) in [@win->ts_min, @win->ts_max] (0: no bound) only, the
 * header counting those; @win->last_ts gets the latest one printed (0:
 * none).  The mount's snapshot cuts the trace at a trigger's time with it.
 */
struct ut_live_window {
	uint64_t ts_min, ts_max;
	uint64_t last_ts;
};
int ut_live_print_window(const char *rundir, int inst, const int32_t *pids, size_t npids,
			 bool consume, FILE *f, const char *const *words, int nwords, bool header,
			 struct ut_live_window *win);

/*
 * Thread @tid's trace (of process @pid), read from that thread's buffers
 * only and left as it was, printed as ut_live_print() prints.
 */
int ut_live_print_thread(const char *rundir, int32_t pid, int32_t tid, FILE *f,
			 const char *const *words, int nwords, bool header);

/*
 * The function profiler's tables of those sessions (trace_stat/function):
 * all threads merged then one table per thread (@tid -1), merged only (0),
 * or thread @tid's.  @graph_time: Time includes callees; @thresh_ns hides
 * rows whose average is below it.
 */
int ut_live_stat(const char *rundir, const int32_t *pids, size_t npids, FILE *f, bool graph_time,
		 unsigned names,
		 uint64_t thresh_ns, int32_t tid);

/*
 * How the profiler's tables print names (@names of ut_live_stat() and
 * ut_recorder_set_profile()): UT_STAT_DEMANGLE as the source spells them
 * (sym-demangle), UT_STAT_WIDE in a Function column as wide as the longest
 * (else the kernel's 30 characters, cut: trace_stat files keep its layout).
 */
#define UT_STAT_DEMANGLE 1u
#define UT_STAT_WIDE 2u

/*
 * A trace_pipe reader: each read consumes what the sessions' buffers got
 * since the previous one and prints it, merged in time order, without a
 * header and without going through a trace file.  Events whose successor
 * is not known yet (function_graph needs it to print leaves) wait for the
 * next read, unless @flush.  Created once per open; keeps each thread's
 * position, so it follows processes as they come and go.
 */
struct ut_live_stream;

struct ut_live_stream *ut_live_stream_new(const char *rundir, int inst, const int32_t *pids,
					  size_t npids, const char *const *words, int nwords);
/*
 * Print what is new to @f: the text formatted since the last read, or when
 * there is none, the first of what the buffers hold now (waiting for it to be
 * drained and formatted).  @flush: events waiting for a successor go out too.
 * *@alive: false once the wanted processes are gone and all they wrote was
 * printed.  Returns the bytes printed, or -errno.
 */
long ut_live_stream_read(struct ut_live_stream *s, FILE *f, bool flush, bool *alive);
/*
 * From now on, drain the buffers on a thread of the stream's own (every
 * 0.2 to 1 ms when idle) into a queue in memory, and format the queue on
 * another, at background priority: the programs never wait for the
 * formatting or the terminal.  Without it, each read drains and formats.
 */
int ut_live_stream_start(struct ut_live_stream *s);
/*
 * For a file that readers open, read and close (the mount's trace_pipe):
 * once called, the stream's drainer consumes only while a reader is inside
 * a read, between ut_live_stream_attend(s, true) and (s, false), as the
 * kernel's trace_pipe consumes only for a read.  Events that come while
 * nobody reads stay in the buffers (`trace` shows them; the next read takes
 * them), and a file closed after its last read takes nothing more: a
 * background pass of a closed reader would have consumed events no one
 * would ever read.  The call with false returns once no pass is running.
 */
void ut_live_stream_on_demand(struct ut_live_stream *s);
void ut_live_stream_attend(struct ut_live_stream *s, bool reading);
void ut_live_stream_free(struct ut_live_stream *s);

/* ---- the recorder ------------------------------------------------------- */

struct ut_recorder;
struct ut_opts;

struct ut_recorder *ut_recorder_new(const char *session_dir, const char *output,
				    const char *tracer, int clock, const struct ut_opts *opts);
/* The TSC conversion to hand to the traced processes (UT_CLOCK_ENV's format). */
void ut_recorder_clock_env(struct ut_recorder *r, char *buf, size_t len);
/*
 * Profile mode: finish() prints the function profiler's tables (the kernel's
 * trace_stat/function format, all threads merged, then one table per thread
 * when there are several) to @out instead of writing a trace file.
 * @graph_time: Time includes callees (graph-time); @thresh_ns hides rows
 * whose average is below it (tracing_thresh); @names: UT_STAT_DEMANGLE,
 * UT_STAT_WIDE (see ut_live_stat()).
 */
void ut_recorder_set_profile(struct ut_recorder *r, FILE *out, bool graph_time, unsigned names,
			     uint64_t thresh_ns);

/*
 * Live mode: read the sessions of running (or dead) processes in place --
 * only those of @pids (NULL: all), keeping their clocks and never removing
 * them.  @consume: take what is read from producer/consumer buffers (record
 * -P, trace_pipe); otherwise a snapshot that leaves every buffer as it was.
 * @pids must stay valid while @r is used.
 */
void ut_recorder_set_live(struct ut_recorder *r, const int32_t *pids, size_t npids, bool consume);

/*
 * The output's format: trace.dat version 7 with zstd-compressed sections at
 * @level (record's default: 1), or with @compress false version 6,
 * uncompressed (the default of a new recorder).
 */
void ut_recorder_set_compress(struct ut_recorder *r, bool compress, int level);
/*
 * With compression and write-while-running: @pace stores chunks raw (zstd
 * frames of raw blocks) while the writer is behind the program, so the
 * program never waits for the compressor, and compresses again once it
 * caught up (record's default; an explicit level turns it off).
 */
void ut_recorder_set_compress_pace(struct ut_recorder *r, bool pace);

/*
 * Write the trace while the program runs (record): a thread converts and
 * compresses what the drain takes, so finish() has only the last moments
 * left to write.  Only for clocks in nanoseconds of a clock the recorder
 * can read (not counter, uptime, x86-tsc), and not with live or profile
 * mode; otherwise the data is spooled and written at the end.
 */
void ut_recorder_set_streaming(struct ut_recorder *r, bool on);

/* Profile mode: only the merged table (@tid 0), or one thread's (@tid > 0). */
void ut_recorder_profile_only(struct ut_recorder *r, int32_t tid);

/* Live mode: the buffers of instance @inst (instances/) instead of the top level's. */
void ut_recorder_set_instance(struct ut_recorder *r, int inst);

/*
 * Lossless recording (record's default): the writers of the buffers @r
 * consumes wait for it when they are full instead of dropping, as long as
 * it keeps draining (a heartbeat in each buffer: docs/shm-abi.md).  The
 * processes must also run with "lossless 1" in their configuration.
 */
void ut_recorder_set_lossless(struct ut_recorder *r, bool on);

/* One pass over every thread of every session. Returns bytes copied, or <0. */
long ut_recorder_drain(struct ut_recorder *r);
/* The last pass met a writer waiting for room or a ring half full: drain again without a nap. */
bool ut_recorder_pressed(const struct ut_recorder *r);
/* Sleep @ns between passes, less if a writer starts waiting for room (lossless). */
void ut_recorder_nap(struct ut_recorder *r, long ns);
/* Last drain, merge, write the output file, remove the sessions. Returns 0 or -errno. */
int ut_recorder_finish(struct ut_recorder *r);
void ut_recorder_free(struct ut_recorder *r);

/*
 * Warnings the library has for the user (events lost, threads not traced,
 * a file it could not write): given to @warn, process-wide, never printed by
 * the library itself.  NULL (the default): dropped.
 */
void ut_read_set_warn(void (*warn)(const char *msg));

/*
 * A buffer file truncated by someone while a reader has it mapped: without
 * this, touching its lost pages kills the reader with SIGBUS.  With it (a
 * process-wide SIGBUS handler, asked for by a front end, once), each such
 * page reads as zeros -- that thread's events from there are lost, the
 * others are read -- and ut_read_bus_faults() counts them, for the front
 * end to say so.  Other SIGBUS go to the handler there was.  Return: 0, or
 * -1 with errno.
 */
int ut_read_guard_bus(void);
unsigned long ut_read_bus_faults(void);

/*
 * Make the calling thread -- one that empties rings while programs write
 * them -- real-time (SCHED_FIFO, the lowest priority) where allowed: root,
 * or RLIMIT_RTPRIO; @on false makes it a normal thread again.  A normal
 * thread woken on a CPU a traced program keeps busy may wait out the
 * program's whole time slice: 200 us naps were measured oversleeping by
 * 1-15 ms, against 2 ms at most in SCHED_FIFO, and a 2 MiB ring holds 2 ms
 * of fib.  Returns whether it is real-time: a real-time drainer must nap
 * between passes, never spin, and leave it for any long computation.
 */
bool ut_drain_realtime(bool on);

#endif

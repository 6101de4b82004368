/* SPDX-License-Identifier: MIT */
/*
 * utrace shared-memory ABI: what the traced process (libutrace.so) writes and
 * what readers in other processes (utrace record/show/extract, the tracefs
 * mount) map.  Everything here is fixed-width, explicitly padded and
 * size-asserted; no pointers, only offsets and indices.  Readers must treat
 * every value as untrusted and validate it.  See docs/shm-abi.md.
 *
 * A session is a directory  $RUNDIR/<pid>.<start-ns>/  holding:
 *   ctl        struct ut_ctl (the control block), mmap'ed by both sides
 *   modules    text, append-only, one line per object loaded or unloaded:
 *              "load|unload <bias-hex> <module-name or - for the program> <path>\n";
 *              a load is followed by "syms <bias-hex> <syms.N or -> <build-id
 *              hex or -> <size> <mtime-ns>\n": the object's identity and its
 *              symbol snapshot (common/symsnap.h)
 *   syms.<N>   object N's function symbols when it was loaded
 *   buf.<N>    the ring buffer of thread slot N: struct ut_buf_hdr + data pages
 *   prof.<N>   the function profiler's table of thread slot N
 *   config     the configuration wanted (text, common/config.h); writers
 *              hold flock(LOCK_EX) on it while they change it
 *   cmds       struct ut_cmds: the function commands in force and the count
 *              each has left (set_ftrace_filter's FUNC:CMD:count=N)
 *   evtrig     struct ut_evtrigs: the event triggers in force and the count
 *              each has left (events/SYS/EVT/trigger)
 *   hist.<N>   struct ut_hist_hdr + entries: hist trigger N's table
 *
 * Changing a running process's configuration (the control protocol):
 *   writer: flock(config), rewrite it, cfg_gen += 1, FUTEX_WAKE(&cfg_gen);
 *           then wait (FUTEX_WAIT on cfg_applied, with a timeout, checking
 *           that the process lives) until cfg_applied reaches its
 *           generation; read cfg_error / cfg_errmsg; unlock.
 *   agent:  (a thread in the process) waits on cfg_gen, reads "config",
 *           applies it or keeps the previous configuration on error,
 *           publishes cfg_error, cfg_errmsg and then cfg_applied,
 *           FUTEX_WAKE(&cfg_applied).
 */
#ifndef UTRACE_ABI_H
#define UTRACE_ABI_H

#include <stdint.h>
#include <assert.h>

#define UT_ABI_MAGIC 0x4c54435452545555ULL /* "UUTRTCTL" */
#define UT_BUF_MAGIC 0x5246554254525455ULL /* "UTRTBUFR" */
#define UT_ABI_VERSION 6 /* 6: GRAPH_RET records */

#define UT_MAX_THREADS 4096
#define UT_CTL_INST 8        /* buffer sets per thread: the top level, then instances/ */
#define UT_PAGE_SIZE 4096u   /* ring-buffer page: records never straddle one */
#define UT_BUF_HDR_SIZE 4096u

/* Tracers (ut_ctl.tracer). */
enum {
	UT_TRACER_NOP = 0,
	UT_TRACER_FUNCTION = 1,
	UT_TRACER_FUNCTION_GRAPH = 2,
};

/* Clocks (ut_ctl.clock): the kernel's trace_clock names. */
enum {
	UT_CLOCK_LOCAL = 0,   /* TSC scaled to ns (mult/shift below) */
	UT_CLOCK_GLOBAL = 1,  /* CLOCK_MONOTONIC */
	UT_CLOCK_COUNTER = 2, /* a per-process event counter */
	UT_CLOCK_UPTIME = 3,  /* jiffies (HZ=100) from CLOCK_MONOTONIC */
	UT_CLOCK_PERF = 4,    /* CLOCK_MONOTONIC */
	UT_CLOCK_MONO = 5,    /* CLOCK_MONOTONIC */
	UT_CLOCK_MONO_RAW = 6,/* CLOCK_MONOTONIC_RAW */
	UT_CLOCK_BOOT = 7,    /* CLOCK_BOOTTIME */
	UT_CLOCK_X86_TSC = 8, /* raw TSC cycles */
	UT_CLOCK_NR
};

/* ut_ctl.flags */
enum {
	UT_CTL_MARKERS = 1,   /* a markers-only session of a tool (no agent, no sites) */
};

/* ut_thread_slot.reserved[0] of a slot a tool writes trace_marker text into */
#define UT_SLOT_MARKER 0x4b52414d54525455ULL /* "UTRTMARK" */

/*
 * Thread slot states.  A slot is recycled (docs/shm-abi.md, "Recycling"):
 * ACTIVE (a thread writes its buffers) -> EXITED (its thread is gone; its
 * buffers stay readable) -> REUSING (a new thread takes the slot and its
 * buffers: readers skip it this pass) -> ACTIVE with gen + 1.
 */
enum { UT_SLOT_FREE = 0, UT_SLOT_ACTIVE = 1, UT_SLOT_EXITED = 2, UT_SLOT_REUSING = 3 };

struct ut_thread_slot {
	uint32_t state;   /* UT_SLOT_* */
	int32_t tid;
	char comm[16];    /* NUL padded */
	uint64_t reserved[1];
	uint64_t gen;     /* incarnation: + 1 (release) each time the slot is reused,
			   * before the new thread's first record is published */
};

/* A slot a reader may find data in (an exited thread's buffers are kept). */
static inline int ut_slot_readable(uint32_t state)
{
	return state == UT_SLOT_ACTIVE || state == UT_SLOT_EXITED;
}
static_assert(sizeof(struct ut_thread_slot) == 40, "ABI");

/*
 * ut_thread_slot.reserved[0] of a thread's slot: bit k set (release) once
 * buffer set k's file (buf.N, iK.buf.N) is made and its header written,
 * cleared before the file goes.  A reader that finds no file tells a
 * buffer deleted under it from one never made (a thread that only
 * profiled, or never wrote to that instance).  A marker slot holds
 * UT_SLOT_MARKER: its one buffer is the top level's.
 */
static inline int ut_slot_has_buf(const struct ut_thread_slot *s, unsigned inst)
{
	uint64_t v = __atomic_load_n(&s->reserved[0], __ATOMIC_ACQUIRE);

	return v == UT_SLOT_MARKER ? inst == 0 : inst < 64 && ((v >> inst) & 1);
}

#define UT_SNAP_TS 8 /* snapshot requests whose times a control block keeps */

struct ut_ctl {
	uint64_t magic;         /* UT_ABI_MAGIC */
	uint32_t version;       /* UT_ABI_VERSION */
	uint32_t size;          /* sizeof(struct ut_ctl) */
	int32_t pid;            /* tgid of the traced process */
	uint32_t alive;         /* 1 while the process runs; 0 after a clean exit */
	uint32_t tracer;        /* UT_TRACER_* in effect */
	uint32_t clock;         /* UT_CLOCK_* used for the record timestamps */
	uint32_t buf_size;      /* data bytes per thread buffer, power of two, >= 2 pages */
	uint32_t overwrite;     /* 1: flight recorder; 0: producer/consumer, drop when full */
	uint32_t nr_slots;      /* slots ever claimed (threads[0..nr_slots)) */
	uint32_t tracing_on;    /* recording switch (tracing_on) */
	/* local clock: ns = mono0 + ((tsc - tsc0) * tsc_mult) >> tsc_shift */
	uint64_t tsc0;
	uint64_t mono0;
	uint32_t tsc_mult;
	uint32_t tsc_shift;
	uint64_t start_ns;      /* CLOCK_MONOTONIC at session start */
	char comm[16];          /* process name at start */
	uint64_t modules_gen;   /* bumped after each append to "modules" */
	uint64_t threads_untraced; /* threads that found no free slot */
	uint32_t cfg_gen;       /* writers: bumped after rewriting "config" (futex word) */
	uint32_t cfg_applied;   /* agent: the last generation applied (futex word) */
	int32_t cfg_error;      /* agent: 0, or -errno of that generation */
	int32_t agent_tid;      /* agent: its thread id, 0 before it runs */
	char cfg_errmsg[104];   /* agent: why cfg_error, NUL-terminated */
	uint32_t flags;         /* UT_CTL_* */
	uint32_t inst_off;      /* bit K: instance K's tracing_on is 0 (set like tracing_on) */
	uint64_t dumps;         /* dump/cpudump function commands that fired */
	uint64_t cfg_apply_ns;  /* agent: how long applying the last generation took */
	/* slot recycling (docs/shm-abi.md, "Recycling") */
	uint64_t recycled_lost[UT_CTL_INST]; /* per buffer set (0: the top level):
				 * records of exited threads not taken before their
				 * buffers were reused (the total bound), and their
				 * refusals never told in a LOST record; a clear
				 * of the set's trace zeroes it */
	uint64_t buf_bytes;     /* bytes of thread buffers the process holds now */
	uint64_t total_bytes;   /* the bound on buf_bytes in effect (buffer_total_size_kb) */
	uint64_t threads_exited;/* threads whose slot went EXITED */
	uint64_t slots_reused;  /* slots handed to a new thread */
	uint64_t slot_looks;    /* exited slots looked at by new threads' claims
				 * (tests: a claim costs O(1), not a table scan) */
	uint64_t shm_faults;    /* pages of session files the file system could not
				 * give (full): their buffer or table went private */
	uint64_t snap_requests; /* snapshots asked for (`snapshot` triggers, hist's
				 * .snapshot()): the mount takes them when it sees the
				 * count move (tracefs/snapshot.c) */
	uint64_t snap_ts[UT_SNAP_TS]; /* request k's time (raw trace clock, as a record's)
				 * at [k % UT_SNAP_TS], stored before the count moves */
	uint64_t snap_claims;   /* requests numbered (snap_ts's index) */
	uint64_t recycled_told[UT_CTL_INST]; /* of recycled_lost[K], what a consuming
				 * reader (trace_pipe) told in a LOST line, claimed
				 * with a compare-and-swap: told once, by one reader */
	struct ut_thread_slot threads[UT_MAX_THREADS];
};
static_assert(sizeof(struct ut_ctl) == 512 + 40 * UT_MAX_THREADS, "ABI");

/*
 * Per-thread ring buffer: this header (one page) followed by buf_size bytes of
 * data, made of UT_PAGE_SIZE pages.  Positions (head, tail) are byte counts
 * that only grow; the data offset is pos & (buf_size - 1).
 *
 * The producer (the traced thread) writes a record at head, then publishes
 * written += 1 and head += size (release).  A record never crosses a page; when
 * the next record does not fit, a zero word (if room) marks the page's end and
 * the record starts on the next page.
 *
 * overwrite=0: the producer refuses (dropped += 1) a record that would make
 * head - tail exceed buf_size; the consumer advances tail.  overwrite=1: the
 * producer never looks at tail; the consumer notices head - tail > buf_size,
 * skips to the oldest whole page still intact and counts what it lost.
 *
 * Back-pressure (overwrite=0, configuration "lossless 1": utrace record):
 * instead of refusing, the producer waits for the consumer to advance tail,
 * as long as the consumer is alive: it stores CLOCK_MONOTONIC ns in beat_ns
 * on every pass over the buffer, and its pid in consumer_pid; a beat older
 * than UT_BP_STALE_NS means it is gone (the producer then refuses as above)
 * unless that process still runs (not stopped), for 10 s of silence at most
 * (docs/shm-abi.md, Back-pressure).  A producer that sleeps
 * sets waiting = 1 and FUTEX_WAITs on it; a consumer that finds it set after
 * consuming stores 0 and FUTEX_WAKEs it.  These words were reserved (zero)
 * before: old readers never beat, so old and new sides still drop.
 */
#define UT_BP_STALE_NS 1000000000ull
/* A silent consumer whose process runs (consumer_pid) is waited for this long. */
#define UT_BP_ALIVE_NS 10000000000ull
struct ut_buf_hdr {
	uint64_t magic;          /* UT_BUF_MAGIC */
	uint32_t version;
	uint32_t buf_size;       /* data bytes, power of two */
	int32_t tid;
	uint32_t slot;
	uint64_t gen;            /* the slot's incarnation this buffer was last set up for */
	uint64_t gen_pos;        /* where that incarnation's data starts (a page start);
				  * before it: an earlier thread's, taken or given up */
	uint64_t reserved0[3];
	/* producer-owned cache line */
	uint64_t head;           /* bytes written */
	uint64_t written;        /* records written (committed) */
	uint64_t dropped;        /* records refused because the buffer was full */
	uint64_t nested;         /* records refused: the tracer was re-entered (signal) */
	uint32_t waiting;        /* futex word: 1 while the producer sleeps for room */
	uint32_t pad1;
	uint64_t waits;          /* times the producer waited for room (back-pressure) */
	uint64_t wait_ns;        /* how long it waited in all (CLOCK_MONOTONIC ns) */
	uint64_t stuck_tail;     /* tail + 1 when a wait last gave up; 0: none */
	/* consumer-owned cache line; tail and tail_records move together, by a
	 * 16-byte compare-and-swap only (docs/shm-abi.md, "Consuming") */
	uint64_t tail;           /* bytes consumed */
	uint64_t tail_records;   /* records before tail when a reader cleared the
				  * buffer (tail = head: `echo > trace`) */
	uint64_t beat_ns;        /* back-pressure: the consumer's last pass (CLOCK_MONOTONIC) */
	int32_t consumer_pid;    /* back-pressure: the process that beats (0: not said) */
	uint32_t pad2;
	uint64_t reserved2[4];
};
static_assert(sizeof(struct ut_buf_hdr) == 192, "ABI");

/*
 * Records: 16 bytes, two 8-byte words.  word0 packs the type, the CPU and an
 * address; 0 marks the end of a page:
 *   bits  0..47  address (user-space addresses fit in 47 bits)
 *   bits 48..59  CPU number the thread ran on
 *   bits 60..63  record type (UT_REC_*), never 0
 * word1 is type-specific.  Timestamps are deltas: word1's top 16 bits hold
 * the cycles since the previous record of the thread; a TIME record carries a
 * full timestamp and starts every page (so a page decodes on its own, which
 * the overwrite-mode reader needs), and is written whenever a delta would not
 * fit in 16 bits -- only when events are rare, so its cost does not matter.
 */
enum {
	UT_REC_FUNCTION = 1,     /* word1: delta:16 | parent_ip:48 */
	UT_REC_GRAPH_ENTRY = 2,  /* word1: delta:16 | depth:32 */
	UT_REC_GRAPH_EXIT = 3,   /* word1: delta:16 | overrun:16 | depth:32,
				  * word2: duration (timestamp units), word3: return value */
	UT_REC_MARKER = 4,       /* address bits of word0: N; word1: delta:16; then N
				  * bytes of text and a NUL, padded to 16 (trace_marker) */
	UT_REC_LOST = 5,         /* word1: records refused before the next one */
	UT_REC_TIME = 6,         /* word1: the full timestamp */
	UT_REC_STACK = 7,        /* address bits of word0: N; word1: delta:16;
				  * then N return addresses, padded to 16 bytes
				  * (func_stack_trace: the function, then its callers) */
	UT_REC_SIGNAL = 8,       /* address bits of word0: the signal number;
				  * word1: delta:16 | exit:16 | depth:32 (function_graph:
				  * a handler starts, exit 0, or returns, exit 1; depth:
				  * the graph depth it runs at) */
	UT_REC_PROBE = 9,        /* address bits of word0: the USDT probe's address;
				  * word1: delta:16 | strbytes:16 (bits 8..23) | nargs:8;
				  * then nargs 8-byte argument values, then strbytes
				  * bytes of strings (a string argument's slot: its
				  * __data_loc), padded to 16 bytes */
	UT_REC_EVENT = 10,       /* a process event (common/procevents.h): address
				  * bits of word0: id:16 | len:16; word1: delta:16;
				  * then len bytes of the event's fields in the
				  * kernel's layout from offset 8, padded to 16 */
	UT_REC_GRAPH_RET = 11,   /* function_graph: the exit of the call whose
				  * GRAPH_ENTRY is the record just before it (a
				  * leaf, its duration this record's delta), whose
				  * return value is its low 32 bits extended;
				  * word1: delta:16 | retval:32 | sext:1 | depth:15
				  * (sext: sign-extended, else zero-extended) */
	UT_REC_INLINED = 14,     /* function_graph: an inlined instance was entered
				  * (-O inlined); address bits of word0: its site;
				  * word1: delta:16 | depth:32 */
};

#define UT_REC_STACK_MAX 32
#define UT_REC_PROBE_MAX_ARGS 12
#define UT_REC_EVENT_MAX 1024     /* payload bytes of an EVENT record */
#define UT_REC_PROBE_MAX_STRBYTES 3072u /* 12 strings of 256 bytes */
#define UT_REC_MARKER_MAX 4000   /* text bytes; the kernel's cap is 4054 */

#define UT_REC_SIZE 16           /* every record but GRAPH_EXIT (GRAPH_RET too) */
#define UT_REC_EXIT_SIZE 32      /* GRAPH_EXIT */
#define UT_REC_ADDR_MASK ((1ULL << 48) - 1)
#define UT_REC_CPU_SHIFT 48
#define UT_REC_CPU_MASK 0xfffULL
#define UT_REC_TYPE_SHIFT 60
#define UT_REC_DELTA_SHIFT 48
#define UT_REC_DELTA_MAX 0xffffULL

static inline uint64_t ut_rec_word0(uint64_t type, uint64_t cpu, uint64_t addr)
{
	return (type << UT_REC_TYPE_SHIFT) | ((cpu & UT_REC_CPU_MASK) << UT_REC_CPU_SHIFT) |
	       (addr & UT_REC_ADDR_MASK);
}

/*
 * The function profiler's per-thread table: file prof.<slot>, this header
 * then nr_entries entries, an open-addressing hash keyed by function address
 * (ip 0 = empty).  Times are in timestamp units (converted by the reader);
 * squares are 128-bit sums.  Hits are counted at entry, times at return, so
 * a function left by longjmp or an exception still counts as called.
 */
#define UT_PROF_MAGIC 0x464f525054525455ULL /* "UTRTPROF" */
#define UT_PROF_ENTRIES 8192u

struct ut_prof_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t nr_entries;     /* power of two */
	int32_t tid;
	uint32_t slot;
	uint64_t overflow;       /* calls not counted: the table was full */
	uint64_t cpu_time;       /* 1: times are ns of the thread's CPU time (nosleep-time) */
	uint64_t taken;          /* a consuming reader (record) took the counts of the slot's
				  * incarnation gen: gen + 1.  The runtime may then clear
				  * the table for the slot's next thread; untaken, the
				  * next thread's counts go on in it */
	uint64_t reserved[2];
};
static_assert(sizeof(struct ut_prof_hdr) == 64, "ABI");

struct ut_prof_entry {
	uint64_t ip;
	uint64_t hits;
	uint64_t time;           /* graph-time: including callees */
	uint64_t self;           /* excluding callees */
	uint64_t time_sq[2];     /* sum of time^2, low and high 64 bits */
	uint64_t self_sq[2];
};
static_assert(sizeof(struct ut_prof_entry) == 64, "ABI");

/*
 * The function commands of set_ftrace_filter in force (file "cmds"): the
 * table the traced threads look commands up in, so a counted command's
 * count goes down here as it acts and readers list what is left, as the
 * kernel's set_ftrace_filter does ("f:traceoff:count=1").  The runtime
 * rebuilds the table when the configuration changes, under a sequence
 * count: gen is odd while it writes; a reader copies the table and retries
 * if gen was odd or changed.  Counts change at any time (atomically).
 */
#define UT_CMDS_MAGIC 0x53444d4354525455ULL /* "UTRTCMDS" */
#define UT_CMDS_MAX 64
#define UT_CMD_NAME_MAX 128

struct ut_cmd_entry {
	uint64_t ip;             /* the function's site */
	int32_t type;            /* 0 traceon, 1 traceoff, 2 stacktrace, 3 dump, 4 cpudump */
	uint32_t counted;        /* 1: written with ":N" (lists "count=N") */
	int64_t count;           /* times left to act; -1: unlimited */
	char func[UT_CMD_NAME_MAX]; /* the function's name, NUL-terminated (truncated) */
	char module[60];         /* its module ("" for the program), NUL-terminated */
	uint32_t inst;           /* whose set_ftrace_filter: 0 the top level, K instances/ K */
};
static_assert(sizeof(struct ut_cmd_entry) == 216, "ABI");

struct ut_cmds {
	uint64_t magic;          /* UT_CMDS_MAGIC */
	uint32_t version;        /* UT_ABI_VERSION */
	uint32_t nr;             /* entries in use, <= UT_CMDS_MAX */
	uint64_t gen;            /* sequence count: odd while the table is rewritten */
	uint64_t reserved[5];
	struct ut_cmd_entry e[UT_CMDS_MAX];
};
static_assert(sizeof(struct ut_cmds) == 64 + 216 * UT_CMDS_MAX, "ABI");

/*
 * The event triggers in force (file "evtrig"), as "cmds" is for function
 * commands: the runtime rebuilds it when its configuration changes, under
 * the same sequence count (gen odd while it writes); counted triggers
 * count down in it (atomically), and readers list what is left.
 */
#define UT_EVTRIGS_MAGIC 0x4752545654525455ULL /* "UTRTVTRG" */
#define UT_EVTRIGS_MAX 64

struct ut_evtrig_entry {
	char sys[64];            /* the event's system (provider), NUL-terminated */
	char evt[64];            /* the event's name */
	char ident[192];         /* the trigger's identity (common/evtrigger.h's
				  * ut_evtrig_ident: "traceoff", "hist:keys=..") */
	int64_t count;           /* times left to act; -1: unlimited */
	uint32_t counted;        /* 1: written with ":N" */
	uint32_t hist;           /* a hist trigger: N + 1 of its file hist.<N>; else 0 */
	int32_t soft;            /* enable_event/disable_event: its target's state in
				  * the process: 1 enabled by a trigger, -1 disabled
				  * by one, 0 as set_event says */
	uint32_t reserved;
};
static_assert(sizeof(struct ut_evtrig_entry) == 344, "ABI");

struct ut_evtrigs {
	uint64_t magic;          /* UT_EVTRIGS_MAGIC */
	uint32_t version;        /* UT_ABI_VERSION */
	uint32_t nr;             /* entries in use, <= UT_EVTRIGS_MAX */
	uint64_t gen;            /* sequence count: odd while the table is rewritten */
	uint64_t reserved[5];
	struct ut_evtrig_entry e[UT_EVTRIGS_MAX];
};
static_assert(sizeof(struct ut_evtrigs) == 64 + 344 * UT_EVTRIGS_MAX, "ABI");

/*
 * A hist trigger's table (file hist.<N>): this header, then nr_slots
 * entries, an open-addressing hash of the keys (linear probing).  A
 * thread that hits the event claims an empty entry (state 0 -> 1, a
 * compare-and-swap), writes its keys (and their strings) and comm, publishes state 2
 * (release), then adds to hits and the sums atomically; an entry in state
 * 2 never changes keys.  Readers copy entries in state 2 only.  At most
 * max_entries entries are claimed (the kernel's size=); a hit that finds
 * none is counted in drops.  The table outlives its process: the file
 * stays with the session until the session is removed.
 *
 * Clearing (a reader's `hist:...:clear`): the reader sets clearing = 1,
 * zeroes the entries and counters, then clearing = 0; hits meanwhile are
 * dropped without counting.  paused: hits are not counted (`:pause`).
 */
#define UT_HIST_MAGIC 0x5453494854525455ULL /* "UTRTHIST" */
#define UT_HIST_KEYS 3
#define UT_HIST_VALS 3

struct ut_hist_hdr {
	uint64_t magic;          /* UT_HIST_MAGIC */
	uint32_t version;        /* UT_ABI_VERSION */
	uint32_t nr_slots;       /* entries after the header, a power of two */
	uint32_t max_entries;    /* the trigger's size= */
	uint32_t paused;         /* 1: hits are not counted */
	uint32_t clearing;       /* 1: a reader is clearing the table */
	uint32_t removed;        /* 1: the trigger was removed (readers skip the table) */
	uint64_t hits;           /* every hit counted, dropped ones too */
	uint64_t drops;          /* hits that found no entry (table full) */
	uint64_t entries;        /* entries claimed */
	char sys[64];            /* the event's system, NUL-terminated */
	char evt[64];            /* the event's name */
	char ident[192];         /* the trigger's identity (as in struct ut_evtrig_entry) */
	uint64_t vars_off;       /* 0, or where struct ut_hist_vars[nr_slots] start
				  * (a trigger with variables or onmax/onchange) */
	uint64_t str_off;        /* 0, or where the entries' strings start: str_size
				  * bytes per entry (string keys, string variables,
				  * saved strings: common/histstr.h lays them out) */
	uint32_t str_size;
	uint32_t str_keys;       /* the first str_keys of them: the keys' (compared) */
	/* .snapshot() (onmax/onchange): the value that took the last snapshot */
	uint64_t snap_taken;     /* bit 0: a snapshot was taken (set after the two below) */
	uint64_t snap_track;     /* the tracked value then (compare-and-swap: the new one) */
	uint64_t snap_slot;      /* 1 + the entry (slot) whose hit took it; a reader's copy of
				  * the header: 1 + its place among the entries returned */
	uint64_t reserved[3];
};
static_assert(sizeof(struct ut_hist_hdr) == 448, "ABI");

/*
 * An entry's variables (hist variables, histogram.rst "Inter-event hist
 * triggers"), beside entry i of the same table: the writer stores v[k]
 * then sets bit k of set (release); a trigger of another event that reads
 * the variable clears the bit (acquire, atomically: the kernel's
 * read-once) and then reads v[k].  track is onmax's maximum or onchange's
 * last value, save[] the fields saved with it, under the sequence count
 * seq (odd while they are rewritten).
 */
#define UT_HIST_VARS 4
#define UT_HIST_SAVES 8
struct ut_hist_vars {
	uint64_t set;            /* bit k: v[k] holds a value not read yet */
	uint64_t v[UT_HIST_VARS];
	uint64_t seq;
	uint64_t track;          /* onmax/onchange's value; tracked: bit 0 of flags */
	uint64_t flags;
	uint64_t save[UT_HIST_SAVES];
};
static_assert(sizeof(struct ut_hist_vars) == 128, "ABI");

struct ut_hist_entry {
	uint32_t state;          /* 0 empty, 1 being claimed, 2 in use */
	uint32_t pad;
	uint64_t key[UT_HIST_KEYS]; /* the key fields' values after their modifiers; a
				     * string key: a hash of its text (the text itself is
				     * in the entry's strings, compared too) */
	uint64_t hits;
	uint64_t val[UT_HIST_VALS]; /* sums of the value fields */
	char comm[16];           /* the thread's name when the entry was claimed */
};
static_assert(sizeof(struct ut_hist_entry) == 80, "ABI");

#endif

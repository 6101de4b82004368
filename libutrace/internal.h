/* SPDX-License-Identifier: MIT */
/*
 * libutrace internals: the runtime injected into traced programs.
 *
 * Two kinds of code live here.  Code on the tracing path (writer.c,
 * dispatch.c, tracers/) runs inside the trampoline, in any thread, possibly
 * inside a signal handler: no locks, no malloc, no stdio, no vector
 * registers (built with -mgeneral-regs-only).  Everything else (init.c,
 * sites.c, patch.c, session.c, select.c) runs at start-up, at dlopen/dlclose
 * and when the configuration changes, under ut_rt.lock.
 */
#ifndef UT_INTERNAL_H
#define UT_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "utrace/abi.h"
#include "common/config.h"
#include "common/kind.h"
#include "common/symsnap.h"
#include "common/usdt.h"
#include "arch.h"

#define UT_HIDDEN __attribute__((visibility("hidden")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ volatile("" ::: "memory")

#define UT_MAX_MODULES 1024

#define UT_NO_FUNC UINT32_MAX

/* Site states. */
enum { UT_SITE_OFF = 0, UT_SITE_FUNC = 1 };

struct ut_site {
	uint64_t addr;
	uint32_t func;   /* index into ut_rt.funcs; UT_NO_FUNC: not named (yet) */
	/* one byte for these three: 16 bytes a site (100,000 sites: 1.6 MB to map at start-up, not 2.4) */
	uint8_t len : 4;   /* 5 or 6 (a library call's hook: 1) */
	uint8_t state : 2; /* UT_SITE_OFF / UT_SITE_FUNC: what the bytes are now */
	uint8_t want : 2;  /* what they should be after the next ut_patch_apply() */
	uint8_t graph;   /* UT_GRAPH_*: set_graph_function / set_graph_notrace */
	uint8_t inst;    /* bit K: instance K traces this function */
};

enum {
	UT_GRAPH_ROOT = 1,      /* set_graph_function */
	UT_GRAPH_NOTRACE = 2,   /* set_graph_notrace */
	UT_GRAPH_CMD = 4,       /* has a function command (ut_rt.cmds->e) */
	UT_GRAPH_UNTRACED = 8,  /* enabled for commands or instances only: the top records nothing */
	UT_GRAPH_INST = 16,     /* some instance traces it (ut_site.inst) */
};

/*
 * instances/NAME: an independent function tracer, configuration and buffers
 * (files iK.buf.<slot>).  Index 0 is the top level (not used here), 1..7 are
 * instances; each has its document "config.iK".  Function tracer only, as on
 * kernels before function_graph could run in instances.  Each has its own
 * clock (the timestamps of its buffers), set_ftrace_pid and function
 * commands (tracers/commands.c).
 */
#define UT_MAX_INST UT_CTL_INST

struct ut_instance {
	bool active;          /* tracer function */
	bool overwrite;
	bool func_stack;      /* options/func_stack_trace */
	uint32_t buf_size;
	uint32_t clock;       /* UT_CLOCK_* of its timestamps */
	uint32_t nr_pids;     /* set_ftrace_pid: 0 = every thread */
	int32_t pids[UT_CFG_MAX_PIDS];
	char *filter, *notrace;
};


/*
 * A module's sites are all of one kind (common/kind.h): what put them
 * where they are, and what turning one on changes.  An object's compiler
 * sites are its own module; the sites made for it by other means form one
 * more module each, with the same path, name and bias, never logged in the
 * session (readers name their addresses from the object's symbols):
 * patched prologues (prologue.c: `of` the object's own module) and library
 * calls (plthook.c: a module of hooks of the functions the object at @path
 * defines, per scan; its sites are GOT slots, not the bytes at their
 * addresses).
 */
struct ut_module {
	char path[PATH_MAX];
	char name[64];        /* "" for the main program, else e.g. "libz" */
	uint64_t bias;
	uint64_t lo, hi;      /* address range covered by its sites */
	struct ut_site *sites;/* sorted by address */
	uint32_t nr_sites;
	bool alive;
	bool seen;            /* scratch: still mapped (ut_sites_forget_unloaded) */
	bool unlisted;        /* its functions left the filter table (select.c) */
	void *stub_page;      /* code page (stub) + data page (slot), near the module */
	uint64_t stub_addr;
	uint64_t *stub_slot;
	struct ut_objid id;   /* build-id, size, mtime when loaded (common/symsnap.h) */
	bool snap;            /* its symbols are in the session's "syms.<index>" */
	bool unnamed;         /* symbols not read yet (sites.c: deferred while tracing is off) */
	bool snap_due;        /* "syms.<index>" is named in the module list but not written yet */
	int symfd;            /* while unnamed: the file it was mapped from (-1 if none) */
	uint64_t sym_dev, sym_ino; /* that file's identity, to tell if the program closed or reused the fd */
	uint32_t index;       /* in ut_rt.mods */
	bool plt_scanned;     /* library calls (plthook.c): this object's GOT was looked at */
	struct ut_usdt_list usdt;     /* its USDT probes (usdt.c), link addresses */
	struct ut_probe *probes;      /* the same by run-time address, sorted */
	uint32_t nr_probes;
	uint64_t probe_lo, probe_hi;  /* the range of their addresses */
	uint8_t kind;         /* enum ut_kind (common/kind.h): what made its sites */
	bool kinds_done;      /* the other kinds were looked for (prologue.c) */
	bool inl_done;        /* its inlined instances were looked for (inlined.c) */
	bool usdt_planned;    /* its probes' jumps were planned (usdt_jump.c) */
	struct ut_module *of; /* a module of another kind: the object's own module */
	void *kind_data;      /* that kind's per-site data (prologue.c: one entry per site) */
};

/* An enabled-or-not USDT probe of a module (usdt.c). */
struct ut_probe {
	uint64_t addr;        /* run-time address of its nop */
	uint64_t semaphore;   /* run-time address of its semaphore, 0 if none */
	uint32_t idx;         /* in the module's usdt list */
	uint8_t on;           /* its nop is an int3 now (and its semaphore raised) */
	uint8_t want;         /* what the configuration wants */
	uint8_t usable;       /* decodable arguments and a 1-byte nop at addr */
	uint8_t ever;         /* was enabled once: an int3 there may be ours */
	uint8_t sel;          /* set_event enables it (on may be for its triggers only) */
	uint8_t strings;      /* an argument is a string (common/usdt_desc.h) */
	uint8_t mode;         /* UT_PROBE_*: how it is enabled (usdt_jump.c) */
	uint8_t why;          /* UT_PROBE_INT3: why not a jump (enum ut_pro_why, or 0xff: asked) */
	uint8_t fast;         /* a jump's hit needs no C library: selected, no filter,
			       * string or trigger */
	struct ut_usdt_jump *jump; /* UT_PROBE_JUMP: its window and slot */
	const struct ut_evf *filter; /* its event filter (common/evfilter.h), NULL: none */
	char *fprog;          /* the configuration's word @filter was decoded from */
};

enum { UT_PROBE_UNPLANNED, UT_PROBE_JUMP, UT_PROBE_INT3 };

/* A traceable function: one per site (the filter engine's table row). */
struct ut_func {
	const char *name;
	const char *module;   /* NULL for the main program */
	uint32_t mod;         /* index into ut_rt.mods */
	uint32_t site;        /* index into that module's sites */
};

/*
 * Another name of a function (a symbol at its address: an alias attribute,
 * a weak alias, C1/C2, identical code folded): filters select the function
 * by any of its names (select.c adds them to the filter table).
 */
struct ut_func_alias {
	uint32_t func;        /* index into ut_rt.funcs */
	const char *name;     /* in the module's symbol table, as ut_func.name */
};

/* function_graph: one frame per hooked call on the thread's shadow stack. */
struct ut_shadow_frame {
	uint64_t ret;      /* the real return address */
	uint64_t slot;     /* where it was on the stack */
	uint64_t func;
	uint64_t calltime; /* raw timestamp */
	uint32_t depth;
	uint32_t flags;    /* UT_FRAME_* */
	uint64_t child;    /* time spent in hooked callees (profiler self time);
			    * the tracer: a signal handler's signal (UT_FRAME_SIGNAL) */
	struct ut_prof_entry *prof; /* the profiler's row for func, or NULL */
	uint64_t entry_end; /* the ring position just after its GRAPH_ENTRY (0: none):
			     * still the head at its exit, the exit is a GRAPH_RET.
			     * (A frame is a cache line: trampoline.S finds it with
			     * a shift.) */
} __attribute__((aligned(64)));

enum { UT_FRAME_ROOT = 1, UT_FRAME_HIDDEN = 2, UT_FRAME_SIGNAL = 4 /* a signal handler */ };

#define UT_SHADOW_DEPTH 1024
#define UT_SHADOW_DROPPED 256

/*
 * One per stack: the thread's own (its "home") and one per coroutine stack
 * made by makecontext (libutrace/stacks.c); ut_thread.shadow is the one of
 * the stack that runs.
 */
struct ut_shadow {
	uint32_t top;      /* frames in use */
	uint32_t roots;    /* set_graph_function frames among them */
	uint32_t hidden;   /* set_graph_notrace frames among them */
	uint32_t next_dropped;
	uint64_t overrun;  /* calls not hooked: the shadow stack was full */
	/* A coroutine's stack [lo, hi); both 0 for a thread's own stack. */
	uint64_t lo, hi;
	/* The depth of f[0]: a coroutine's frames nest below the frame that started it. */
	uint32_t base;
	uint32_t pad;
	/*
	 * The last frames dropped as stale (skipped by a longjmp, or so it
	 * seemed): if one of them returns after all -- a coroutine on another
	 * stack close by -- its real return address is still known here.
	 */
	struct {
		uint64_t slot, ret;
	} dropped[UT_SHADOW_DROPPED];
	struct ut_shadow_frame f[];
};

/* Hot-path copy of the function_graph settings. */
struct ut_graph_cfg {
	bool filtered;        /* set_graph_function or set_graph_notrace in use */
	bool roots;           /* set_graph_function in use: trace only below its functions */
	uint32_t max_depth;   /* 0: unlimited */
	uint64_t thresh;      /* in timestamp units; 0: off */
};

struct ut_runtime {
	pthread_mutex_t lock;
	bool ready;
	bool sites_off;       /* utrace_set_tracing(0): every site a nop */
	int memfd;            /* /proc/self/mem, for writing text */
	uint64_t self_base;   /* libutrace.so's load address: never traced */
	struct ut_cfg cfg;    /* the configuration in force (common/config.h) */
	uint32_t buf_size;    /* cfg.buf_kb as a buffer size: data bytes per thread */
	/* session */
	char dir[PATH_MAX];
	int dirfd;
	int rootfd;           /* the run-time directory, checked (common/safedir.h) */
	struct ut_ctl *ctl;
	/* modules and functions */
	struct ut_module *mods[UT_MAX_MODULES];
	uint32_t nr_mods;
	struct ut_func *funcs;
	uint32_t nr_funcs, cap_funcs;
	/* hot-path copies of the configuration */
	long rseq_cpu_off;    /* thread-pointer offset of rseq cpu_id (or of a 0) */
	uint64_t counter;     /* the "counter" clock */
	struct ut_graph_cfg graph;
	uint32_t pid_gen;     /* bumped when cfg.pids changes (threads re-check) */
	uint32_t fast_gen;    /* pid_gen, or not if the fast entries may not run (fast_gate.c) */
	uint32_t fast_ret_gen;/* the same for utrace_graph_return's fast path */
	uint32_t nr_cmds;     /* function commands in cmds->e[] */
	uint32_t nr_inst;     /* active instances */
	struct ut_instance inst[UT_MAX_INST];
	struct ut_cmds *cmds; /* the session's "cmds" (shared: readers list the counts) */
	int32_t pid;          /* getpid(), kept current across fork */
	/* the functions' other names, in the order the functions were named (cold: last) */
	struct ut_func_alias *aliases;
	size_t nr_aliases, cap_aliases;
};

extern struct ut_runtime ut_rt UT_HIDDEN;

/* Per-thread state, initial-exec TLS: the hot path reaches it with %fs. */
struct ut_thread {
	uint8_t *data;           /* ring data */
	uint64_t mask;           /* buf_size - 1 */
	uint64_t head;           /* producer position (private copy) */
	uint64_t limit;          /* head may grow to this without the slow path */
	struct ut_buf_hdr *hdr;
	uint32_t busy;           /* recursion guard */
	uint32_t failed;         /* buffer creation failed: never retry */
	uint64_t dropped_told;   /* hdr->dropped already reported by a LOST record */
	uint64_t last_ts;        /* timestamp of the previous record (deltas) */
	uint64_t new_ts;         /* timestamp of the record being written */
	struct ut_shadow *shadow;/* function_graph return stack of the running stack */
	struct ut_prof_hdr *prof;/* profiler table (tracers/profiler.c) */
	uint32_t slot;           /* thread slot in the control block, once claimed */
	uint32_t has_slot;
	uint32_t pid_gen;        /* ut_rt.pid_gen this thread was found wanted at */
	uint32_t inst;           /* whose buffer: 0 the top level, K instance K */
	int32_t tid;             /* cached gettid(), 0 = not yet */
	struct ut_shadow *home;  /* the shadow stack of the thread's own stack */
	uint8_t *pf_data;        /* the ring pf_next is about (prefault.c) */
	uint64_t pf_next;        /* position up to which its pages were asked for */
};

extern __thread struct ut_thread ut_self UT_HIDDEN;
/* The thread's buffers in instances 1..UT_MAX_INST-1 (index 0 unused). */
extern __thread struct ut_thread ut_inst_self[UT_MAX_INST] UT_HIDDEN;

/* writer.c */
bool ut_writer_slow(struct ut_thread *t, unsigned size) UT_HIDDEN;
void ut_writer_time(struct ut_thread *t, uint64_t ts) UT_HIDDEN;
uint64_t ut_clock_slow(uint32_t clock) UT_HIDDEN;
void ut_writer_forget(void) UT_HIDDEN;

/* backpressure.c: record's lossless mode, a full buffer waits for the recorder */
void ut_bp_arm(struct ut_thread *t) UT_HIDDEN;
bool ut_bp_wait(struct ut_thread *t, uint64_t need) UT_HIDDEN;
/* The heartbeat's clock: CLOCK_MONOTONIC in ns. */
uint64_t ut_bp_now(void) UT_HIDDEN;
/* Whether a consumer passed over buffer @h less than UT_BP_STALE_NS before @now. */
bool ut_bp_fresh(const struct ut_buf_hdr *h, uint64_t now) UT_HIDDEN;
bool ut_bp_beaten(const struct ut_buf_hdr *h, uint64_t now) UT_HIDDEN;
bool ut_bp_named_runs(const struct ut_buf_hdr *h, uint64_t now, uint64_t *looked) UT_HIDDEN;

static inline uint64_t ut_now_in(uint32_t clock)
{
	if (likely(clock == UT_CLOCK_LOCAL || clock == UT_CLOCK_X86_TSC))
		return ut_arch_cycles();
	return ut_clock_slow(clock);
}

static inline uint64_t ut_now(void)
{
	return ut_now_in(ut_rt.cfg.clock);
}

/*
 * Record writing, shared by the tracers: reserve @size bytes at t->head and
 * get the time delta to store, write the words, then commit.  The fast
 * reservation fails (NULL) for anything unusual; the slow one handles it.
 * The caller holds t->busy.
 */
uint64_t *ut_rec_reserve_slow(struct ut_thread *t, unsigned size, uint64_t *delta) UT_HIDDEN;

static inline uint64_t *ut_rec_reserve(struct ut_thread *t, unsigned size, uint64_t *delta)
{
	uint64_t pos = t->head, ts;

	if (unlikely(pos + size > t->limit || ut_rt.cfg.clock != UT_CLOCK_LOCAL))
		return ut_rec_reserve_slow(t, size, delta);
	ts = ut_arch_cycles();
	if (unlikely(ts - t->last_ts > UT_REC_DELTA_MAX))
		return ut_rec_reserve_slow(t, size, delta);
	t->new_ts = ts;
	*delta = ts - t->last_ts;
	return (uint64_t *)(t->data + (pos & t->mask));
}

/*
 * The same for a buffer of an instance (t->inst != 0), whose clock may not
 * be the top level's: always the slow reservation, which reads the clock
 * of the buffer (instance events are on the slow path anyway).
 */
static inline uint64_t *ut_rec_reserve_any(struct ut_thread *t, unsigned size, uint64_t *delta)
{
	if (t->inst)
		return ut_rec_reserve_slow(t, size, delta);
	return ut_rec_reserve(t, size, delta);
}

static inline void ut_rec_commit(struct ut_thread *t, unsigned size)
{
	t->last_ts = t->new_ts;
	t->head += size;
	t->hdr->written++;
	__atomic_store_n(&t->hdr->head, t->head, __ATOMIC_RELEASE);
}

/*
 * The recursion guard around everything a tracer does for one call: false
 * if this thread is already inside the tracer (a signal arrived there), in
 * which case the event is counted as nested and dropped, never corrupting
 * the buffer being written.
 */
static inline bool ut_enter(struct ut_thread *t)
{
	if (unlikely(t->busy)) {
		if (t->hdr)
			t->hdr->nested++;
		return false;
	}
	t->busy = 1;
	barrier();
	return true;
}

static inline void ut_leave(struct ut_thread *t)
{
	barrier();
	t->busy = 0;
}

/* writer.c: set_ftrace_pid changed; is this thread still wanted? */
bool ut_pid_recheck(struct ut_thread *t) UT_HIDDEN;

/*
 * tracers/fast_gate.c: ut_rt.fast_gen and fast_ret_gen from the configuration
 * (after it changes, under ut_rt.lock); closed, before a session goes away.
 */
#define UT_FAST_CLOSED 0x80000000u
void ut_fast_gate_update(void) UT_HIDDEN;
void ut_fast_gate_close(void) UT_HIDDEN;

/*
 * commands.c: run @ip's function commands and record it in the instances
 * that trace it; false if the top level must not record the call.
 */
bool ut_cmd_hit(struct ut_thread *t, uint64_t ip, uint64_t parent) UT_HIDDEN;

/* Record now? tracing_on, and this thread passes set_ftrace_pid. */
static inline bool ut_tracing_on(struct ut_thread *t)
{
	const struct ut_ctl *ctl = ut_rt.ctl;

	return likely(ctl != NULL) && likely(ctl->tracing_on) &&
	       (likely(t->pid_gen == __atomic_load_n(&ut_rt.pid_gen, __ATOMIC_RELAXED)) ||
		ut_pid_recheck(t));
}

static inline uint32_t ut_cpu(void)
{
	return ut_arch_tp_load32(ut_rt.rseq_cpu_off);
}

/* cmds.c: the function-command table and its counts */
struct ut_fset;
/* How many leading words of @filter were applied before (their commands keep their counts). */
size_t ut_cmds_retained(const char *filter) UT_HIDDEN;
/* Give the commands of @filter that the table in force has the count they have left. */
void ut_cmds_carry(struct ut_fset *filter) UT_HIDDEN;
/* Make the commands of @filter and of each instance's @ifilter[K] the table in force. */
void ut_cmds_publish(struct ut_fset *filter, struct ut_fset *const *ifilter) UT_HIDDEN;
/* The filter text now in force (the reference for ut_cmds_retained()). */
void ut_cmds_applied(const char *text) UT_HIDDEN;
/* Does the site at @addr have a command? */
bool ut_cmds_has(uint64_t addr) UT_HIDDEN;

/* session.c */
int ut_session_create(char *why, size_t whylen) UT_HIDDEN;
void ut_session_forget(void) UT_HIDDEN;
void ut_session_discard(void) UT_HIDDEN;
void ut_session_publish(void) UT_HIDDEN;
void ut_session_log_module(const char *what, const struct ut_module *m) UT_HIDDEN;
struct ut_symtab;
void ut_session_snapshot_module(struct ut_module *m, const struct ut_symtab *st) UT_HIDDEN;
void ut_session_link_snapshots(int from_dirfd) UT_HIDDEN;
void ut_session_exit(void) UT_HIDDEN;
/* session_gc.c: sessions nobody will want (a clean exit with nothing written; dead ones) */
void ut_session_gc_self(void) UT_HIDDEN;
void ut_session_gc_dead(void) UT_HIDDEN;
void ut_clock_init(struct ut_ctl *ctl) UT_HIDDEN;
void ut_clock_settle(struct ut_ctl *ctl) UT_HIDDEN;

/* sites.c */
int ut_sites_scan_all(void) UT_HIDDEN;
void ut_sites_name_all(void) UT_HIDDEN;
int ut_sites_forget_unloaded(void) UT_HIDDEN;
struct ut_site *ut_sites_find(uint64_t addr) UT_HIDDEN;
struct ut_site *ut_sites_find_in(uint64_t addr, struct ut_module **mod) UT_HIDDEN;
struct ut_symtab *ut_sites_symbols(const struct ut_module *m) UT_HIDDEN;
uint32_t ut_sites_add_func(const struct ut_module *m, const char *name, uint32_t site) UT_HIDDEN;
int ut_sites_add_module(struct ut_module *m) UT_HIDDEN;

/* prologue.c: patched prologues (common/prologue.h) */
void ut_prologue_sync(void) UT_HIDDEN;
int ut_prologue_install(void) UT_HIDDEN;
uint64_t ut_prologue_resume(const struct ut_module *m, const struct ut_site *s) UT_HIDDEN;
bool ut_prologue_signal(const siginfo_t *si, ucontext_t *uc) UT_HIDDEN;
uint64_t ut_ool_trap(uint64_t a) UT_HIDDEN;

/* inlined.c: inlined instances as sites (-O inlined) */
void ut_inlined_sync(void) UT_HIDDEN;

/*
 * tracers/plt.c: non-zero while this thread runs the runtime's own code
 * (start-up, dlopen's scan, the runtime's threads): the library calls made
 * meanwhile (libc calling malloc for opendir) are not the program's.
 */
extern __thread uint32_t ut_quiet UT_HIDDEN;

/* plthook.c: library calls through the PLT and GOT */
int ut_plt_scan(void) UT_HIDDEN;
int ut_plt_apply(void) UT_HIDDEN;

/* patch.c */
int ut_patch_init(void) UT_HIDDEN;
int ut_patch_prepare_module(struct ut_module *m) UT_HIDDEN;
int ut_patch_apply(void) UT_HIDDEN;
/* Write one byte of text at @addr (no protocol: a 1-byte instruction); sync later. */
int ut_patch_byte(uint64_t addr, uint8_t byte) UT_HIDDEN;
/* Every core of the process fetches the text written so far. */
void ut_patch_sync(void) UT_HIDDEN;
/* In a forked child, before it patches anything: its own /proc/self/mem and membarrier. */
void ut_patch_after_fork(void) UT_HIDDEN;

/* usdt.c: USDT probes */
struct Elf;
void ut_usdt_scan(struct ut_module *m, struct Elf *elf) UT_HIDDEN;
int ut_usdt_apply(void) UT_HIDDEN;
bool ut_usdt_trap(ucontext_t *uc) UT_HIDDEN;
/*
 * The string at @ptr of the process into @dst (UT_EV_MAX_STR bytes), read
 * so that a bad pointer cannot fault: its length with the NUL, 0 if it
 * could not be read (the event says "(fault)").
 */
unsigned ut_usdt_copy_string(char *dst, uint64_t ptr) UT_HIDDEN;
/* The hit of an enabled probe @r of @m (the int3's or a jump's slow path), with its context @uc. */
void ut_usdt_hit(const struct ut_module *m, const struct ut_probe *r, const ucontext_t *uc)
	UT_HIDDEN;

/*
 * usdt_jump.c: probes enabled with a jump (arch.h, "USDT probes enabled
 * with a jump").  Under ut_rt.lock.
 */
struct ut_usdt_jump {
	struct ut_ool *ool;            /* the window and slot (libutrace/ool.h) */
	const struct ut_module *m;
	struct ut_probe *r;
	uint8_t orig[32];              /* the window's bytes before the jump */
};
/* Plan module @m's probes once: UT_PROBE_JUMP with their slots written, or UT_PROBE_INT3. */
void ut_usdt_jump_plan(struct ut_module *m) UT_HIDDEN;
/* Install the jumps of @v (@n probes); one that cannot be becomes UT_PROBE_INT3.  0 or -errno. */
int ut_usdt_jump_install(struct ut_probe **v, uint32_t n) UT_HIDDEN;
/* Put probe @r's window back as it was (its slot stays).  0 or -EIO. */
int ut_usdt_jump_remove(struct ut_probe *r) UT_HIDDEN;
/* The bytes probe @r owns: its jump's window, else its nop. */
void ut_usdt_jump_window(const struct ut_probe *r, uint64_t *lo, uint64_t *hi) UT_HIDDEN;
/* Whether a probe of module @m owns a byte of [@lo, @hi) (its nop, or its jump's window). */
bool ut_usdt_jump_owns(const struct ut_module *m, uint64_t lo, uint64_t hi) UT_HIDDEN;
/* A trap at @a, the first byte of a jump being installed or removed: where to resume, or 0. */
uint64_t ut_usdt_jump_trap(uint64_t a) UT_HIDDEN;
/* The trampoline's C sides (usdt_tramp.S): @frame holds the registers at the probe. */
int ut_usdt_jump_hit(const struct ut_usdt_jump *j, uint64_t *frame) UT_HIDDEN;
void ut_usdt_jump_slow(const struct ut_usdt_jump *j, uint64_t *frame) UT_HIDDEN;

/* procevents.c: process events (common/procevents.h) */
struct ut_pev {
	unsigned id, len;               /* len: payload bytes (the record's from offset 8) */
	uint8_t b[UT_REC_EVENT_MAX];
};
void ut_procev_init(void) UT_HIDDEN;
/* procfree.c: sched_process_free at wait*(); the real calls looked up */
bool ut_procfree_init(void) UT_HIDDEN;
void ut_procev_apply(void) UT_HIDDEN;
bool ut_procev_on(unsigned id) UT_HIDDEN;
/* An event's payload: its fixed fields zero, then each field at its record offset. */
void ut_pev_init(struct ut_pev *e, unsigned id) UT_HIDDEN;
void ut_pev_put(struct ut_pev *e, unsigned off, const void *v, unsigned size) UT_HIDDEN;
void ut_pev_str(struct ut_pev *e, unsigned off, const char *s) UT_HIDDEN;
void ut_pev_emit(const struct ut_pev *e) UT_HIDDEN;
void ut_procev_forked(pid_t child) UT_HIDDEN;
void ut_procev_exec(void) UT_HIDDEN;
void ut_procev_exit(bool group_dead) UT_HIDDEN;
void ut_procev_comm(char comm[16]) UT_HIDDEN;
int32_t ut_procev_prio(void) UT_HIDDEN;
/* eventpid.c: set_event_pid (the configuration's event_pid list, options/event-fork) */
struct ut_evpid {
	uint32_t gen;   /* ut_evpid_gen the verdict was taken at */
	bool skip;      /* this thread's events are not recorded */
};
extern uint32_t ut_evpid_gen UT_HIDDEN;
extern __thread struct ut_evpid ut_evpid_self UT_HIDDEN;
bool ut_evpid_recheck(void) UT_HIDDEN;
void ut_evpid_changed(void) UT_HIDDEN;
void ut_evpid_forked(bool parent_passed, bool parent_notraced) UT_HIDDEN;
/* Whether set_event_notrace_pid lists this process or the calling thread. */
bool ut_evpid_notraced(void) UT_HIDDEN;
bool ut_evpid_inherit(void) UT_HIDDEN;
/* Whether this thread's events are recorded (set_event_pid); no system call once known. */
static inline bool ut_evpid_ok(void)
{
	if (likely(ut_evpid_self.gen == __atomic_load_n(&ut_evpid_gen, __ATOMIC_RELAXED)))
		return !ut_evpid_self.skip;
	return ut_evpid_recheck();
}
/* sigevents.c: signal_generate and signal_deliver; the real senders looked up at start-up */
void ut_sigev_init(void) UT_HIDDEN;
/* evfilter.c: event filters (events/SYS/EVT/filter) */
struct ut_evf;
void ut_evf_follow(const char *ev, const struct ut_evf **f, char **prog) UT_HIDDEN;
/*
 * Whether the event at @rec (@len bytes, as its format lays it out: the
 * common fields, 8-byte slots, the strings their __data_loc slots locate)
 * passes filter @f; @rec's common fields are filled in here.
 */
bool ut_evf_passes(const struct ut_evf *f, uint64_t *rec, size_t len, uint32_t cpu) UT_HIDDEN;
/* signal_generate of the SIGCHLD this process's exit() sends its parent */
void ut_sigev_exiting(void) UT_HIDDEN;
/* evtrigger.c, evhist.c: event triggers (events/SYS/EVT/trigger) */
struct ut_evtrig;
int ut_evtrig_apply(void) UT_HIDDEN;
bool ut_evtrig_has_tables(void) UT_HIDDEN;
/* Whether @p's event has triggers (or is a trigger's target): its probe is armed. */
bool ut_evtrig_arms(const struct ut_usdt_probe *p) UT_HIDDEN;
/* Whether a hit of @p is recorded (@enabled: set_event selects it; triggers may override). */
bool ut_evtrig_records(const struct ut_usdt_probe *p, bool enabled) UT_HIDDEN;
void ut_evtrig_hit(const struct ut_module *m, const struct ut_probe *r,
		   const ucontext_t *uc) UT_HIDDEN;
/* The same for events that are not probes (process events), by name, fields as slots. */
bool ut_evtrig_arms_named(const char *sys, const char *evt) UT_HIDDEN;
bool ut_evtrig_records_named(const char *sys, const char *evt, bool enabled) UT_HIDDEN;
void ut_evtrig_hit_event(const char *sys, const char *evt, const uint64_t *args,
			 unsigned nargs, uint64_t site) UT_HIDDEN;

/* select.c */
/* __cxa_demangle of the C++ runtime the program loaded, malloc'd (cxxdemangle.c); NULL if none. */
char *ut_rt_demangle(const char *mangled) UT_HIDDEN;

int ut_select_apply(char *err, size_t errlen) UT_HIDDEN;
bool ut_select_idle(void) UT_HIDDEN;
void ut_select_reconfigure(void) UT_HIDDEN;


/* agent.c */
int ut_agent_start(void) UT_HIDDEN;
/* A detached thread of the runtime, every signal blocked (libutrace/rt_thread.c). */
int ut_rt_thread_start(void *(*fn)(void *), void *arg, size_t stack) UT_HIDDEN;
int ut_session_write_config(void) UT_HIDDEN;
/* prefault.c: the thread that populates ring pages ahead of their writers */
int ut_prefault_start(void) UT_HIDDEN;
void ut_prefault_ahead(struct ut_thread *t) UT_HIDDEN;
/* NULL with errno: ENOENT, EPERM (refused, @why says why: common/safedir.h), ... */
char *ut_read_file_at(int dirfd, const char *name, size_t *lenp, char *why, size_t whylen)
	UT_HIDDEN;
/* 0, or -EPERM if a document was refused (@why); the instance is then off */
int ut_instances_load(int dirfd, bool initial, char *why, size_t whylen) UT_HIDDEN;
/* follow.c: what exec'ed children need to be traced too (at start-up) */
void ut_follow_init(void) UT_HIDDEN;
void ut_follow_children(bool follow) UT_HIDDEN;
/* init.c: apply the configuration to the sites there are now (under ut_rt.lock) */
void ut_update_locked(void) UT_HIDDEN;
/* init.c: a buffer size in bytes for @kb KiB (a power of two, >= 2 pages) */
uint32_t ut_round_buf_size(unsigned long kb) UT_HIDDEN;

/* slots.c: this thread's slot in the control block (claimed once, recycled). */
int ut_thread_slot(struct ut_thread *t, uint32_t *slot) UT_HIDDEN;
/* slots.c: create and map a session file for a slot. */
/* @out = @prefix, @n in decimal, @suffix (libutrace/numname.c: no snprintf). */
void ut_num_name(char *out, const char *prefix, uint32_t n, const char *suffix) UT_HIDDEN;
void *ut_thread_file(const char *prefix, uint32_t slot, size_t size) UT_HIDDEN;
/* slots.c: @t's buffer in @slot (the slot's, reused, or a new one) */
bool ut_slot_buffer(struct ut_thread *t, uint32_t slot, uint32_t size) UT_HIDDEN;
/* slots.c: the buffer or table mapping holding @addr (shmfault.c) */
bool ut_slot_mapping(uintptr_t addr, uintptr_t *start, size_t *len) UT_HIDDEN;
/* shmfault.c: SIGBUS on the session's files dealt with (from then on) */
int ut_shmfault_init(void) UT_HIDDEN;
/* slots.c: the slot's profiler table (*@fresh: just made) */
struct ut_prof_hdr *ut_slot_prof(uint32_t slot, size_t size, bool *fresh) UT_HIDDEN;
/* slots.c: the thread leaves its slot (exits, or moves to a new buffer size) */
void ut_slot_leave(bool exiting) UT_HIDDEN;
void ut_slots_init(void) UT_HIDDEN;
void ut_slots_forget(void) UT_HIDDEN;

/*
 * tracers/signal_marks.c: a function called by the kernel's signal frame
 * (its return address is the signal restorer) is a signal handler; the
 * graph marks its start and end as the kernel marks interrupts.
 */
extern uint64_t ut_sig_restorer UT_HIDDEN;
int ut_sigmark_enter(struct ut_thread *t, const uint64_t *slot, uint32_t depth) UT_HIDDEN;
void ut_sigmark_exit(struct ut_thread *t, const struct ut_shadow_frame *f) UT_HIDDEN;

/* stack.c: a STACK record for the function at @site (func_stack_trace). */
void ut_stack_record(struct ut_thread *t, uint64_t site) UT_HIDDEN;
/* The same from a trap (a USDT probe's): the interrupted code goes on at @resume. */
void ut_stack_record_from(struct ut_thread *t, uint64_t site, uint64_t resume) UT_HIDDEN;

/* tracers/profiler.c */
struct ut_prof_entry *ut_prof_hit(struct ut_thread *t, uint64_t ip) UT_HIDDEN;
uint64_t ut_prof_now(void) UT_HIDDEN;

/* Where the profiler's hash table looks for @ip first (linear probing from there). */
#define UT_PROF_HASH_MUL 0x9e3779b97f4a7c15ull /* trampoline.S hashes the same way */
#define UT_PROF_HASH_SHIFT 40
static inline uint32_t ut_prof_home(const struct ut_prof_hdr *h, uint64_t ip)
{
	return (uint32_t)((ip * UT_PROF_HASH_MUL) >> UT_PROF_HASH_SHIFT) & (h->nr_entries - 1);
}

static inline void ut_prof_add_sq(uint64_t sq[2], uint64_t v)
{
	unsigned __int128 s = ((unsigned __int128)sq[1] << 64) | sq[0];

	s += (unsigned __int128)v * v;
	sq[0] = (uint64_t)s;
	sq[1] = (uint64_t)(s >> 64);
}

/* A call of @e's function took @time, @self of it outside hooked callees. */
static inline void ut_prof_time(struct ut_prof_entry *e, uint64_t time, uint64_t self)
{
	e->time += time;
	e->self += self;
	ut_prof_add_sq(e->time_sq, time);
	ut_prof_add_sq(e->self_sq, self);
}

/* function_graph: a return with no frame; prints and aborts. */
void ut_graph_lost_frame(uint64_t sp) __attribute__((noreturn)) UT_HIDDEN;
/* tracers/function_graph.c: drop the running stack's frames below @sp (unwound). */
void ut_graph_drop_below(struct ut_shadow *sh, uint64_t sp) UT_HIDDEN;
int ut_graph_filter(const struct ut_shadow *sh, uint64_t ip) UT_HIDDEN;

/*
 * stacks.c: the shadow stack of the stack holding @addr (a coroutine's, or
 * the thread's own), made if @create; NULL if none.
 */
struct ut_shadow *ut_stacks_shadow_for(struct ut_thread *t, uint64_t addr, bool create) UT_HIDDEN;
/* A new shadow stack for a thread's own stack. */
struct ut_shadow *ut_stacks_new_home(void) UT_HIDDEN;
/* After fork: @t's frames no longer hold the parent's profiler rows. */
void ut_stacks_forget_prof(struct ut_thread *t) UT_HIDDEN;
/* A coroutine stack [lo, hi) is being set up (makecontext). */
void ut_stacks_register(uint64_t lo, uint64_t hi) UT_HIDDEN;
/* Switching to the stack holding @sp; returns the shadow stack that ran. */
struct ut_shadow *ut_stacks_switch(uint64_t sp) UT_HIDDEN;
/* Back on a stack that switched away: @sh runs again. */
void ut_stacks_resume(struct ut_shadow *sh) UT_HIDDEN;

/* log.c */
void ut_log(const char *fmt, ...) __attribute__((format(printf, 1, 2))) UT_HIDDEN;

#endif

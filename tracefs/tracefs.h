/* SPDX-License-Identifier: MIT */
/*
 * The tracefs emulation (`utrace mount DIR`): the kernel's tracing directory
 * for the traced processes of the user, served through FUSE.
 *
 *   fs.c      FUSE operations, the big lock, mounting
 *   tree.c    the directory tree, described once: path lookup and listings
 *   readme.c  the README
 *   cpumask.c tracing_cpumask
 *   mountpoint.c  the mount point: a dead mount replaced, a live one refused
 *   files.c   the file table and the control files (tracer, options, ...)
 *   scope.c   what a directory acts on: the top level (every process and
 *             the template new ones start with), processes/PID/ (one) or
 *             instances/NAME/ (one instance in every process); reading and
 *             changing its configuration, its error_log
 *   funcs.c   function tables of running processes: the filter files and
 *             available_filter_functions
 *   trace.c   trace, trace_pipe and per_thread/TID/trace
 *
 * Every operation runs under one lock (tfs_lock), except the waits of a
 * blocked trace_pipe read, which drop it between polls.  Nothing here trusts
 * the sessions: a process may die, or its files vanish, at any moment, and
 * that must end in an error code, never in a crash or a hang.
 */
#ifndef UT_TRACEFS_H
#define UT_TRACEFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/config.h"
#include "common/control.h"
#include "common/histstr.h"
#include "common/usdt.h"
#include "common/output/output.h"

/* ------------------------------------------------------------------ */
/* Scopes: the directory a file is in                                 */
/* ------------------------------------------------------------------ */

#define TFS_ERRLOG_MAX 8 /* entries kept, as the kernel keeps */

/* One directory's state held by the mount (not by the processes). */
struct tfs_snap;
struct tfs_scope {
	struct ut_opts opts;  /* output options (passed to the formatter) */
	struct tfs_snap *snap; /* the snapshot and the swaps' state (snapshot.c); NULL: none */
	char *errlog[TFS_ERRLOG_MAX]; /* error_log entries, oldest first */
	int32_t pid;          /* 0: the top level; else processes/PID/ */
	int inst;             /* instances/NAME/: its number (common/control.h); else 0 */
	int nr_errlog;
};

/* Run-time directory (absolute). */
extern char tfs_rundir[PATH_MAX];

/* The scope of processes/@pid/ (created on first use), or the top for 0. */
struct tfs_scope *tfs_scope_get(int32_t pid);
/* The scope of instances/NAME/, by its number 1..UT_MAX_INSTANCES. */
struct tfs_scope *tfs_scope_get_inst(int inst);
void tfs_scopes_free(void);

/*
 * The session of a process scope (the newest image of the pid).  0,
 * -ENOENT if there is none (any more).
 */
int tfs_scope_session(const struct tfs_scope *sc, struct ut_live_sess *s);

/*
 * The configuration the scope shows: the template, or the process's (with
 * its control block's tracing_on).  -ENODEV if the process's session is gone.
 */
int tfs_scope_config(const struct tfs_scope *sc, struct ut_cfg *c);

/* tracing_on: a flag of each control block (and of the template), no agent involved. */
int tfs_scope_set_tracing_on(struct tfs_scope *sc, bool on);
/*
 * tracing_on as the top level reads it: 0 as soon as a running process has
 * it off (a traceoff command fired there, as the kernel's one flag would
 * be), 1 if all have it on; @tmpl (the template's) when none runs.
 */
bool tfs_top_tracing_on(bool tmpl);

/*
 * Change the scope's configuration with @edit (which returns 0 or -errno,
 * leaving the configuration unchanged on error).  Top level: word-list edits
 * (@lists) go to every live process and the template through
 * ut_live_edit_all(); other edits are made to each process's own
 * configuration and to the template.  On failure the reason is added to the
 * scope's error_log, with @cmd as the command.  Returns 0 or -errno.
 */
typedef int (*tfs_edit_fn)(struct ut_cfg *c, const void *arg);
int tfs_scope_edit(struct tfs_scope *sc, tfs_edit_fn edit, const void *arg, bool lists,
		   const char *cmd);

/* Add an entry to the scope's error_log ("[ts] utrace: error: MSG / Command: CMD"). */
void tfs_errlog_add(struct tfs_scope *sc, const char *msg, const char *cmd);
/* The same as a note (something the write did that the user should know), not an error. */
void tfs_errlog_note(struct tfs_scope *sc, const char *msg, const char *cmd);
/*
 * An entry as the kernel's parsers log them: "[ts] TAG: error: MSG", the
 * command, the caret @pos columns in ("event filter parse error").
 */
void tfs_errlog_at(struct tfs_scope *sc, const char *tag, const char *msg, const char *cmd,
		   int pos);
void tfs_errlog_print(const struct tfs_scope *sc, FILE *f);
void tfs_errlog_clear(struct tfs_scope *sc);

/* Effective value of option @id: the configuration's for the mapped ones. */
int tfs_opt_value(const struct tfs_scope *sc, const struct ut_cfg *c, int id);
/* The option words ("noNAME"/"NAME") for the formatter; count in *@n. */
void tfs_opt_words(const struct tfs_scope *sc, char words[][40], const char *ptrs[], int max,
		   int *n);
/* Is option @id listed under options/ (every tracer's flags, no blk ones)? */
bool tfs_opt_listed(int id);

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

enum {
	TFS_TOP = 1 << 0,     /* exists at the top level */
	TFS_PROC = 1 << 1,    /* exists under processes/PID/ */
	TFS_LIST = 1 << 2,    /* a list: O_TRUNC replaces it, other writes add */
	TFS_STREAM = 1 << 3,  /* trace_pipe: read blocks, nothing to snapshot */
	TFS_TRACE = 1 << 4,   /* trace / per_thread trace: snapshot at open */
	TFS_INST = 1 << 5,    /* exists under instances/NAME/ */
};

struct tfs_req;

struct tfs_file {
	const char *name;
	mode_t mode;          /* 0640, 0440 */
	unsigned flags;
	/* text of a read; 0 or -errno */
	int (*show)(struct tfs_req *r, FILE *f);
	/*
	 * one write(2) of @len bytes; @append false for a list's first write
	 * after O_TRUNC.  0 (all taken), the bytes taken, or -errno.
	 */
	int (*store)(struct tfs_req *r, const char *buf, size_t len, bool append);
	/* open(2) with O_TRUNC for writing */
	int (*trunc)(struct tfs_req *r);
	int arg;              /* which list / setting, for shared handlers */
};

/* What a request is about. */
struct tfs_req {
	struct tfs_scope *sc;
	const struct tfs_file *file;
	int opt;              /* options/NAME: the option id, else -1 */
	int32_t tid;          /* per_thread/TID/: the thread, else 0 */
	int32_t caller;       /* the thread doing the read or write */
	const char *ev;       /* events/PROVIDER[/NAME]/: "PROVIDER" or "PROVIDER:NAME", else "" */
};

extern const struct tfs_file tfs_files[];
extern const size_t tfs_nr_files;
/* per_thread/TID/ files */
extern const struct tfs_file tfs_thread_files[];
extern const size_t tfs_nr_thread_files;
/* options/NAME */
extern const struct tfs_file tfs_option_file;
/* trace_stat/function[TID] */
extern const struct tfs_file tfs_stat_file;

/* ------------------------------------------------------------------ */
/* The directory tree (tree.c)                                         */
/* ------------------------------------------------------------------ */

enum tfs_kind {
	TFS_K_ROOT,      /* / */
	TFS_K_OPTIONS,   /* [processes/PID/|instances/NAME/]options/ */
	TFS_K_PROCESSES, /* processes/ */
	TFS_K_PROC,      /* processes/PID/ */
	TFS_K_THREADS,   /* processes/PID/per_thread/ */
	TFS_K_THREAD,    /* processes/PID/per_thread/TID/ */
	TFS_K_STAT,      /* [processes/PID/]trace_stat/ */
	TFS_K_INSTANCES, /* instances/ */
	TFS_K_INST,      /* instances/NAME/ */
	TFS_K_EVENTS,    /* [processes/PID/]events/ */
	TFS_K_EVSYS,     /* events/PROVIDER/ */
	TFS_K_EVENT,     /* events/PROVIDER/NAME/ */
	TFS_K_FTSYS,     /* events/ftrace/: always on (no enable) */
	TFS_K_FTEVENT,   /* events/ftrace/NAME/ */
	TFS_K_FILE,      /* a file (last: the directory kinds index the tree) */
};

/* What a path names. */
struct tfs_node {
	enum tfs_kind kind;
	int32_t pid;  /* scope: 0 = top level */
	int32_t tid;  /* per_thread/TID/, trace_stat/functionTID */
	const struct tfs_file *file;
	int opt;      /* options/NAME, else -1 */
	int inst;     /* instances/NAME/: its number, else 0 */
	char ev[136]; /* events/PROVIDER[/NAME]/: "PROVIDER" or "PROVIDER:NAME" */
};

/* Look @path up.  0, -ENOENT or -ENAMETOOLONG. */
int tfs_resolve(const char *path, struct tfs_node *nd);
/* Each entry of directory @nd (without "." and ".."), in listing order. */
typedef int (*tfs_fill_fn)(void *ctx, const char *name, bool dir, mode_t mode);
void tfs_list(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx);
/*
 * NAME when @path is DIR/NAME and DIR a directory whose children mkdir and
 * rmdir make and remove (instances/), else NULL.
 */
const char *tfs_mkdir_name(const char *path);

/* Parsers shared by the files: the kernel's kstrtoul (digits, one optional '\n'). */
int tfs_parse_ulong(const char *buf, size_t len, unsigned long long max,
		    unsigned long long *out);
/* @buf without surrounding whitespace, NUL-terminated, in @out (EINVAL if too long). */
int tfs_strip(const char *buf, size_t len, char *out, size_t outlen);

/* snapshot.c: the snapshot file */
int tfs_show_snapshot(struct tfs_req *r, FILE *f);
int tfs_store_snapshot(struct tfs_req *r, const char *buf, size_t len, bool append);
void tfs_snapshot_free(struct tfs_scope *sc);
/* A `snapshot` trigger was written on the scope: its snapshot is allocated. */
int tfs_snapshot_alloc(struct tfs_scope *sc);
/* Swap at the times of the snapshot triggers (.snapshot() actions) that fired since the last look. */
void tfs_snapshot_sync(struct tfs_req *r);
/* The scope's `trace`: the rings' events after the last swap, after what swaps put back. */
int tfs_snapshot_show_trace(struct tfs_req *r, FILE *f);
/* `echo > trace`: what swaps put back into the live buffer goes too. */
void tfs_snapshot_trunc_trace(struct tfs_scope *sc);

/* funcs.c */
int tfs_show_list(struct tfs_req *r, FILE *f);
int tfs_store_list(struct tfs_req *r, const char *buf, size_t len, bool append);
int tfs_show_available(struct tfs_req *r, FILE *f);
/* events.c: available_events, set_event (USDT probes) */
int tfs_show_available_events(struct tfs_req *r, FILE *f);
/* The USDT probes of processes/@pid/'s process (0: every live one): ut_probetab_free() it. */
struct ut_probetab *tfs_pid_probes(int32_t pid);
/* event_filter.c: events/PROVIDER/NAME/filter and events/PROVIDER/filter */
int tfs_show_event_filter(struct tfs_req *r, FILE *f);
int tfs_store_event_filter(struct tfs_req *r, const char *buf, size_t len, bool append);
int tfs_show_evsys_filter(struct tfs_req *r, FILE *f);
int tfs_store_evsys_filter(struct tfs_req *r, const char *buf, size_t len, bool append);
int tfs_show_set_event(struct tfs_req *r, FILE *f);
int tfs_store_set_event(struct tfs_req *r, const char *buf, size_t len, bool append);
/* events/: the files of events/, events/PROVIDER/ and events/PROVIDER/NAME/ */
extern const struct tfs_file tfs_events_files[], tfs_evsys_files[], tfs_event_files[];
extern const size_t tfs_nr_events_files, tfs_nr_evsys_files, tfs_nr_event_files;
/* Whether the scope of processes/@pid (0: the top) has provider @sys (and event @name, if given). */
bool tfs_event_exists(int32_t pid, const char *sys, const char *name);
extern const struct tfs_file tfs_ftevent_files[];
extern const size_t tfs_nr_ftevent_files;
/* tracefs/evlist.c: the process events (common/procevents.h) added to a scope's probes */
struct ut_probetab;
struct ut_evfmt;
int tfs_evlist_add(struct ut_probetab *t);
/* synthetic_events (tracefs/synth_events.c); tfs_synth_add: their events into @t. */
int tfs_show_synth(struct tfs_req *r, FILE *f);
int tfs_store_synth(struct tfs_req *r, const char *buf, size_t len, bool append);
int tfs_trunc_synth(struct tfs_req *r);
int tfs_synth_add(struct ut_probetab *t);
/*
 * Define (or with "!NAME" remove) the synthetic event of @cmd + @off, a
 * write of @cmd (to synthetic_events, or dynamic_events after its "s:"):
 * the kernel's errors in the scope's error_log, carets counted in @cmd.
 */
int tfs_synth_apply(struct tfs_req *r, const char *cmd, size_t off);
/* Remove synthetic event @name: 0, -ENOENT, -EBUSY (in use). */
int tfs_synth_remove(const char *name);
/* dynamic_events (tracefs/dynamic_events.c): the synthetic events as "s:" commands. */
int tfs_show_dynevents(struct tfs_req *r, FILE *f);
int tfs_store_dynevents(struct tfs_req *r, const char *buf, size_t len, bool append);
/* Whether events of @system are always on (ftrace): no enable, not in set_event */
bool tfs_evlist_always_on(const char *system);
/* A process event's format text, malloc'd; NULL if @f is not one */
char *tfs_evlist_format(const struct ut_evfmt *f);
/* The providers (@name NULL) or the events of provider @sys of the scope, each to @fill. */
void tfs_event_list(int32_t pid, const char *sys, tfs_fill_fn fill, void *ctx);
/* The probes of the scope's processes (common/usdt_events.h); NULL if none. */
struct ut_probetab *tfs_scope_probes(const struct tfs_scope *sc);
/* event_trigger.c, event_hist.c: events/SYS/EVT/trigger and hist */
int tfs_show_event_trigger(struct tfs_req *r, FILE *f);
int tfs_store_event_trigger(struct tfs_req *r, const char *buf, size_t len, bool append);
int tfs_show_event_hist(struct tfs_req *r, FILE *f);
/* Event r->ev's format in the scope (a probe of one of its processes); false if none. */
struct ut_evfmt;
bool tfs_event_format(struct tfs_req *r, struct ut_evfmt *out);
/* The next trigger line of event @ev ("SYS:EVT") in a configuration's triggers from @p: its text, @n bytes. */
const char *tfs_evtrig_next(const char *p, const char *ev, size_t *n);
/* A session that ran triggers (its tables outlive it: its events stay listed). */
bool tfs_sess_has_triggers(const char *sessdir);
/*
 * Whether event r->ev is in the kernel's soft mode (it has triggers, or is
 * the target of enable_event/disable_event): then its enable reads
 * *@digit and `*`, *@digit being whether it records (@enabled: set_event
 * enables it; a trigger that fired may have switched it).
 */
bool tfs_evtrig_soft_mode(struct tfs_req *r, bool enabled, int *digit);
struct ut_evtrig;
/* Empty the tables of hist trigger @t of event r->ev in the scope's sessions. */
void tfs_hist_clear(struct tfs_req *r, const struct ut_evtrig *t);
/*
 * marker_trig.c: the triggers the mount runs: ftrace:print's, as it writes
 * a trace_marker (the kernel runs them in the writer), and those of the
 * synthetic events their onmatch() generate (marker_vars.c).
 * tfs_mtrig_fire: after marker @text of thread @tid (@comm) went into r's
 * scope, into session @sessdir at time @ts (ns of its trace clock), whose
 * configuration's triggers are @triggers.  The states are per scope, event
 * ("SYS:EVT") and trigger identity.
 */
#define TFS_EV_MAX (2 * UT_EVTRIG_NAME_MAX + 2)
bool tfs_mtrig_event(const char *ev);
bool tfs_mtrig_format(struct ut_evfmt *f);
void tfs_mtrig_fire(struct tfs_req *r, const char *triggers, const char *sessdir, int32_t tid,
		    const char *comm, const char *text, uint64_t ts);
/* The count trigger @ident of @ev has left in scope @pid; false before its first hit. */
bool tfs_mtrig_count(int32_t pid, const char *ev, const char *ident, int64_t *count);
/*
 * Its hist entries in scope @pid (0: every scope), malloc'd in *@out, and
 * their strings, @str_size bytes each (its layout: common/histstr.h),
 * malloc'd in *@strs (NULL when 0); hits and drops added.
 */
struct ut_hist_entry;
long tfs_mtrig_hist(int32_t pid, const char *ev, const char *ident, uint32_t str_size,
		    struct ut_hist_entry **out, char **strs, uint64_t *hits, uint64_t *drops);
/* Trigger @ident of @ev written or removed in scope @pid (0: every scope): its state goes (@tables_only: its tables are emptied). */
void tfs_mtrig_forget(int32_t pid, const char *ev, const char *ident, bool tables_only);
void tfs_mtrig_free(void);

/* A hit of an event whose triggers the mount runs: its fields' slots, writer and time. */
struct tfs_mhit {
	uint64_t slot[UT_USDT_MAX_ARGS]; /* a string's: the address of its text */
	unsigned nslots;
	int32_t tid;
	const char *comm;
	uint64_t ts;	/* its record's time in the trace clock (ns): common_timestamp */
	int depth;	/* synthetic events generated from synthetic events' triggers */
};
/* Where they run: the request (its scope), the scope's triggers, the session written to. */
struct tfs_mrun {
	struct tfs_req *r;
	const char *triggers;
	const char *sessdir;
};
/* Run event @ev's triggers ("SYS:EVT", newest first) for hit @h. */
void tfs_mtrig_run(const struct tfs_mrun *run, const char *ev, const struct tfs_mhit *h);
/* The format of @ev, an event the mount runs the triggers of; false if none. */
bool tfs_mtrig_evfmt(const char *ev, struct ut_evfmt *fmt);
/* Field @slot's value (UT_HIST_SLOT_PID: the writer) and @t's key of hit @h (its strings @ks). */
struct ut_hist_strs;
uint64_t tfs_mhit_field(const struct tfs_mhit *h, int slot);
void tfs_mhit_key(const struct ut_evtrig *t, const struct ut_evfmt *fmt,
		  const struct ut_hist_strs *l, const struct tfs_mhit *h, struct ut_hist_entry *key,
		  char *ks);
/*
 * Variable @idx of hist trigger @o of @ev in scope @pid for @key (its keys'
 * strings @ks, @klen bytes), read once (its set bit cleared) into *@x (a
 * string: copied into @sbuf, UT_HIST_STR_MAX bytes, *@x its address);
 * false if it is not set.
 */
bool tfs_mtrig_read_var(int32_t pid, const char *ev, const struct ut_evtrig *o, unsigned idx,
			const struct ut_hist_entry *key, const char *ks, uint32_t klen,
			uint64_t *x, char *sbuf);
/*
 * marker_vars.c: hist variables and onmatch() on the events the mount runs
 * the triggers of.  tfs_mvar_values: @t's (on @ev) variables for hit @h
 * (key @key, @ks, @klen) into @v, with the matched event's variables its
 * onmatch() params read; false if a $ref is not set (the hit is dropped).
 * tfs_mvar_actions: after the hit was counted, its onmatch() actions.
 */
struct tfs_mvals {
	uint64_t val[UT_HIST_MAX_VARS];
	uint64_t pv[UT_HIST_MAX_ACTIONS][UT_HIST_MAX_PARAMS]; /* the matched event's $VAR params */
	char sbuf[UT_HIST_MAX_VARS][UT_HIST_STR_MAX];	       /* strings read from other tables */
	char psbuf[UT_HIST_MAX_PARAMS][UT_HIST_STR_MAX];
};
bool tfs_mvar_values(const struct tfs_mrun *run, const char *ev, const struct ut_evtrig *t,
		     const struct ut_evfmt *fmt, const struct tfs_mhit *h,
		     const struct ut_hist_entry *key, const char *ks, uint32_t klen,
		     struct tfs_mvals *v);
void tfs_mvar_actions(const struct tfs_mrun *run, const struct ut_evtrig *t,
		      const struct ut_evfmt *fmt, const struct tfs_mhit *h,
		      const struct tfs_mvals *v);
void tfs_funcs_free(void);
/*
 * A configuration that came from the top level (lenient: each process skips
 * the words that match none of its functions) made strict for one process:
 * the words that match nothing there are dropped.  0 or -errno (@c unchanged).
 */
int tfs_words_prune(const struct ut_live_sess *s, struct ut_cfg *c);

/* sitekinds.c: the functions without a compiler site */
/* libutrace.so's path (cli/cmd/mount.c sets it; "" if unknown): its own library calls are not hooked */
extern char tfs_runtime[PATH_MAX];
enum { TFS_KIND_PROLOGUE = 1, TFS_KIND_PLT = 2 };
struct ut_ftable;
struct ut_objlist;
/*
 * Append to @t the functions a process whose objects are @loaded (in load
 * order, its program first) also has with -O patch-prologue (@prologues)
 * and -O plt (@plt), with their kind, as its runtime adds them.  0 or -ENOMEM.
 */
int tfs_other_kinds(struct ut_ftable *t, const struct ut_objlist *loaded, bool prologues,
		    bool plt);

/* trace.c */
/* per_thread/TID/stats (the kernel's per_cpu/cpuN/stats) and buffer_size_kb */
int tfs_show_thread_stats(struct tfs_req *r, FILE *f);
int tfs_show_thread_buffer_kb(struct tfs_req *r, FILE *f);
int tfs_show_trace(struct tfs_req *r, FILE *f);
/* The scope's trace (@win: only events in its time window; NULL: all), no snapshot applied. */
struct ut_live_window;
int tfs_print_trace(struct tfs_req *r, FILE *f, struct ut_live_window *win);
int tfs_trunc_trace(struct tfs_req *r);
/*
 * Read what trace_pipe has now (consuming it) into a malloc'd *@text,
 * through *@stream, the open file's reader (made at the first read; the
 * caller frees it with ut_live_stream_free), which keeps a function_graph
 * call open across reads.
 * Returns 0 (with *@len possibly 0: nothing yet), or -errno; -ENODEV once
 * a process scope's process is gone and its buffers are empty (EOF).
 */
struct ut_live_stream;
int tfs_pipe_take(struct tfs_req *r, struct ut_live_stream **stream, char **text, size_t *len);
/*
 * Threads of a process scope that claimed a slot (a buffer, or a profiler
 * table), for per_thread/ and trace_stat/; malloc'd.
 */
long tfs_threads(const struct tfs_scope *sc, int32_t **tids);

/* fs.c */
void tfs_lock(void);
void tfs_unlock(void);
/*
 * Mount at @dir and serve until unmounted.  @foreground: do not
 * daemonize; @debug: FUSE debug output.  Returns an exit status.
 */
int tfs_main(const char *dir, bool foreground, bool debug);

/*
 * Resolve the mount point @dir into @mnt.  A dead FUSE mount on it (its
 * daemon killed: ENOTCONN) is detached first; a live utrace mount there is
 * refused.  0, or -errno after saying why on stderr.
 */
int tfs_mountpoint(const char *dir, char mnt[PATH_MAX]);

/* readme.c: the top level's README (what the mount accepts, in the kernel's words). */
extern const char tfs_readme[];

/* cpumask.c: tracing_cpumask, and whether thread @tid's CPU is in the mask. */
int tfs_show_cpumask(struct tfs_req *r, FILE *f);
int tfs_store_cpumask(struct tfs_req *r, const char *buf, size_t len, bool append);
bool tfs_cpumask_lets(const struct ut_cfg *c, int32_t tid);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The writer side of live control (include/utrace/abi.h, common/config.h):
 * finding the sessions of traced processes, reading and changing their
 * configuration, and clearing their buffers.  Used by the CLI (start, stop,
 * show, extract, reset, ps, record -P) and by the tracefs mount.
 *
 * Every control block and file read here belongs to another process:
 * validated before use.
 */
#ifndef UT_CONTROL_H
#define UT_CONTROL_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"

struct ut_ctl;

/* One session (one process image) in the run-time directory. */
struct ut_live_sess {
	char dir[PATH_MAX];     /* the session directory */
	char name[64];          /* <pid>.<ns> */
	uint64_t start_ns;
	uint64_t apply_ns;      /* its agent's last configuration change took */
	int32_t pid;
	uint32_t tracer;        /* UT_TRACER_* in force */
	uint32_t clock;         /* UT_CLOCK_* of its timestamps */
	uint32_t nr_threads;    /* thread slots used */
	uint64_t buf_bytes;     /* bytes of thread buffers it holds (ut_ctl.buf_bytes) */
	uint64_t snap_requests; /* its `snapshot` triggers that fired (ut_ctl.snap_requests) */
	char comm[17];
	bool alive;             /* the process still runs */
	bool tracing_on;
	bool markers;           /* a tool's markers-only session: no agent */
};

/* $UTRACE_DIR, else /dev/shm/utrace-<uid>.  Returns @buf. */
char *ut_rundir(char *buf, size_t len);

/*
 * Who may write (common/safedir.h): the run-time directory, the sessions and
 * their files are used only if nobody but the user (or root) can have
 * written them.  A refusal is -EPERM everywhere below, and
 * ut_live_strerror() then says which path and why (this thread's last
 * refusal); otherwise it is strerror().
 */
const char *ut_live_strerror(int err);
/* The run-time directory, made first if @create, opened and checked: fd or -errno. */
int ut_live_root(const char *rundir, bool create);
/* A session file (or directory, O_DIRECTORY), opened safely: fd or -errno. */
int ut_live_open(const char *path, int flags);
/* ut_live_open() as a stdio stream (NULL, errno set, if refused or absent). */
FILE *ut_live_fopen(const char *path, int flags, const char *mode);

/*
 * The sessions in @rundir, oldest first (malloc'd array in *@out).
 * Returns the count, or -errno.
 */
long ut_live_list(const char *rundir, struct ut_live_sess **out);

/*
 * The newest session of process @pid: 0, -ESRCH (no session: not traced, or
 * not started with libutrace), or -EACCES (the process belongs to another
 * user: its sessions are not ours to see).
 */
int ut_live_find(const char *rundir, int32_t pid, struct ut_live_sess *out);

/*
 * The configuration a session (or, with a run-time dir, the template) holds
 * for instance @inst (instances/; 0: the top level).  Tracer nop if none.
 */
int ut_live_get_config(const char *dir, int inst, struct ut_cfg *c);

/*
 * Change a running process's configuration and wait until its agent applied
 * it.  On error (-EINVAL for a pattern that matches nothing, -ESRCH if the
 * process is gone, -ETIMEDOUT if its agent does not answer in 5 s) the
 * process keeps its previous configuration, and @err says why -- except
 * that a lenient @c (words meant for every process) is applied without the
 * words that match nothing there, and -EINVAL only tells that some did not.
 */
int ut_live_set_config(const char *sessdir, const struct ut_cfg *c, char *err, size_t errlen);

/*
 * Write the template new processes start with (the run-time dir's "config",
 * or instance @inst's "config.iK").
 */
int ut_live_set_template(const char *rundir, int inst, const struct ut_cfg *c);

/*
 * Give every live session in @rundir the configuration @edit makes of its
 * own (leniently: each process skips words that match none of its
 * functions), then make @tmpl the template.  Fails with -EINVAL only if
 * some process was there and the words matched nothing in any of them;
 * everything is then put back as it was.  Another error is the first one,
 * naming its process, and the template is left alone.
 */
int ut_live_edit_all(const char *rundir, int (*edit)(struct ut_cfg *c, const void *arg),
		     const void *arg, const struct ut_cfg *tmpl, char *err, size_t errlen);

/*
 * After the template changed: processes that appeared since @seen (@nseen
 * sessions, listed before) started while it changed and may have read the
 * old one; they get @tmpl, leniently.  A process also reads the template
 * again once it can be seen, so one of the two always gets there.
 */
void ut_live_template_to_new(const char *rundir, const struct ut_live_sess *seen, long nseen,
			     const struct ut_cfg *tmpl);

/* ut_live_edit_all() with @c for every process and the template. */
int ut_live_set_all(const char *rundir, const struct ut_cfg *c, char *err, size_t errlen);

/* tracing_on of a session (a flag in its control block, no agent needed). */
int ut_live_set_tracing_on(const char *sessdir, bool on);

/* `echo > trace`: every buffer of the session's instance @inst starts empty from here. */
int ut_live_clear(const char *sessdir, int inst);

/*
 * The symbols of every object the sessions in @dirs loaded (their "modules"
 * files), each object once (common/sessyms.c): from the object's file while
 * it is the one loaded, else from the session's snapshot, said on stderr.
 * NULL on ENOMEM.
 */
struct ut_symtab;
struct ut_symtab *ut_live_symbols(const char *const *dirs, size_t n);

/*
 * A "names" line of the session @dir's modules log (the sites the runtime
 * made for inlined instances, named after the function inlined there):
 * one row each in @t, of kind UT_KIND_INLINED with the line's module, as
 * the process's own table has them.  Other lines, and those of short-form
 * patched prologues (tagged "prologue": functions the object's own rows
 * list already): nothing.  Return: the
 * rows added, or a negative errno.
 */
struct ut_ftable;
int ut_live_names_rows(struct ut_ftable *t, const char *dir, const char *line);

/*
 * trace_marker from outside (common/marker.c): @text as a marker event of
 * thread @tid (@comm) in the session @sessdir, into instance @inst's
 * buffers (0: the top level's).  0, -ENOSPC when the marker buffer is full
 * (producer/consumer mode), or -errno.
 */
int ut_live_marker(const char *sessdir, int inst, int32_t tid, const char *comm, const char *text);
/* The same, the marker's time into *@ts: ns of the trace clock, as readers show it. */
int ut_live_marker_at(const char *sessdir, int inst, int32_t tid, const char *comm,
		      const char *text, uint64_t *ts);

/*
 * A synthetic event of definition @d with field values @args (common/synthrec.h)
 * written as thread @tid (@comm) into the session @sessdir, in the buffer
 * its markers go to, if it passes its filter @f (NULL: none): a trigger
 * the mount runs on trace_marker's event generated it
 * (tracefs/marker_vars.c).  0, -ENOSPC or -errno.
 */
struct ut_synth_def;
struct ut_evf;
int ut_live_synth(const char *sessdir, int32_t tid, const char *comm, const struct ut_synth_def *d,
		  const uint64_t *args, const struct ut_evf *f);
/*
 * The session's "synth" file: the definitions @defs ("NAME FIELDS" lines)
 * its readers name synthetic events with (common/sessprobes.c); a traced
 * process writes its own, the mount the markers-only session's.
 */
int ut_live_synth_defs(const char *sessdir, const char *defs);

/*
 * The calling tool's markers-only session in @rundir (created on first use):
 * where top-level trace_marker writes go.  Its directory in @dir.
 */
int ut_live_marker_session(const char *rundir, char *dir, size_t len);

/*
 * instances/ (each an independent function tracer, configuration and set of
 * buffers in every process): numbered 1..UT_MAX_INSTANCES, named in the
 * run-time dir's "instances" file.  Instance K's documents are "config.iK"
 * (template and sessions) and its buffers "iK.buf.<slot>".
 */
#define UT_MAX_INSTANCES 7
#define UT_INST_NAME_MAX 64

/* names[K] of each instance ("" = none).  Returns how many. */
int ut_inst_list(const char *rundir, char names[UT_MAX_INSTANCES + 1][UT_INST_NAME_MAX]);
/* K of instance @name, or -ENOENT. */
int ut_inst_find(const char *rundir, const char *name);
/* A new instance (off): K, or -EEXIST, -ENOSPC (all in use), -EINVAL (bad name). */
int ut_inst_create(const char *rundir, const char *name);
/* Its configuration for every process and the template (leniently). */
int ut_inst_set_all(const char *rundir, int inst, const struct ut_cfg *c, char *err, size_t errlen);
/* Turn it off everywhere and forget it.  0 or -ENOENT. */
int ut_inst_remove(const char *rundir, const char *name);
/*
 * common/instance.c: an instance's tracing_on, in every process (a flag of
 * each control block, like the top level's) and in its template; reading it
 * gives 0 if some live process has it off (a traceoff command fired there),
 * the template's value when no process runs.
 */
int ut_inst_set_tracing_on(const char *rundir, int inst, bool on);
int ut_inst_tracing_on(const char *rundir, int inst);
/* The clock of instance @inst's timestamps in session @sessdir (UT_CLOCK_*). */
uint32_t ut_inst_clock(const char *rundir, const char *sessdir, int inst);
/* "buf." or "iK.buf.": the buffer files of the top level or instance K */
const char *ut_live_buf_prefix(int inst);

/* Remove a dead session's directory (reset/extract of a dead process). */
int ut_live_remove(const char *sessdir);

/*
 * Remove the run-time directory's shared symbol copies (".syms-*", see
 * libutrace/session.c) that no session links any more.
 */
void ut_live_prune_symbols(const char *rundir);

#endif

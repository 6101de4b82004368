// SPDX-License-Identifier: MIT
/*
 * The directory tree of the tracefs mount, described once (tree[] below):
 * path lookup (tfs_resolve) and directory listings (tfs_list) both walk it,
 * so a name can be listed exactly when it can be looked up.
 *
 *   /                           tfs_files[] marked TFS_TOP
 *   /options/NAME               one file per option
 *   /trace_stat/function, function0
 *   /instances/NAME/            tfs_files[] marked TFS_INST, options/
 *   /processes/PID/             one per session: tfs_files[] marked TFS_PROC
 *   /processes/PID/options/NAME
 *   /processes/PID/trace_stat/function, functionTID
 *   /processes/PID/per_thread/TID/   tfs_thread_files[]
 *   /[processes/PID/]events/PROVIDER/NAME/   the USDT probes (tracefs/events.c)
 *
 * A directory holds the files of a table, subdirectories of fixed names,
 * and children named only at run time (pids, thread ids, instances,
 * options, per-thread profiler tables), which a pair of functions finds by
 * name and lists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tracefs.h"

#define DIR_MODE 0750

/* A positive decimal id without sign or leading zero. */
static int32_t parse_id(const char *s)
{
	long v = 0;

	if (*s < '1' || *s > '9')
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 0x7fffffff / 10)
			return 0;
		v = v * 10 + (*s - '0');
	}
	return v > 0x7fffffff ? 0 : (int32_t)v;
}

/* Threads of processes/@pid/ (see tfs_threads); -1 if none can be read. */
static long threads_of(int32_t pid, int32_t **tids)
{
	struct tfs_scope *sc = tfs_scope_get(pid);

	return sc ? tfs_threads(sc, tids) : -1;
}

static bool thread_exists(int32_t pid, int32_t tid)
{
	int32_t *v;
	long n = threads_of(pid, &v);
	bool yes = false;

	for (long i = 0; i < n; i++)
		yes |= v[i] == tid;
	if (n >= 0)
		free(v);
	return yes;
}

/* ---- options/NAME: every listed option; instances have no top-only ones ---- */

static bool option_here(const struct tfs_node *nd, int id)
{
	return tfs_opt_listed(id) && !(nd->inst && ut_opt_info(id)->top_only);
}

static int find_option(const char *name, struct tfs_node *nd)
{
	int id = ut_opt_lookup(name);

	if (id < 0 || !option_here(nd, id))
		return -ENOENT;
	nd->kind = TFS_K_FILE;
	nd->file = &tfs_option_file;
	nd->opt = id;
	return 0;
}

static void list_options(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx)
{
	for (int id = 0; id < UT_OPT_NR; id++)
		if (option_here(nd, id))
			fill(ctx, ut_opt_info(id)->name, false, tfs_option_file.mode);
}

/*
 * ---- trace_stat/: "function" (all threads merged, in the table) and ----
 * functionTID (one thread, processes/PID/ only).  The top level's
 * function0 is the merged table under the kernel's name for the first
 * per-CPU one, which tools (and the kernel's self-tests) read.
 */
static int find_stat(const char *name, struct tfs_node *nd)
{
	if (strncmp(name, "function", 8) != 0)
		return -ENOENT;
	if (!nd->pid) {
		if (strcmp(name + 8, "0") != 0)
			return -ENOENT;
	} else {
		nd->tid = parse_id(name + 8);
		if (!nd->tid || !thread_exists(nd->pid, nd->tid))
			return -ENOENT;
	}
	nd->kind = TFS_K_FILE;
	nd->file = &tfs_stat_file;
	return 0;
}

static void list_stat(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx)
{
	int32_t *v;
	long n;

	if (!nd->pid) {
		fill(ctx, "function0", false, tfs_stat_file.mode);
		return;
	}
	n = threads_of(nd->pid, &v);
	for (long i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "function%d", v[i]);
		fill(ctx, name, false, tfs_stat_file.mode);
	}
	if (n >= 0)
		free(v);
}

/* ---- processes/PID/: one directory per pid, its newest image; no markers session ---- */

static int find_process(const char *name, struct tfs_node *nd)
{
	struct ut_live_sess s;

	nd->pid = parse_id(name);
	if (!nd->pid || ut_live_find(tfs_rundir, nd->pid, &s) != 0)
		return -ENOENT;
	nd->kind = TFS_K_PROC;
	return 0;
}

static void list_processes(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx)
{
	struct ut_live_sess *v;
	long n = ut_live_list(tfs_rundir, &v);

	(void)nd;
	for (long i = 0; i < n; i++) {
		char name[16];
		long j = i + 1;

		while (j < n && (v[j].pid != v[i].pid || v[j].markers))
			j++;
		if (j < n || v[i].pid <= 0 || v[i].markers)
			continue;
		snprintf(name, sizeof(name), "%d", v[i].pid);
		fill(ctx, name, true, DIR_MODE);
	}
	if (n > 0)
		free(v);
}

/* ---- instances/NAME/ (common/instance.c) ---- */

static int find_instance(const char *name, struct tfs_node *nd)
{
	int inst = ut_inst_find(tfs_rundir, name);

	if (inst <= 0)
		return -ENOENT;
	nd->inst = inst;
	nd->kind = TFS_K_INST;
	return 0;
}

static void list_instances(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx)
{
	char names[UT_MAX_INSTANCES + 1][UT_INST_NAME_MAX];

	(void)nd;
	ut_inst_list(tfs_rundir, names);
	for (int k = 1; k <= UT_MAX_INSTANCES; k++)
		if (names[k][0])
			fill(ctx, names[k], true, DIR_MODE);
}

/* ---- per_thread/TID/: the threads that claimed a slot ---- */

static int find_thread(const char *name, struct tfs_node *nd)
{
	nd->tid = parse_id(name);
	if (!nd->tid || !thread_exists(nd->pid, nd->tid))
		return -ENOENT;
	nd->kind = TFS_K_THREAD;
	return 0;
}

static void list_threads(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx)
{
	int32_t *v;
	long n = threads_of(nd->pid, &v);

	for (long i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%d", v[i]);
		fill(ctx, name, true, DIR_MODE);
	}
	if (n >= 0)
		free(v);
}

/* ---- events/PROVIDER/NAME/: the USDT probes of the scope's processes ---- */

static int find_evsys(const char *name, struct tfs_node *nd)
{
	if (strlen(name) >= 64 || !tfs_event_exists(nd->pid, name, NULL))
		return -ENOENT;
	snprintf(nd->ev, sizeof(nd->ev), "%s", name);
	nd->kind = tfs_evlist_always_on(name) ? TFS_K_FTSYS : TFS_K_EVSYS;
	return 0;
}

static void list_evsys(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx)
{
	tfs_event_list(nd->pid, NULL, fill, ctx);
}

static int find_event(const char *name, struct tfs_node *nd)
{
	char sys[sizeof(nd->ev)];

	memcpy(sys, nd->ev, sizeof(sys));
	if (strlen(name) >= 64 || !tfs_event_exists(nd->pid, sys, name))
		return -ENOENT;
	snprintf(nd->ev, sizeof(nd->ev), "%.63s:%.63s", sys, name);
	nd->kind = tfs_evlist_always_on(sys) ? TFS_K_FTEVENT : TFS_K_EVENT;
	return 0;
}

static void list_event(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx)
{
	tfs_event_list(nd->pid, nd->ev, fill, ctx);
}

/* ------------------------------------------------------------------ */
/* The tree                                                            */
/* ------------------------------------------------------------------ */

struct subdir {
	const char *name;
	enum tfs_kind kind;
};

/* What one kind of directory holds, in listing order. */
struct dir {
	unsigned files;                /* the tfs_files[] carrying this flag */
	bool mkdir;                    /* mkdir/rmdir make and remove children (instances/) */
	const struct tfs_file *table;  /* and/or the files of a table of its own */
	const size_t *nr_table;
	struct subdir subdirs[6];      /* fixed names; ends at a NULL name */
	/* children named at run time: @name made into *@nd (0 or -ENOENT), and listed */
	int (*find)(const char *name, struct tfs_node *nd);
	void (*list)(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx);
};

static const size_t one = 1;

static const struct dir tree[TFS_K_FILE] = {
	[TFS_K_ROOT] = {
		.files = TFS_TOP,
		.subdirs = {{"options", TFS_K_OPTIONS}, {"processes", TFS_K_PROCESSES},
			    {"trace_stat", TFS_K_STAT}, {"instances", TFS_K_INSTANCES},
			    {"events", TFS_K_EVENTS}},
	},
	[TFS_K_PROC] = {
		.files = TFS_PROC,
		.subdirs = {{"options", TFS_K_OPTIONS}, {"per_thread", TFS_K_THREADS},
			    {"trace_stat", TFS_K_STAT}, {"events", TFS_K_EVENTS}},
	},
	[TFS_K_EVENTS] = {.table = tfs_events_files, .nr_table = &tfs_nr_events_files,
			  .find = find_evsys, .list = list_evsys},
	[TFS_K_EVSYS] = {.table = tfs_evsys_files, .nr_table = &tfs_nr_evsys_files,
			 .find = find_event, .list = list_event},
	[TFS_K_EVENT] = {.table = tfs_event_files, .nr_table = &tfs_nr_event_files},
	[TFS_K_FTSYS] = {.find = find_event, .list = list_event},
	[TFS_K_FTEVENT] = {.table = tfs_ftevent_files, .nr_table = &tfs_nr_ftevent_files},
	[TFS_K_INST] = {
		.files = TFS_INST,
		.subdirs = {{"options", TFS_K_OPTIONS}},
	},
	[TFS_K_OPTIONS] = {.find = find_option, .list = list_options},
	[TFS_K_STAT] = {.table = &tfs_stat_file, .nr_table = &one, .find = find_stat,
			.list = list_stat},
	[TFS_K_PROCESSES] = {.find = find_process, .list = list_processes},
	[TFS_K_INSTANCES] = {.find = find_instance, .list = list_instances, .mkdir = true},
	[TFS_K_THREADS] = {.find = find_thread, .list = list_threads},
	[TFS_K_THREAD] = {.table = tfs_thread_files, .nr_table = &tfs_nr_thread_files},
};

/* Directory @nd's entry @name: *@nd becomes it.  0 or -ENOENT. */
static int step(struct tfs_node *nd, const char *name)
{
	const struct dir *d;

	if (nd->kind == TFS_K_FILE)
		return -ENOENT;
	d = &tree[nd->kind];
	for (size_t i = 0; d->files && i < tfs_nr_files; i++) {
		if (!strcmp(tfs_files[i].name, name)) {
			if (!(tfs_files[i].flags & d->files))
				break;
			nd->kind = TFS_K_FILE;
			nd->file = &tfs_files[i];
			return 0;
		}
	}
	for (size_t i = 0; d->table && i < *d->nr_table; i++) {
		if (!strcmp(d->table[i].name, name)) {
			nd->kind = TFS_K_FILE;
			nd->file = &d->table[i];
			return 0;
		}
	}
	for (const struct subdir *s = d->subdirs; s->name; s++) {
		if (!strcmp(s->name, name)) {
			nd->kind = s->kind;
			return 0;
		}
	}
	return d->find ? d->find(name, nd) : -ENOENT;
}

int tfs_resolve(const char *path, struct tfs_node *nd)
{
	char buf[PATH_MAX], *save = NULL;
	int ret = 0;

	memset(nd, 0, sizeof(*nd));
	nd->kind = TFS_K_ROOT;
	nd->opt = -1;
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *c = strtok_r(buf, "/", &save); c && !ret; c = strtok_r(NULL, "/", &save))
		ret = step(nd, c);
	return ret;
}

void tfs_list(const struct tfs_node *nd, tfs_fill_fn fill, void *ctx)
{
	const struct dir *d;

	if (nd->kind == TFS_K_FILE)
		return;
	d = &tree[nd->kind];
	for (size_t i = 0; d->files && i < tfs_nr_files; i++)
		if (tfs_files[i].flags & d->files)
			fill(ctx, tfs_files[i].name, false, tfs_files[i].mode);
	for (size_t i = 0; d->table && i < *d->nr_table; i++)
		fill(ctx, d->table[i].name, false, d->table[i].mode);
	for (const struct subdir *s = d->subdirs; s->name; s++)
		fill(ctx, s->name, true, DIR_MODE);
	if (d->list)
		d->list(nd, fill, ctx);
}

const char *tfs_mkdir_name(const char *path)
{
	char parent[PATH_MAX];
	const char *name = strrchr(path, '/');
	struct tfs_node nd;

	if (!name || !name[1] || (size_t)(name - path) >= sizeof(parent))
		return NULL;
	memcpy(parent, path, (size_t)(name - path));
	parent[name - path] = '\0';
	if (tfs_resolve(parent, &nd) || nd.kind == TFS_K_FILE || !tree[nd.kind].mkdir)
		return NULL;
	return name + 1;
}

// SPDX-License-Identifier: MIT
/*
 * The files of the tracefs mount and the simple control files: tracers,
 * tracing_on, the numeric settings, trace_clock, trace_options and
 * options/NAME, set_ftrace_pid, saved_cmdlines, error_log and README.  Their
 * read formats and write errors are the kernel's (shared SPEC §2-3, §12-14).
 * The filter files are in funcs.c, trace and trace_pipe in trace.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "utrace/read.h"
#include "common/names.h"
#include "tracefs/tracefs.h"
#include "utrace/abi.h"

/* ------------------------------------------------------------------ */
/* Parsing helpers                                                     */
/* ------------------------------------------------------------------ */

int tfs_parse_ulong(const char *buf, size_t len, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i;

	/* kstrtoul: digits, then at most one newline */
	if (len && buf[len - 1] == '\n')
		len--;
	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)(buf[i] - '0');

		if (d > 9 || v > (max - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int tfs_strip(const char *buf, size_t len, char *out, size_t outlen)
{
	while (len && is_space(*buf)) {
		buf++;
		len--;
	}
	while (len && is_space(buf[len - 1]))
		len--;
	if (len >= outlen || memchr(buf, '\0', len))
		return -EINVAL;
	memcpy(out, buf, len);
	out[len] = '\0';
	return 0;
}

/* The command text for error_log: the write, NUL-terminated (truncated). */
static void cmd_text(const char *buf, size_t len, char *out, size_t outlen)
{
	size_t n = len < outlen - 1 ? len : outlen - 1;

	memcpy(out, buf, n);
	out[n] = '\0';
}

static int show_cfg(struct tfs_req *r, struct ut_cfg *c)
{
	int ret = tfs_scope_config(r->sc, c);

	return ret == -ENODEV ? -ENODEV : 0;
}

/* ------------------------------------------------------------------ */
/* Settings of the configuration                                       */
/* ------------------------------------------------------------------ */

enum setting {
	S_TRACER,
	S_TRACING_ON,
	S_BUF_KB,
	S_DEPTH,
	S_THRESH,
	S_CLOCK,
	S_PROFILE,
	S_OVERWRITE,
	S_FUNC_STACK,
	S_SLEEP_TIME,
	S_PLT,
	S_INLINED,
	S_PATCH_PROLOGUE,
	S_EVENT_FORK,
};

struct set_arg {
	enum setting what;
	unsigned long long v;
};

static int edit_setting(struct ut_cfg *c, const void *p)
{
	const struct set_arg *a = p;

	switch (a->what) {
	case S_TRACER:
		c->tracer = (uint32_t)a->v;
		break;
	case S_TRACING_ON:
		c->tracing_on = a->v != 0;
		break;
	case S_BUF_KB:
		c->buf_kb = (uint32_t)a->v;
		break;
	case S_DEPTH:
		c->max_graph_depth = (uint32_t)a->v;
		break;
	case S_THRESH:
		c->thresh_us = a->v;
		break;
	case S_CLOCK:
		c->clock = (uint32_t)a->v;
		break;
	case S_PROFILE:
		c->profile = a->v != 0;
		break;
	case S_OVERWRITE:
		c->overwrite = a->v != 0;
		break;
	case S_FUNC_STACK:
		c->func_stack = a->v != 0;
		break;
	case S_SLEEP_TIME:
		c->sleep_time = a->v != 0;
		break;
	case S_PLT:
		c->plt = a->v != 0;
		break;
	case S_INLINED:
		c->inlined = a->v != 0;
		break;
	case S_PATCH_PROLOGUE:
		c->patch_prologue = a->v != 0;
		break;
	case S_EVENT_FORK:
		c->event_fork = a->v != 0;
		break;
	}
	return 0;
}

static int set(struct tfs_req *r, enum setting what, unsigned long long v, const char *buf,
	       size_t len)
{
	struct set_arg a = {.what = what, .v = v};
	char cmd[256];
	struct ut_cfg c;
	bool empties = false;
	int ret;

	if ((what == S_TRACER || what == S_CLOCK) && !tfs_scope_config(r->sc, &c)) {
		empties = (what == S_TRACER ? c.tracer : c.clock) != v;
		ut_cfg_free(&c);
	}
	cmd_text(buf, len, cmd, sizeof(cmd));
	ret = tfs_scope_edit(r->sc, edit_setting, &a, false, cmd);
	if (!ret && empties) /* the buffers were emptied: what swaps put back into them too */
		tfs_snapshot_trunc_trace(r->sc);
	return ret;
}

static int show_available_tracers(struct tfs_req *r, FILE *f)
{
	if (r->sc->inst) { /* instances run the function tracer only */
		fputs("function nop\n", f);
		return 0;
	}
	char list[128];

	fprintf(f, "%s\n", ut_tracer_list(list, sizeof(list)));
	return 0;
}

static const char *tracer_name(uint32_t t)
{
	return t < (uint32_t)UT_NR_TRACERS ? ut_tracer_names[t] : "nop";
}

static int show_current_tracer(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	int ret = show_cfg(r, &c);

	if (!ret)
		fprintf(f, "%s\n", tracer_name(c.tracer));
	ut_cfg_free(&c);
	return ret;
}

static int store_current_tracer(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	char name[64];
	int i;

	(void)append;
	if (tfs_strip(buf, len, name, sizeof(name)))
		return -EINVAL;
	i = ut_name_index(ut_tracer_names, UT_NR_TRACERS, name);
	if (i < 0 || (r->sc->inst && i == UT_TRACER_FUNCTION_GRAPH))
		return -EINVAL;
	return set(r, S_TRACER, (unsigned long long)i, buf, len);
}

/* A process's buffer size in force (rounded up by it), else @wanted. */
static unsigned long long proc_buf_kb(const struct tfs_scope *sc, uint32_t wanted)
{
	struct ut_live_sess s;
	struct ut_ctl *ctl;
	uint32_t size = 0;

	if (!tfs_scope_session(sc, &s) && (ctl = ut_live_map_ctl(s.dir))) {
		size = __atomic_load_n(&ctl->buf_size, __ATOMIC_RELAXED);
		ut_live_unmap_ctl(ctl);
	}
	return size >= 1024 ? size / 1024 : wanted;
}

/* A numeric file: the setting's value, one line. */
static int show_number(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	unsigned long long v = 0;
	int ret = show_cfg(r, &c);

	switch (r->file->arg) {
	case S_TRACING_ON:
		v = r->sc->pid || r->sc->inst ? c.tracing_on : tfs_top_tracing_on(c.tracing_on);
		break;
	case S_BUF_KB:
		v = r->sc->pid ? proc_buf_kb(r->sc, c.buf_kb) : c.buf_kb;
		break;
	case S_DEPTH:
		v = c.max_graph_depth;
		break;
	case S_THRESH:
		v = c.thresh_us;
		break;
	case S_PROFILE:
		v = c.profile;
		break;
	default:
		break;
	}
	if (!ret)
		fprintf(f, "%llu\n", v);
	ut_cfg_free(&c);
	return ret;
}

static int store_number(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	unsigned long long v, max = ~0ULL;
	enum setting what = (enum setting)r->file->arg;

	(void)append;
	if (what == S_BUF_KB)
		max = 1u << 20; /* what a process accepts (common/config.c) */
	else if (what == S_DEPTH)
		max = 0xffffffffu;
	else if (what == S_THRESH)
		max = 1ULL << 40;
	if (tfs_parse_ulong(buf, len, max, &v))
		return -EINVAL;
	if (what == S_BUF_KB && !v)
		return -EINVAL;
	if (what == S_TRACING_ON)
		return tfs_scope_set_tracing_on(r->sc, v != 0);
	return set(r, what, v, buf, len);
}

/* Instance @inst's buffers of session @dir, in KiB: those its threads made. */
static unsigned long long inst_total_kb(const char *dir, const struct ut_ctl *ctl, int inst)
{
	uint32_t nr = __atomic_load_n(&ctl->nr_slots, __ATOMIC_RELAXED);
	unsigned long long kb = 0;

	if (nr > UT_MAX_THREADS)
		nr = UT_MAX_THREADS;
	for (uint32_t k = 0; k < nr; k++) {
		char path[PATH_MAX + 32];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s%u", dir, ut_live_buf_prefix(inst), k);
		if (!lstat(path, &st) && S_ISREG(st.st_mode) && st.st_size > UT_BUF_HDR_SIZE)
			kb += (unsigned long long)(st.st_size - UT_BUF_HDR_SIZE) / 1024;
	}
	return kb;
}

/* Every buffer of the sessions in scope, in KiB. */
static int show_total_size(struct tfs_req *r, FILE *f)
{
	struct ut_live_sess *v;
	unsigned long long kb = 0;
	long n = ut_live_list(tfs_rundir, &v);

	for (long i = 0; i < n; i++) {
		struct ut_ctl *ctl;
		uint32_t nr, used = 0, size;

		if (v[i].markers || (r->sc->pid && v[i].pid != r->sc->pid))
			continue;
		ctl = ut_live_map_ctl(v[i].dir);
		if (!ctl)
			continue;
		if (r->sc->inst) {
			kb += inst_total_kb(v[i].dir, ctl, r->sc->inst);
			ut_live_unmap_ctl(ctl);
			continue;
		}
		size = __atomic_load_n(&ctl->buf_size, __ATOMIC_RELAXED);
		nr = __atomic_load_n(&ctl->nr_slots, __ATOMIC_RELAXED);
		if (nr > UT_MAX_THREADS)
			nr = UT_MAX_THREADS;
		for (uint32_t k = 0; k < nr; k++)
			used += __atomic_load_n(&ctl->threads[k].state, __ATOMIC_RELAXED) !=
				UT_SLOT_FREE;
		kb += (unsigned long long)used * (size / 1024);
		ut_live_unmap_ctl(ctl);
	}
	if (n > 0)
		free(v);
	fprintf(f, "%llu\n", kb);
	return 0;
}

static int show_trace_clock(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	int ret = show_cfg(r, &c);

	for (int i = 0; !ret && i < UT_CLOCK_NR; i++)
		fprintf(f, (uint32_t)i == c.clock ? "[%s]%s" : "%s%s", ut_clock_names[i],
			i < UT_CLOCK_NR - 1 ? " " : "\n");
	ut_cfg_free(&c);
	return ret;
}

static int store_trace_clock(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	char name[64];
	int i;

	(void)append;
	if (tfs_strip(buf, len, name, sizeof(name)))
		return -EINVAL;
	i = ut_name_index(ut_clock_names, UT_CLOCK_NR, name);
	if (i < 0)
		return -EINVAL;
	return set(r, S_CLOCK, (unsigned long long)i, buf, len);
}

/* ------------------------------------------------------------------ */
/* trace_options and options/NAME                                      */
/* ------------------------------------------------------------------ */

/* The scope's options with the configuration's values for the mapped ones. */
static void effective_opts(const struct tfs_scope *sc, const struct ut_cfg *c,
			   struct ut_opts *o)
{
	*o = sc->opts;
	ut_opts_set(o, UT_OPT_OVERWRITE, c->overwrite);
	ut_opts_set(o, UT_OPT_FUNC_STACK_TRACE, c->func_stack);
	ut_opts_set(o, UT_OPT_SLEEP_TIME, c->sleep_time);
	ut_opts_set(o, UT_OPT_PLT, c->plt);
	ut_opts_set(o, UT_OPT_INLINED, c->inlined);
	ut_opts_set(o, UT_OPT_PATCH_PROLOGUE, c->patch_prologue);
	ut_opts_set(o, UT_OPT_EVENT_FORK, c->event_fork);
}

/* Set option @id to @val: in the configuration, or in the mount's options. */
static int set_option(struct tfs_req *r, int id, int val, const char *buf, size_t len)
{
	switch (id) {
	case UT_OPT_OVERWRITE:
		return set(r, S_OVERWRITE, (unsigned long long)val, buf, len);
	case UT_OPT_FUNC_STACK_TRACE:
		return set(r, S_FUNC_STACK, (unsigned long long)val, buf, len);
	case UT_OPT_SLEEP_TIME:
		return set(r, S_SLEEP_TIME, (unsigned long long)val, buf, len);
	case UT_OPT_PLT:
		return set(r, S_PLT, (unsigned long long)val, buf, len);
	case UT_OPT_INLINED:
		return set(r, S_INLINED, (unsigned long long)val, buf, len);
	case UT_OPT_PATCH_PROLOGUE:
		return set(r, S_PATCH_PROLOGUE, (unsigned long long)val, buf, len);
	case UT_OPT_EVENT_FORK:
		return set(r, S_EVENT_FORK, (unsigned long long)val, buf, len);
	default:
		return ut_opts_set(&r->sc->opts, id, val);
	}
}

static int show_trace_options(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	struct ut_opts o;
	int ret = show_cfg(r, &c);

	if (!ret) {
		effective_opts(r->sc, &c, &o);
		ut_opts_print(&o, f, tracer_name(c.tracer), r->sc->inst != 0);
	}
	ut_cfg_free(&c);
	return ret;
}

static int store_trace_options(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct ut_cfg c;
	struct ut_opts before, after;
	char word[64];
	int ret;

	(void)append;
	if (tfs_strip(buf, len, word, sizeof(word)))
		return -EINVAL;
	if (r->sc->inst) { /* instances have no top-level-only options */
		int id = ut_opt_lookup(strncmp(word, "no", 2) ? word : word + 2);

		if (id >= 0 && ut_opt_info(id)->top_only)
			return -EINVAL;
	}
	ret = show_cfg(r, &c);
	if (ret) {
		ut_cfg_free(&c);
		return ret;
	}
	effective_opts(r->sc, &c, &before);
	after = before;
	/* Only the global flags and the current tracer's, as in the kernel. */
	ret = ut_opts_parse(&after, tracer_name(c.tracer), word);
	ut_cfg_free(&c);
	if (ret)
		return -EINVAL;
	for (int id = 0; id < UT_OPT_NR; id++) {
		int v = ut_opts_get(&after, id);

		if (v != ut_opts_get(&before, id))
			return set_option(r, id, v, buf, len);
	}
	return 0;
}

static int show_option(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	int ret = show_cfg(r, &c);

	if (!ret)
		fprintf(f, "%d\n", tfs_opt_value(r->sc, &c, r->opt));
	ut_cfg_free(&c);
	return ret;
}

static int store_option(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	unsigned long long v;

	(void)append;
	if (tfs_parse_ulong(buf, len, ~0ULL, &v) || v > 1)
		return -EINVAL;
	return set_option(r, r->opt, (int)v, buf, len);
}

/* ------------------------------------------------------------------ */
/* set_ftrace_pid (arg 0), set_event_pid (1), set_event_notrace_pid (2)  */
/* ------------------------------------------------------------------ */

struct pid_arg {
	int32_t pids[UT_CFG_MAX_PIDS];
	uint32_t n;
	bool append;
	int list;             /* the file's arg: which list */
};

/* The list a pid file shows: set_ftrace_pid's, set_event_pid's or set_event_notrace_pid's. */
static int32_t *pid_list(struct ut_cfg *c, int list, uint32_t **nr)
{
	if (list == 2) {
		*nr = &c->nr_event_notrace_pids;
		return c->event_notrace_pids;
	}
	*nr = list ? &c->nr_event_pids : &c->nr_pids;
	return list ? c->event_pids : c->pids;
}

static int edit_pids(struct ut_cfg *c, const void *p)
{
	const struct pid_arg *a = p;
	int32_t out[UT_CFG_MAX_PIDS];
	uint32_t n = 0, *nr;
	int32_t *pids = pid_list(c, a->list, &nr);

	if (a->append)
		for (uint32_t i = 0; i < *nr && i < UT_CFG_MAX_PIDS; i++)
			out[n++] = pids[i];
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t k = 0;

		while (k < n && out[k] != a->pids[i])
			k++;
		if (k < n)
			continue;
		if (n == UT_CFG_MAX_PIDS)
			return -ENOSPC;
		out[n++] = a->pids[i];
	}
	memcpy(pids, out, n * sizeof(out[0]));
	*nr = n;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* Ascending, one a line; an empty set_ftrace_pid says "no pid", the event lists nothing. */
static int show_pids(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	int ret = show_cfg(r, &c);
	uint32_t *nr;
	int32_t *pids = pid_list(&c, r->file->arg, &nr);

	if (!ret && !*nr && r->file->arg == 0)
		fputs("no pid\n", f);
	if (!ret && *nr) {
		uint32_t n = *nr < UT_CFG_MAX_PIDS ? *nr : UT_CFG_MAX_PIDS;

		qsort(pids, n, sizeof(pids[0]), cmp_pid);
		for (uint32_t i = 0; i < n; i++)
			fprintf(f, "%d\n", pids[i]);
	}
	ut_cfg_free(&c);
	return ret;
}

static int store_pids(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct pid_arg a = {.append = append, .list = r->file->arg};
	char cmd[256];
	size_t i = 0;

	while (i < len) {
		unsigned long long v;
		size_t w;

		while (i < len && is_space(buf[i]))
			i++;
		for (w = i; w < len && !is_space(buf[w]);)
			w++;
		if (w == i)
			break;
		if (tfs_parse_ulong(buf + i, w - i, 0x3fffffff, &v) || !v)
			return -EINVAL;
		if (a.n == UT_CFG_MAX_PIDS)
			return -ENOSPC;
		a.pids[a.n++] = (int32_t)v;
		i = w;
	}
	if (!a.n && append)
		return 0;
	cmd_text(buf, len, cmd, sizeof(cmd));
	return tfs_scope_edit(r->sc, edit_pids, &a, false, cmd);
}

/* ------------------------------------------------------------------ */
/* trace_marker                                                        */
/* ------------------------------------------------------------------ */

/* The comm of thread @tid, as the kernel shows the task that wrote. */
static void thread_comm(int32_t tid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(comm, len, "<...>");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	f = tid > 0 ? fopen(path, "re") : NULL;
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

/*
 * Each write(2) is one marker event of the writing thread: at the top level
 * in the mount's own markers-only session (merged into every trace of the
 * top level), under instances/NAME/ in that session's buffer of the
 * instance, under processes/PID/ in that process's buffers.  Trailing
 * newlines are dropped (the event's line ends with one); the text is cut at
 * UT_REC_MARKER_MAX bytes, which the write returns, as the kernel does at
 * its page limit.  Then ftrace:print's triggers run (tracefs/marker_trig.c),
 * as the kernel runs them in the writer.
 */
static int store_marker(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	char text[UT_REC_MARKER_MAX + 1], comm[17], dir[PATH_MAX];
	size_t n = len < UT_REC_MARKER_MAX ? len : UT_REC_MARKER_MAX, k = n;
	struct ut_live_sess s;
	struct ut_cfg c;
	uint64_t ts = 0;
	bool on;
	int ret;

	(void)append;
	ret = show_cfg(r, &c);
	/* from a CPU outside tracing_cpumask: as if tracing were off there */
	on = c.tracing_on && tfs_cpumask_lets(&c, r->caller);
	if (!ret && !ut_opts_get(&r->sc->opts, UT_OPT_MARKERS))
		ret = -EINVAL;
	else if (!ret && !on)
		ret = -EBADF;
	if (ret) {
		ut_cfg_free(&c);
		return ret;
	}
	while (k && buf[k - 1] == '\n')
		k--;
	memcpy(text, buf, k);
	text[k] = '\0';
	thread_comm(r->caller, comm, sizeof(comm));
	if (r->sc->pid) {
		ret = tfs_scope_session(r->sc, &s) ? -ENODEV : 0;
		if (!ret)
			snprintf(dir, sizeof(dir), "%s", s.dir);
	} else /* the top level and instances: the mount's markers-only session */
		ret = ut_live_marker_session(tfs_rundir, dir, sizeof(dir));
	if (!ret)
		ret = ut_live_marker_at(dir, r->sc->inst, r->caller, comm, text, &ts);
	if (!ret) { /* ftrace:print's triggers see the text as written, newlines kept */
		memcpy(text, buf, n);
		text[n] = '\0';
		tfs_mtrig_fire(r, c.triggers, dir, r->caller, comm, text, ts);
	}
	ut_cfg_free(&c);
	if (ret == -ENOSPC)
		return -EBADF; /* the kernel's answer when the buffer is full */
	return ret ? ret : (int)n;
}

/* ------------------------------------------------------------------ */
/* saved_cmdlines, error_log, README                                   */
/* ------------------------------------------------------------------ */

/* Was @tid printed already?  (Remembers it if not.) */
static bool seen_tid(int32_t **seen, size_t *n, int32_t tid)
{
	int32_t *nv;

	for (size_t i = 0; i < *n; i++)
		if ((*seen)[i] == tid)
			return true;
	nv = realloc(*seen, (*n + 1) * sizeof(*nv));
	if (nv) {
		*seen = nv;
		nv[(*n)++] = tid;
	}
	return false;
}

/* One "PID COMM" line per thread that has a buffer (the first comm seen). */
static int show_cmdlines(struct tfs_req *r, FILE *f)
{
	struct ut_live_sess *v;
	long n = ut_live_list(tfs_rundir, &v);
	int32_t *seen = NULL;
	size_t nseen = 0;

	for (long i = 0; i < n; i++) {
		struct ut_ctl *ctl;
		uint32_t nr;

		if (r->sc->pid && v[i].pid != r->sc->pid)
			continue;
		ctl = ut_live_map_ctl(v[i].dir);
		if (!ctl)
			continue;
		nr = __atomic_load_n(&ctl->nr_slots, __ATOMIC_ACQUIRE);
		if (nr > UT_MAX_THREADS)
			nr = UT_MAX_THREADS;
		for (uint32_t k = 0; k < nr; k++) {
			const struct ut_thread_slot *ts = &ctl->threads[k];
			char comm[17];
			int32_t tid = ts->tid;

			if (__atomic_load_n(&ts->state, __ATOMIC_ACQUIRE) == UT_SLOT_FREE || tid <= 0 ||
			    seen_tid(&seen, &nseen, tid))
				continue;
			memcpy(comm, ts->comm, 16);
			comm[16] = '\0';
			fprintf(f, "%d %s\n", tid, comm[0] ? comm : "<...>");
		}
		ut_live_unmap_ctl(ctl);
	}
	if (n > 0)
		free(v);
	free(seen);
	return 0;
}

static int show_error_log(struct tfs_req *r, FILE *f)
{
	tfs_errlog_print(r->sc, f);
	return 0;
}

static int trunc_error_log(struct tfs_req *r)
{
	tfs_errlog_clear(r->sc);
	return 0;
}

/* Writes that the kernel accepts and ignores (trace, error_log). */
static int store_ignore(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	(void)r;
	(void)buf;
	(void)len;
	(void)append;
	return 0;
}

static int show_readme(struct tfs_req *r, FILE *f)
{
	(void)r;
	fputs(tfs_readme, f);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The tables                                                          */
/* ------------------------------------------------------------------ */

#define ALL (TFS_TOP | TFS_PROC)

const struct tfs_file tfs_files[] = {
	{"README", 0440, ALL, show_readme, NULL, NULL, 0},
	{"available_events", 0440, ALL, tfs_show_available_events, NULL, NULL, 0},
	{"available_filter_functions", 0440, ALL, tfs_show_available, NULL, NULL, 0},
	{"available_tracers", 0440, ALL | TFS_INST, show_available_tracers, NULL, NULL, 0},
	{"buffer_size_kb", 0640, ALL | TFS_INST, show_number, store_number, NULL, S_BUF_KB},
	{"buffer_total_size_kb", 0440, ALL | TFS_INST, show_total_size, NULL, NULL, 0},
	{"current_tracer", 0640, ALL | TFS_INST, show_current_tracer, store_current_tracer, NULL, 0},
	{"dynamic_events", 0640, ALL, tfs_show_dynevents, tfs_store_dynevents, tfs_trunc_synth, 0},
	{"error_log", 0640, ALL | TFS_INST, show_error_log, store_ignore, trunc_error_log, 0},
	{"function_profile_enabled", 0640, ALL, show_number, store_number, NULL, S_PROFILE},
	{"max_graph_depth", 0640, ALL, show_number, store_number, NULL, S_DEPTH},
	{"saved_cmdlines", 0440, ALL, show_cmdlines, NULL, NULL, 0},
	{"set_event", 0640, ALL | TFS_LIST, tfs_show_set_event, tfs_store_set_event, NULL, 0},
	{"set_ftrace_filter", 0640, ALL | TFS_INST | TFS_LIST, tfs_show_list, tfs_store_list, NULL, 0},
	{"set_ftrace_notrace", 0640, ALL | TFS_INST | TFS_LIST, tfs_show_list, tfs_store_list, NULL, 1},
	{"set_event_notrace_pid", 0640, ALL | TFS_LIST, show_pids, store_pids, NULL, 2},
	{"set_event_pid", 0640, ALL | TFS_LIST, show_pids, store_pids, NULL, 1},
	{"set_ftrace_pid", 0640, ALL | TFS_INST | TFS_LIST, show_pids, store_pids, NULL, 0},
	{"set_graph_function", 0640, ALL | TFS_LIST, tfs_show_list, tfs_store_list, NULL, 2},
	{"set_graph_notrace", 0640, ALL | TFS_LIST, tfs_show_list, tfs_store_list, NULL, 3},
	{"snapshot", 0640, ALL | TFS_INST, tfs_show_snapshot, tfs_store_snapshot, NULL, 0},
	{"synthetic_events", 0640, ALL, tfs_show_synth, tfs_store_synth, tfs_trunc_synth, 0},
	{"trace", 0640, ALL | TFS_INST | TFS_TRACE, tfs_show_trace, store_ignore, tfs_trunc_trace, 0},
	{"trace_clock", 0640, ALL | TFS_INST, show_trace_clock, store_trace_clock, NULL, 0},
	{"trace_marker", 0220, ALL | TFS_INST, NULL, store_marker, NULL, 0},
	{"trace_options", 0640, ALL | TFS_INST, show_trace_options, store_trace_options, NULL, 0},
	{"trace_pipe", 0440, ALL | TFS_INST | TFS_STREAM, NULL, NULL, NULL, 0},
	{"tracing_cpumask", 0640, ALL, tfs_show_cpumask, tfs_store_cpumask, NULL, 0},
	{"tracing_on", 0640, ALL | TFS_INST, show_number, store_number, NULL, S_TRACING_ON},
	{"tracing_thresh", 0640, ALL, show_number, store_number, NULL, S_THRESH},
};
const size_t tfs_nr_files = sizeof(tfs_files) / sizeof(tfs_files[0]);

const struct tfs_file tfs_thread_files[] = {
	{"trace", 0640, TFS_PROC | TFS_TRACE, tfs_show_trace, store_ignore, tfs_trunc_trace, 0},
	{"trace_pipe", 0440, TFS_PROC | TFS_STREAM, NULL, NULL, NULL, 0},
	{"stats", 0440, TFS_PROC, tfs_show_thread_stats, NULL, NULL, 0},
	{"buffer_size_kb", 0440, TFS_PROC, tfs_show_thread_buffer_kb, NULL, NULL, 0},
};
const size_t tfs_nr_thread_files = sizeof(tfs_thread_files) / sizeof(tfs_thread_files[0]);

const struct tfs_file tfs_option_file = {"", 0640, ALL, show_option, store_option, NULL, 0};

/*
 * trace_stat/function: the function profiler's table, every thread of the
 * scope merged (the kernel has one file per CPU: functionN; ours are per
 * thread, processes/PID/trace_stat/functionTID).
 */
static int show_stat(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	uint64_t thresh = 0;
	int ret;

	if (!tfs_scope_config(r->sc, &c)) {
		thresh = c.thresh_us * 1000;
		ut_cfg_free(&c);
	}
	ret = ut_live_stat(tfs_rundir, r->sc->pid ? &r->sc->pid : NULL, r->sc->pid ? 1 : 0, f,
			   ut_opts_get(&r->sc->opts, UT_OPT_GRAPH_TIME) != 0,
			   ut_opts_get(&r->sc->opts, UT_OPT_SYM_DEMANGLE) != 0 ? UT_STAT_DEMANGLE : 0, thresh,
			   r->tid);
	return ret == -ESRCH ? 0 : ret;
}

const struct tfs_file tfs_stat_file = {"function", 0440, ALL, show_stat, NULL, NULL, 0};

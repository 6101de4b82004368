// SPDX-License-Identifier: MIT
/* Live control, the writer side (common/control.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/control.h"
#include "common/sessname.h"
#include "common/proc_alive.h"
#include "common/safedir.h"
#include "common/symbols.h"
#include "common/tail_claim.h"
#include "utrace/abi.h"
#include "utrace/read.h"

#define APPLY_TIMEOUT_MS 5000

char *ut_rundir(char *buf, size_t len)
{
	const char *env = getenv("UTRACE_DIR");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else
		snprintf(buf, len, "/dev/shm/utrace-%u", (unsigned)getuid());
	return buf;
}

/* The last refusal (of any thread: readers refuse in their drainers), for ut_live_strerror(). */
static pthread_mutex_t refusal_mu = PTHREAD_MUTEX_INITIALIZER;
static char refusal[UT_SAFE_WHY_MAX];

static int refused(int ret, const char *why)
{
	if (ret == -EPERM) {
		pthread_mutex_lock(&refusal_mu);
		snprintf(refusal, sizeof(refusal), "%s", why);
		pthread_mutex_unlock(&refusal_mu);
	}
	return ret;
}

const char *ut_live_strerror(int err)
{
	static __thread char copy[UT_SAFE_WHY_MAX];

	if (err < 0)
		err = -err;
	if (err != EPERM)
		return strerror(err);
	pthread_mutex_lock(&refusal_mu);
	snprintf(copy, sizeof(copy), "%s", refusal[0] ? refusal : strerror(err));
	pthread_mutex_unlock(&refusal_mu);
	return copy;
}

int ut_live_open(const char *path, int flags)
{
	char why[UT_SAFE_WHY_MAX];

	return refused(ut_safe_openat(AT_FDCWD, path, flags, why, sizeof(why)), why);
}

int ut_live_root(const char *rundir, bool create)
{
	char why[UT_SAFE_WHY_MAX];

	return refused(ut_safe_root(rundir, create, why, sizeof(why)), why);
}

/* The run-time directory is there and trusted (made if @create). 0 or -errno. */
static int check_root(const char *rundir, bool create)
{
	int fd = ut_live_root(rundir, create);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/*
 * Does the process of @ctl still run?  By pid and start time: a zombie (a
 * kill -9 not yet reaped) or a recycled pid has no session of ours; its
 * agent is not asked (it would never answer).
 */
static bool ctl_alive(const struct ut_ctl *ctl)
{
	if (!__atomic_load_n(&ctl->alive, __ATOMIC_ACQUIRE))
		return false;
	return ut_proc_alive(ctl->pid, ctl->start_ns);
}

static int cmp_sess(const void *a, const void *b)
{
	const struct ut_live_sess *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->pid - y->pid;
}

/*
 * A session directory @dir of the trusted run-time directory: itself
 * trusted (never a link to elsewhere), and its control block.  NULL (errno)
 * if not one; EPERM: refused.
 */
static struct ut_ctl *map_session(const char *dir)
{
	return ut_live_map_ctl(dir);
}

/*
 * A session whose pid has a newer session that still runs belongs to the
 * image that process replaced by exec (a traced program's fork child makes
 * a session, and the program it execs another): the same pid and start
 * time, so ctl_alive() cannot tell, but nothing answers in it any more (its
 * agent went with the old image).  @v is sorted oldest first.
 */
static void superseded(struct ut_live_sess *v, long n)
{
	for (long i = 0; i < n; i++)
		for (long k = i + 1; v[i].alive && !v[i].markers && k < n; k++)
			if (v[k].pid == v[i].pid && v[k].alive && !v[k].markers)
				v[i].alive = false;
}

/*
 * The sessions of @rundir made by process @pid (0: all).  By the name
 * (common/sessname.h): the sessions of one pid are found without mapping
 * every other session's control block: the mount looks one up on every
 * request under processes/PID/, and a traced shell script leaves hundreds.
 */
static long list_sessions(const char *rundir, int32_t pid, struct ut_live_sess **out)
{
	int fd = ut_live_root(rundir, false);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct ut_live_sess *v = NULL;
	struct dirent *de;
	long n = 0;

	*out = NULL;
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct ut_live_sess s = {0}, *nv;
		struct ut_ctl *ctl;
		int32_t made_by;

		if (!ut_sessname_parse(de->d_name, &made_by, NULL) ||
		    strlen(de->d_name) >= sizeof(s.name) || (pid && made_by != pid))
			continue;
		snprintf(s.dir, sizeof(s.dir), "%s/%s", rundir, de->d_name);
		ctl = map_session(s.dir);
		if (!ctl && errno == EPERM) {
			/* someone else's session among ours: nothing here is sure */
			free(v);
			closedir(d);
			return -EPERM;
		}
		if (!ctl)
			continue;
		snprintf(s.name, sizeof(s.name), "%s", de->d_name);
		s.pid = ctl->pid;
		memcpy(s.comm, ctl->comm, 16);
		s.comm[16] = '\0';
		s.alive = ctl_alive(ctl);
		s.tracer = ctl->tracer;
		s.clock = ctl->clock < UT_CLOCK_NR ? ctl->clock : UT_CLOCK_LOCAL;
		s.tracing_on = ctl->tracing_on;
		s.markers = (ctl->flags & UT_CTL_MARKERS) != 0;
		s.apply_ns = ctl->cfg_apply_ns;
		s.nr_threads = ctl->nr_slots < UT_MAX_THREADS ? ctl->nr_slots : UT_MAX_THREADS;
		s.buf_bytes = ctl->buf_bytes;
		s.snap_requests = __atomic_load_n(&ctl->snap_requests, __ATOMIC_ACQUIRE);
		s.start_ns = ctl->start_ns;
		ut_live_unmap_ctl(ctl);
		nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v = nv;
		v[n++] = s;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_sess);
	superseded(v, n);
	*out = v;
	return n;
}

long ut_live_list(const char *rundir, struct ut_live_sess **out)
{
	return list_sessions(rundir, 0, out);
}

int ut_live_find(const char *rundir, int32_t pid, struct ut_live_sess *out)
{
	struct ut_live_sess *v = NULL;
	char path[64];
	struct stat st;
	int ret = -ESRCH;
	long n;

	n = pid > 0 ? list_sessions(rundir, pid, &v) : 0;
	if (n < 0)
		return (int)n;
	for (long i = n - 1; i >= 0; i--) { /* the newest image of that pid */
		if (v[i].pid == pid && !v[i].markers) {
			*out = v[i];
			ret = 0;
			break;
		}
	}
	free(v);
	if (ret) {
		/* Someone else's process: say so rather than "not traced". */
		snprintf(path, sizeof(path), "/proc/%d", (int)pid);
		if (!stat(path, &st) && getuid() != 0 && st.st_uid != getuid())
			ret = -EACCES;
	}
	return ret;
}

/* Read a whole small text file. NUL-terminated malloc'd text, or NULL (errno). */
static char *read_text(int fd, size_t *lenp)
{
	struct stat st;
	char *text;
	ssize_t n;

	if (fstat(fd, &st))
		return NULL;
	if (st.st_size < 0 || st.st_size > (off_t)UT_CFG_MAX_TEXT) {
		errno = EFBIG;
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return NULL;
	n = pread(fd, text, (size_t)st.st_size, 0);
	if (n < 0) {
		free(text);
		return NULL;
	}
	text[n] = '\0';
	*lenp = (size_t)n;
	return text;
}

/* "config", or instance K's "config.iK" */
static const char *cfg_name(int inst)
{
	static const char *const names[UT_MAX_INSTANCES + 1] = {
		"config", "config.i1", "config.i2", "config.i3", "config.i4", "config.i5",
		"config.i6", "config.i7"};

	return inst > 0 && inst <= UT_MAX_INSTANCES ? names[inst] : names[0];
}

const char *ut_live_buf_prefix(int inst)
{
	static const char *const names[UT_MAX_INSTANCES + 1] = {
		"buf.", "i1.buf.", "i2.buf.", "i3.buf.", "i4.buf.", "i5.buf.", "i6.buf.", "i7.buf."};

	return inst > 0 && inst <= UT_MAX_INSTANCES ? names[inst] : names[0];
}

int ut_live_get_config(const char *dir, int inst, struct ut_cfg *c)
{
	char path[PATH_MAX], *text;
	size_t len = 0;
	int fd, ret;

	ut_cfg_init(c);
	if (inst) { /* an instance's defaults: off until configured */
		c->tracer = UT_TRACER_NOP;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, cfg_name(inst));
	fd = ut_live_open(path, O_RDONLY);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	text = read_text(fd, &len);
	close(fd);
	if (!text)
		return -errno;
	ret = ut_cfg_parse(c, text, len, NULL, 0);
	free(text);
	return ret;
}

static int write_text(int fd, const char *text)
{
	size_t len = strlen(text);

	if (ftruncate(fd, 0) || pwrite(fd, text, len, 0) != (ssize_t)len)
		return -EIO;
	return 0;
}

static int futex_wait_ms(uint32_t *word, uint32_t val, int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	return (int)syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* Bump the generation, wake the agent, wait for its answer. */
static int kick_and_wait(struct ut_ctl *ctl, char *err, size_t errlen)
{
	uint32_t gen = __atomic_add_fetch(&ctl->cfg_gen, 1, __ATOMIC_ACQ_REL);
	int waited = 0;

	syscall(SYS_futex, &ctl->cfg_gen, FUTEX_WAKE, 1, NULL, NULL, 0);
	for (;;) {
		uint32_t applied = __atomic_load_n(&ctl->cfg_applied, __ATOMIC_ACQUIRE);

		if ((int32_t)(applied - gen) >= 0)
			break;
		if (!ctl_alive(ctl)) {
			snprintf(err, errlen, "process %d has exited", ctl->pid);
			return -ESRCH;
		}
		if (waited >= APPLY_TIMEOUT_MS) {
			snprintf(err, errlen, "process %d does not answer (no agent?)", ctl->pid);
			return -ETIMEDOUT;
		}
		futex_wait_ms(&ctl->cfg_applied, applied, 50);
		waited += 50;
	}
	if (ctl->cfg_error) {
		char msg[sizeof(ctl->cfg_errmsg) + 1];

		memcpy(msg, ctl->cfg_errmsg, sizeof(ctl->cfg_errmsg));
		msg[sizeof(ctl->cfg_errmsg)] = '\0';
		snprintf(err, errlen, "%s", msg[0] ? msg : strerror(-ctl->cfg_error));
		return ctl->cfg_error < 0 && ctl->cfg_error > -4096 ? ctl->cfg_error : -EINVAL;
	}
	return 0;
}

/* A session that went while it was being written to: its process has exited (-ESRCH). */
static int gone(const char *sessdir, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: the process has exited", sessdir);
	return -ESRCH;
}

/*
 * One session: under the config file's lock, write @c, apply, and put the old
 * text back if it is refused (unless @keep_on_error: lenient documents apply
 * what they can and report EINVAL only so the caller can tell).
 */
static int set_config(const char *sessdir, int inst, const struct ut_cfg *c, bool keep_on_error,
		      char *err, size_t errlen)
{
	char path[PATH_MAX], *old = NULL, *text = NULL;
	struct ut_ctl *ctl = ut_live_map_ctl(sessdir);
	size_t oldlen = 0;
	int fd = -1, ret;

	if (!ctl) {
		ret = -errno;
		if (ret == -ENOENT) /* the process exited and its session went since it was listed */
			return gone(sessdir, err, errlen);
		if (ret == -EPERM)
			snprintf(err, errlen, "%s", ut_live_strerror(ret));
		else
			snprintf(err, errlen, "%s: %s", sessdir, strerror(-ret));
		return ret;
	}
	if (!ctl_alive(ctl)) {
		snprintf(err, errlen, "process %d has exited", ctl->pid);
		ut_live_unmap_ctl(ctl);
		return -ESRCH;
	}
	if (ctl->flags & UT_CTL_MARKERS) {
		snprintf(err, errlen, "a markers-only session has no configuration");
		ut_live_unmap_ctl(ctl);
		return -EOPNOTSUPP;
	}
	snprintf(path, sizeof(path), "%s/%s", sessdir, cfg_name(inst));
	fd = ut_live_open(path, O_RDWR | O_CREAT);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		ret = fd < 0 ? fd : -errno;
		if (ret == -ENOENT) { /* its directory went meanwhile: the process is gone */
			ret = gone(sessdir, err, errlen);
			goto out;
		}
		if (ret == -EPERM) /* the refusal names the path */
			snprintf(err, errlen, "%s", ut_live_strerror(ret));
		else
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		goto out;
	}
	old = read_text(fd, &oldlen);
	text = ut_cfg_format(c);
	if (!old || !text) {
		ret = -ENOMEM;
		goto out;
	}
	ret = write_text(fd, text);
	if (!ret)
		ret = kick_and_wait(ctl, err, errlen);
	/* an exiting process's agent may fail to apply it (its session removed meanwhile) */
	if (ret && ret != -ESRCH && !ctl_alive(ctl))
		ret = gone(sessdir, err, errlen);
	if (ret && ret != -ESRCH && !(keep_on_error && ret == -EINVAL)) {
		char ignored[128];

		/* The agent kept the old configuration: so does the file. */
		write_text(fd, old);
		if (ret == -ETIMEDOUT)
			kick_and_wait(ctl, ignored, sizeof(ignored));
	}
out:
	free(old);
	free(text);
	if (fd >= 0)
		close(fd); /* drops the lock */
	ut_live_unmap_ctl(ctl);
	return ret;
}

int ut_live_set_config(const char *sessdir, const struct ut_cfg *c, char *err, size_t errlen)
{
	err[0] = '\0';
	return set_config(sessdir, 0, c, c->lenient, err, errlen);
}

int ut_live_set_template(const char *rundir, int inst, const struct ut_cfg *c)
{
	char path[PATH_MAX], tmp[PATH_MAX], *text = ut_cfg_format(c);
	int fd, ret = 0;

	if (!text)
		return -ENOMEM;
	ret = check_root(rundir, true);
	if (ret) {
		free(text);
		return ret;
	}
	snprintf(path, sizeof(path), "%s/%s", rundir, cfg_name(inst));
	snprintf(tmp, sizeof(tmp), "%s/.config.%d", rundir, (int)getpid());
	unlink(tmp); /* a crashed writer's, with our pid */
	fd = ut_live_open(tmp, O_WRONLY | O_CREAT | O_EXCL);
	if (fd < 0)
		ret = fd;
	else if (write_text(fd, text) || rename(tmp, path))
		ret = -errno ? -errno : -EIO;
	if (fd >= 0)
		close(fd);
	if (ret && fd >= 0)
		unlink(tmp);
	free(text);
	return ret;
}

int ut_live_edit_all(const char *rundir, int (*edit)(struct ut_cfg *c, const void *arg),
		     const void *arg, const struct ut_cfg *tmpl, char *err, size_t errlen)
{
	struct ut_live_sess *v = NULL;
	struct ut_cfg *olds;
	long n = ut_live_list(rundir, &v);
	int ret = 0, tried = 0, refused = 0;

	err[0] = '\0';
	if (n < 0)
		return (int)n;
	olds = calloc((size_t)n + 1, sizeof(*olds));
	for (long i = 0; olds && v && i < n; i++) {
		struct ut_cfg pc;
		char e[256] = "";
		int r;

		ut_cfg_init(&olds[i]);
		if (!v[i].alive || v[i].markers)
			continue;
		r = ut_live_get_config(v[i].dir, 0, &olds[i]);
		if (r == -EPERM && !ret) {
			ret = r;
			snprintf(err, errlen, "%s", ut_live_strerror(r));
		}
		if (r || ut_cfg_copy(&pc, &olds[i]))
			continue;
		r = edit(&pc, arg);
		pc.lenient = true;
		if (!r)
			r = set_config(v[i].dir, 0, &pc, true, e, sizeof(e));
		ut_cfg_free(&pc);
		if (r == -ESRCH)
			continue; /* gone meanwhile */
		tried++;
		if (r == -EINVAL) {
			refused++;
			snprintf(err, errlen, "%s", e);
		} else if (r && !ret) {
			ret = r;
			snprintf(err, errlen, "process %d: %s", v[i].pid, e);
		}
	}
	if (!olds)
		ret = -ENOMEM;
	if (!ret && tried && refused == tried) {
		/* Nothing matched anywhere: the kernel's EINVAL; undo. */
		for (long i = 0; v && i < n; i++) {
			char e[256];

			if (v[i].alive && !v[i].markers)
				set_config(v[i].dir, 0, &olds[i], true, e, sizeof(e));
		}
		ret = -EINVAL;
	} else if (!ret) {
		err[0] = '\0';
		ret = ut_live_set_template(rundir, 0, tmpl);
		if (!ret)
			ut_live_template_to_new(rundir, v, v ? n : 0, tmpl);
	}
	for (long i = 0; olds && i < n; i++)
		ut_cfg_free(&olds[i]);
	free(olds);
	free(v);
	return ret;
}

void ut_live_template_to_new(const char *rundir, const struct ut_live_sess *seen, long nseen,
			     const struct ut_cfg *tmpl)
{
	struct ut_live_sess *v = NULL;
	struct ut_cfg c;
	long n = ut_live_list(rundir, &v);

	if (n <= 0 || ut_cfg_copy(&c, tmpl)) {
		free(v);
		return;
	}
	c.lenient = true;
	for (long i = 0; i < n; i++) {
		char e[256];
		long k = 0;

		while (seen && k < nseen && strcmp(seen[k].name, v[i].name) != 0)
			k++;
		if (k == nseen && v[i].alive && !v[i].markers)
			set_config(v[i].dir, 0, &c, true, e, sizeof(e));
	}
	ut_cfg_free(&c);
	free(v);
}

/* ut_live_set_all's edit: the whole configuration replaced. */
static int replace_cfg(struct ut_cfg *c, const void *arg)
{
	ut_cfg_free(c);
	return ut_cfg_copy(c, arg);
}

int ut_live_set_all(const char *rundir, const struct ut_cfg *c, char *err, size_t errlen)
{
	return ut_live_edit_all(rundir, replace_cfg, c, c, err, errlen);
}

int ut_live_set_tracing_on(const char *sessdir, bool on)
{
	struct ut_ctl *ctl = ut_live_map_ctl(sessdir);

	if (!ctl)
		return -errno;
	__atomic_store_n(&ctl->tracing_on, on ? 1u : 0u, __ATOMIC_RELEASE);
	ut_live_unmap_ctl(ctl);
	return 0;
}

int ut_live_clear(const char *sessdir, int inst)
{
	struct ut_ctl *ctl = ut_live_map_ctl(sessdir);
	uint32_t nr;

	if (!ctl)
		return -errno;
	nr = ctl->nr_slots < UT_MAX_THREADS ? ctl->nr_slots : UT_MAX_THREADS;
	/* losses counted away from the rings go too, as the kernel's reset zeroes its overruns */
	if (inst >= 0 && inst < UT_CTL_INST) {
		__atomic_store_n(&ctl->recycled_lost[inst], 0, __ATOMIC_RELEASE);
		__atomic_store_n(&ctl->recycled_told[inst], 0, __ATOMIC_RELEASE);
	}
	for (uint32_t i = 0; i < nr; i++) {
		char path[PATH_MAX], err[256];
		struct ut_buf_hdr *h;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s%u", sessdir, ut_live_buf_prefix(inst), i);
		/*
		 * The sessions layer checks the file (trusted, at least a header:
		 * a thread creating its buffer right now has not sized it yet, and
		 * touching a mapping past the end would be SIGBUS).
		 */
		if (ut_sess_map_buf(path, true, true, (void **)&h, &len, err, sizeof(err)))
			continue;
		if (h->magic == UT_BUF_MAGIC) {
			/* `written` first: it never counts a record beyond head */
			uint64_t written = __atomic_load_n(&h->written, __ATOMIC_ACQUIRE);
			uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);

			ut_tail_claim(h, (struct ut_tail){head, written});
		}
		munmap(h, UT_BUF_HDR_SIZE);
	}
	ut_live_unmap_ctl(ctl);
	return 0;
}

int ut_live_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode))
			ut_live_remove(path);
		else
			unlink(path);
	}
	closedir(d);
	return rmdir(dir) ? -errno : 0;
}

/* ut_live_open() as a stdio stream (NULL, errno set, if refused or absent). */
FILE *ut_live_fopen(const char *path, int flags, const char *mode)
{
	int fd = ut_live_open(path, flags);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, mode);
	if (!f) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}

void ut_live_prune_symbols(const char *rundir)
{
	DIR *d = opendir(rundir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		struct stat st;

		/* one link left: the run-time directory's own, no session's */
		if (!strncmp(de->d_name, ".syms-", 6) &&
		    !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_nlink == 1)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
}

/* --- instances/ ---------------------------------------------------------- */

int ut_inst_list(const char *rundir, char names[UT_MAX_INSTANCES + 1][UT_INST_NAME_MAX])
{
	char path[PATH_MAX], line[UT_INST_NAME_MAX + 16];
	FILE *f;
	int n = 0;

	memset(names, 0, sizeof(char[UT_MAX_INSTANCES + 1][UT_INST_NAME_MAX]));
	snprintf(path, sizeof(path), "%s/instances", rundir);
	f = ut_live_fopen(path, O_RDONLY, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char name[UT_INST_NAME_MAX];
		int k;

		if (sscanf(line, "%d %63s", &k, name) == 2 && k >= 1 && k <= UT_MAX_INSTANCES) {
			snprintf(names[k], UT_INST_NAME_MAX, "%s", name);
			n++;
		}
	}
	if (f)
		fclose(f);
	return n;
}

int ut_inst_find(const char *rundir, const char *name)
{
	char names[UT_MAX_INSTANCES + 1][UT_INST_NAME_MAX];

	ut_inst_list(rundir, names);
	for (int k = 1; k <= UT_MAX_INSTANCES; k++)
		if (names[k][0] && !strcmp(names[k], name))
			return k;
	return -ENOENT;
}

static int write_registry(const char *rundir, char names[UT_MAX_INSTANCES + 1][UT_INST_NAME_MAX])
{
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/instances", rundir);
	snprintf(tmp, sizeof(tmp), "%s/.instances.%d", rundir, (int)getpid());
	unlink(tmp); /* a crashed writer's, with our pid */
	f = ut_live_fopen(tmp, O_WRONLY | O_CREAT | O_EXCL, "we");
	if (!f)
		return -errno;
	for (int k = 1; k <= UT_MAX_INSTANCES; k++)
		if (names[k][0])
			fprintf(f, "%d %s\n", k, names[k]);
	if (fclose(f) || rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

int ut_inst_create(const char *rundir, const char *name)
{
	char names[UT_MAX_INSTANCES + 1][UT_INST_NAME_MAX];
	int k, free_k = 0, ret;

	if (!*name || strlen(name) >= UT_INST_NAME_MAX || strchr(name, '/') ||
	    strchr(name, ' ') || strchr(name, '\n') || name[0] == '.')
		return -EINVAL;
	ret = check_root(rundir, true);
	if (ret)
		return ret;
	ut_inst_list(rundir, names);
	for (k = 1; k <= UT_MAX_INSTANCES; k++) {
		if (names[k][0] && !strcmp(names[k], name))
			return -EEXIST;
		if (!names[k][0] && !free_k)
			free_k = k;
	}
	if (!free_k)
		return -ENOSPC;
	snprintf(names[free_k], UT_INST_NAME_MAX, "%s", name);
	ret = write_registry(rundir, names);
	if (!ret) /* a new instance is on, whatever one of that number left */
		ret = ut_inst_set_tracing_on(rundir, free_k, true);
	return ret ? ret : free_k;
}

int ut_inst_set_all(const char *rundir, int inst, const struct ut_cfg *c, char *err, size_t errlen)
{
	struct ut_live_sess *v;
	struct ut_cfg lenient;
	long n;
	int ret;

	err[0] = '\0';
	if (inst < 1 || inst > UT_MAX_INSTANCES)
		return -EINVAL;
	if (ut_cfg_copy(&lenient, c))
		return -ENOMEM;
	lenient.lenient = true;
	ret = ut_live_set_template(rundir, inst, &lenient);
	n = ut_live_list(rundir, &v);
	for (long i = 0; v && i < n; i++) {
		char e[256];
		int r;

		if (!v[i].alive || v[i].markers)
			continue;
		r = set_config(v[i].dir, inst, &lenient, true, e, sizeof(e));
		if (r && r != -ESRCH && r != -EINVAL && !ret) {
			ret = r;
			snprintf(err, errlen, "process %d: %s", v[i].pid, e);
		}
	}
	if (n > 0)
		free(v);
	ut_cfg_free(&lenient);
	return ret;
}

int ut_inst_remove(const char *rundir, const char *name)
{
	char names[UT_MAX_INSTANCES + 1][UT_INST_NAME_MAX], path[PATH_MAX + 16], err[256];
	struct ut_live_sess *v;
	struct ut_cfg off;
	int k = ut_inst_find(rundir, name);
	long n;

	if (k < 0)
		return k;
	/* every process stops tracing for it, then its files go */
	ut_cfg_init(&off);
	off.tracer = UT_TRACER_NOP;
	ut_inst_set_all(rundir, k, &off, err, sizeof(err));
	n = ut_live_list(rundir, &v);
	for (long i = 0; v && i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", v[i].dir, cfg_name(k));
		unlink(path);
		/* its events go with it: a new instance of that number starts empty */
		ut_live_clear(v[i].dir, k);
	}
	if (n > 0)
		free(v);
	snprintf(path, sizeof(path), "%s/%s", rundir, cfg_name(k));
	unlink(path);
	ut_inst_list(rundir, names);
	names[k][0] = '\0';
	return write_registry(rundir, names);
}

// SPDX-License-Identifier: MIT
/*
 * Sessions nobody will want (docs/shm-abi.md, "Dead processes"):
 *
 *   - a process that wrote nothing (no thread ever claimed a slot: no
 *     event, no marker, no profile, no hist table) removes its own session when it exits
 *     normally: a build run under LD_PRELOAD leaves no session per `sh`;
 *   - a process starting (or forked) in the user's shared run-time directory (not a
 *     private one of `utrace record`, whose recorder reads every session)
 *     removes the sessions of dead processes that hold nothing, and keeps
 *     those that hold data only up to UT_DEAD_KEEP_BYTES of buffers,
 *     newest first: a server forking helpers all day holds a bounded
 *     amount of /dev/shm.  At most once a second (the run-time directory's
 *     ".gc" stamp), so starting many processes costs nothing measurable.
 *
 * Dead: the control block says the process exited, or its pid no longer
 * runs, is a zombie, or is a newer process (common/proc_alive.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/proc_alive.h"
#include "libutrace/internal.h"

#define UT_DEAD_KEEP_BYTES (256ull << 20)
#define GC_PERIOD_NS 1000000000ull

/* A session directory's files, then itself, relative to the run-time directory. */
static void remove_at(int rootfd, const char *name)
{
	int fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	unlinkat(rootfd, name, AT_REMOVEDIR);
}

/* A clean exit with nothing written: the session goes with the process. */
void ut_session_gc_self(void)
{
	const char *name = strrchr(ut_rt.dir, '/');
	struct ut_ctl *ctl = ut_rt.ctl;

	if (!ctl || ut_rt.rootfd < 0 || !name || ctl->pid != getpid() ||
	    __atomic_load_n(&ctl->nr_slots, __ATOMIC_ACQUIRE) || ut_evtrig_has_tables())
		return;
	remove_at(ut_rt.rootfd, name + 1);
}

struct dead {
	uint64_t start_ns, bytes;
	char name[64];
};

static int newest_first(const void *a, const void *b)
{
	const struct dead *x = a, *y = b;

	return x->start_ns < y->start_ns ? 1 : x->start_ns > y->start_ns ? -1 : 0;
}

/*
 * What session @name's hist tables (hist.0, hist.1..., libutrace/evtrigger.c)
 * hold, in bytes of /dev/shm; 0 if none.  Data to keep, and counted as such:
 * a session holding a table and no event counted a byte, so that processes
 * starting and exiting under a hist trigger kept every table (23 GB here).
 */
static uint64_t hist_bytes(int rootfd, const char *name)
{
	uint64_t bytes = 0;
	char path[96];
	struct stat st;

	for (unsigned k = 0; snprintf(path, sizeof(path), "%s/hist.%u", name, k) < (int)sizeof(path) &&
			     !fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW);
	     k++)
		bytes += (uint64_t)st.st_blocks * 512 + 1;
	return bytes;
}

/* The head of session @name's control block, if it is a dead process's. */
static bool dead_session(int rootfd, const char *name, struct dead *out)
{
	struct ut_ctl c;
	char path[96];
	int fd;

	if (strlen(name) >= sizeof(out->name) ||
	    snprintf(path, sizeof(path), "%s/ctl", name) >= (int)sizeof(path))
		return false;
	fd = openat(rootfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* the header only: the thread slots are not needed */
	if (pread(fd, &c, offsetof(struct ut_ctl, threads), 0) !=
		    (ssize_t)offsetof(struct ut_ctl, threads) ||
	    c.magic != UT_ABI_MAGIC || c.version != UT_ABI_VERSION || (c.flags & UT_CTL_MARKERS)) {
		close(fd);
		return false;
	}
	close(fd);
	if (c.alive && ut_proc_alive(c.pid, c.start_ns))
		return false;
	out->start_ns = c.start_ns;
	out->bytes = (c.nr_slots ? c.buf_bytes + 1 : 0) + hist_bytes(rootfd, name); /* 0: nothing */
	snprintf(out->name, sizeof(out->name), "%s", name);
	return true;
}

/* UT_DEAD_KEEP_BYTES; for tests, UTRACE_TEST_DEAD_KEEP_KB (a bound a few sessions reach). */
static uint64_t keep_bytes(void)
{
	const char *e = getenv("UTRACE_TEST_DEAD_KEEP_KB");

	return e && *e ? strtoull(e, NULL, 10) << 10 : UT_DEAD_KEEP_BYTES;
}

/* Whether a second passed since the last collection (and stamp it if so). */
static bool due(int rootfd)
{
	struct timespec now;
	struct stat st;
	int fd;

	clock_gettime(CLOCK_REALTIME, &now);
	if (!fstatat(rootfd, ".gc", &st, AT_SYMLINK_NOFOLLOW) &&
	    (uint64_t)(now.tv_sec - st.st_mtim.tv_sec) * 1000000000ull +
			    (uint64_t)(now.tv_nsec - st.st_mtim.tv_nsec) < GC_PERIOD_NS)
		return false;
	fd = openat(rootfd, ".gc", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	futimens(fd, NULL);
	close(fd);
	return true;
}

/* At start-up in the shared run-time directory: the dead sessions collected. */
void ut_session_gc_dead(void)
{
	int fd = ut_rt.rootfd >= 0 ? openat(ut_rt.rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
				   : -1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dead *v = NULL, *nv;
	size_t n = 0, cap = 0;
	uint64_t kept = 0, keep = keep_bytes();
	struct dirent *de;

	if (!d || ut_rt.cfg.follow || ut_rt.cfg.lossless || !due(ut_rt.rootfd)) {
		if (d)
			closedir(d);
		else if (fd >= 0)
			close(fd);
		return; /* a recording's own directory: its recorder decides */
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (n == cap) {
			nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (dead_session(ut_rt.rootfd, de->d_name, &v[n]))
			n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), newest_first);
	for (size_t i = 0; i < n; i++) {
		kept += v[i].bytes;
		if (!v[i].bytes || kept > keep)
			remove_at(ut_rt.rootfd, v[i].name);
	}
	free(v);
}

// SPDX-License-Identifier: MIT
/*
 * The session: this process's directory in the run-time dir, holding the
 * control block and the per-thread buffers (include/utrace/abi.h).  Readers
 * find it by name, map it, and keep reading it after the process has died.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/ctl.h"
#include "common/safedir.h"
#include "common/sessname.h"
#include "libutrace/internal.h"

static uint64_t mono_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The local clock converts TSC cycles to nanoseconds exactly as the kernel's
 * sched_clock (trace_clock_local) does, using the conversion the kernel
 * publishes in a perf_event mmap page (time_zero, time_mult, time_shift), so
 * every process agrees and timestamps read as seconds since boot.  Without
 * perf, calibrate against CLOCK_MONOTONIC over a short spin.
 */
static bool clock_from_perf(struct ut_ctl *ctl)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct perf_event_mmap_page *pg;
	bool ok = false;
	int fd;

	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	pg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pg != MAP_FAILED) {
		if (pg->cap_user_time && pg->cap_user_time_zero) {
			ctl->tsc0 = 0;
			ctl->mono0 = pg->time_zero;
			ctl->tsc_mult = pg->time_mult;
			ctl->tsc_shift = pg->time_shift;
			ok = true;
		}
		munmap(pg, (size_t)sysconf(_SC_PAGESIZE));
	}
	close(fd);
	return ok;
}

/* The first reading of a calibration still open (ut_clock_settle closes it). */
static struct ut_tsc_pair calib_start;
static bool calib_open;

/*
 * Without the kernel's conversion: take the one `utrace record` measured and
 * passed in (shared by every process it traces), else measure one here over
 * a short interval (good enough for one process; readers that see several
 * processes should bring their own, as record does).  The interval starts
 * here and ends in ut_clock_settle(), after the sites are scanned: a big
 * program's scan fills the millisecond the measure needs instead of a spin.
 */
static void clock_calibrate(struct ut_ctl *ctl)
{
	const char *env = getenv(UT_CLOCK_ENV);
	unsigned long long tsc0, mono0;
	unsigned mult, shift;

	if (env && sscanf(env, "%llu %llu %u %u", &tsc0, &mono0, &mult, &shift) == 4 && mult) {
		ctl->tsc0 = tsc0;
		ctl->mono0 = mono0;
		ctl->tsc_mult = mult;
		ctl->tsc_shift = shift;
		return;
	}
	ut_tsc_pair_read(&calib_start);
	ctl->tsc0 = calib_start.tsc;
	ctl->mono0 = calib_start.mono;
	calib_open = true;
}

void ut_clock_init(struct ut_ctl *ctl)
{
	calib_open = false;
	if (!clock_from_perf(ctl))
		clock_calibrate(ctl);
}

/**
 * ut_clock_settle - finish the session's TSC calibration
 *
 * Before anything converts or records a timestamp (the first ut_select_apply
 * of a process): waits for what is left of the millisecond since
 * ut_clock_init, if anything.
 */
void ut_clock_settle(struct ut_ctl *ctl)
{
	if (!calib_open || !ctl)
		return;
	calib_open = false;
	ut_tsc_calibrate_from(&calib_start, 1000000, &ctl->tsc_mult, &ctl->tsc_shift);
}

/*
 * The session's "cmds": the function-command table the threads count down
 * in, shared so readers list what is left.  A fork child gets its own file
 * with the parent's table as it was (its copy of the counts, as of its
 * memory), and leaves the parent's mapping alone.
 */
static int cmds_create(void)
{
	struct ut_cmds *old = ut_rt.cmds, *c = MAP_FAILED;
	uint32_t nr = ut_rt.nr_cmds;
	int fd = openat(ut_rt.dirfd, "cmds", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);

	if (fd >= 0 && !ftruncate(fd, sizeof(*c)) && !fallocate(fd, 0, 0, sizeof(*c)))
		c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (old) {
		/* the parent's table, never written from here */
		ut_rt.nr_cmds = 0;
		if (c != MAP_FAILED)
			memcpy(c, old, sizeof(*c));
		munmap(old, sizeof(*old));
		ut_rt.cmds = NULL;
	}
	if (c == MAP_FAILED)
		return -EIO;
	c->version = UT_ABI_VERSION;
	__atomic_store_n(&c->magic, UT_CMDS_MAGIC, __ATOMIC_RELEASE);
	ut_rt.cmds = c;
	__atomic_store_n(&ut_rt.nr_cmds, old ? nr : 0, __ATOMIC_RELEASE);
	return 0;
}

/**
 * ut_session_create - create this process's session directory and control block
 *
 * Not yet visible: ut_session_publish() does that once "config" is written.
 *
 * The parent directory is $UTRACE_DIR (set by `utrace record`), else
 * /dev/shm/utrace-<uid>: it is trusted only if nobody else can write it
 * (common/safedir.h), since its "config" says what this process does.  The
 * session is named <pid>.<monotonic ns> so an exec'd image (same pid) gets a
 * fresh one; it must be new.  Return: 0 or a negative errno; -EPERM (refused)
 * with the reason in @why.
 */
int ut_session_create(char *why, size_t whylen)
{
	const char *base = getenv("UTRACE_DIR");
	char parent[PATH_MAX - 64], name[64];
	struct ut_ctl *ctl;
	uint64_t now = mono_ns(CLOCK_MONOTONIC);
	int fd, ret;

	if (base && *base) {
		snprintf(parent, sizeof(parent), "%s", base);
	} else {
		snprintf(parent, sizeof(parent), "/dev/shm/utrace-%u", (unsigned)getuid());
	}
	snprintf(why, whylen, "%s: path too long", parent);
	if (snprintf(ut_rt.dir, sizeof(ut_rt.dir), "%s/", parent) >= (int)sizeof(ut_rt.dir) - 40)
		return -ENAMETOOLONG;
	fd = ut_safe_root(parent, true, why, whylen);
	if (fd < 0)
		return fd;
	ut_rt.rootfd = fd;
	ut_sessname_make(name, sizeof(name), getpid(), now);
	snprintf(ut_rt.dir, sizeof(ut_rt.dir), "%s/%s", parent, name);
	fd = ut_safe_mkdirat(ut_rt.rootfd, name, why, whylen);
	if (fd < 0) { /* @why names the session: say where */
		size_t n = strlen(parent) + 1;

		if (strlen(why) + n < whylen) {
			memmove(why + n, why, strlen(why) + 1);
			memcpy(why, parent, n - 1);
			why[n - 1] = '/';
		}
		return fd;
	}
	ut_rt.dirfd = fd;
	ctl = ut_ctl_create(ut_rt.dirfd, "ctl", now);
	if (!ctl) {
		int err = errno;

		snprintf(why, whylen, "%s/ctl: %s", ut_rt.dir, strerror(err));
		return -err;
	}
	ctl->tracer = ut_rt.cfg.tracer;
	ctl->clock = ut_rt.cfg.clock;
	ctl->buf_size = ut_rt.buf_size;
	ctl->overwrite = ut_rt.cfg.overwrite;
	prctl(PR_GET_NAME, ctl->comm, 0, 0, 0);
	ut_clock_init(ctl);
	ut_rt.ctl = ctl;
	ret = cmds_create();
	ut_fast_gate_update();
	return ret;
}

/* Start-up refused: the session, not yet published, is removed. */
void ut_session_discard(void)
{
	const char *name = strrchr(ut_rt.dir, '/');

	if (ut_rt.ctl)
		munmap(ut_rt.ctl, sizeof(*ut_rt.ctl));
	if (ut_rt.dirfd >= 0 && ut_rt.rootfd >= 0 && name) {
		unlinkat(ut_rt.dirfd, "ctl", 0);
		unlinkat(ut_rt.rootfd, name + 1, AT_REMOVEDIR);
	}
	ut_session_forget();
}

/* Forget the session (a fork child makes its own). */
void ut_session_forget(void)
{
	if (ut_rt.dirfd >= 0)
		close(ut_rt.dirfd);
	if (ut_rt.rootfd >= 0)
		close(ut_rt.rootfd);
	ut_rt.dirfd = ut_rt.rootfd = -1;
	ut_fast_gate_close(); /* no fast path may look at ctl from here */
	ut_rt.ctl = NULL;
}

/* Let readers and writers see the session: its "config" is written. */
void ut_session_publish(void)
{
	if (ut_rt.ctl)
		ut_ctl_publish(ut_rt.ctl);
}

/*
 * Append to the session's "modules" file: readers rebuild symbols from it.
 * A load is followed, in the same write, by the object's identity and the
 * name of its symbol snapshot ("-" if there is none):
 *   load BIAS MODULE|- PATH
 *   syms BIAS FILE|- BUILD-ID|- SIZE MTIME-NS
 */
void ut_session_log_module(const char *what, const struct ut_module *m)
{
	char line[PATH_MAX + 320], snap[32] = "-";
	int fd, n;

	if (ut_rt.dirfd < 0 || !ut_rt.ctl || m->of)
		return; /* another kind's sites: named from the object's own module */
	fd = openat(ut_rt.dirfd, "modules", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %llx %s %s\n", what, (unsigned long long)m->bias,
		     m->name[0] ? m->name : "-", m->path);
	if (n > 0 && n < (int)sizeof(line) && !strcmp(what, "load")) {
		if (m->snap)
			snprintf(snap, sizeof(snap), "syms.%u", m->index);
		n += snprintf(line + n, sizeof(line) - (size_t)n, "syms %llx %s %s %llu %llu\n",
			      (unsigned long long)m->bias, snap,
			      m->id.build_id[0] ? m->id.build_id : "-",
			      (unsigned long long)m->id.size, (unsigned long long)m->id.mtime_ns);
	}
	if (n > 0 && n < (int)sizeof(line) && write(fd, line, (size_t)n) < 0)
		ut_log("cannot write the module list: %s", strerror(errno));
	close(fd);
	__atomic_add_fetch(&ut_rt.ctl->modules_gen, 1, __ATOMIC_RELEASE);
}

/*
 * Keep a copy of a module's function symbols in the session ("syms.<index>",
 * common/symsnap.h), so that its trace can be named once the file has been
 * rebuilt or deleted.  Called as the module is scanned, before it is logged.
 *
 * Every process loads the same C library: the first one to write a module's
 * copy also links it into the run-time directory as ".syms-<build-id>-<size>"
 * (the size tells a stripped copy from the full one), and later processes
 * link that one into their sessions, which costs neither the writing nor
 * the memory again.  Only complete copies are ever linked there.
 *
 * Without @st (the symbols are not read yet: tracing is off, sites.c), only
 * the shared copy is looked for; if there is none, the copy is still named
 * (m->snap) and written when the symbols are read (m->snap_due): a reader
 * that comes before finds no file and reads the object's file instead.
 */
void ut_session_snapshot_module(struct ut_module *m, const struct ut_symtab *st)
{
	char name[32], shared[2 * UT_BUILD_ID_MAX + 48];
	int rootfd = -1;

	m->snap_due = false;
	if (ut_rt.dirfd < 0)
		return;
	snprintf(name, sizeof(name), "syms.%u", m->index);
	if (m->id.build_id[0]) {
		snprintf(shared, sizeof(shared), ".syms-%s-%llu", m->id.build_id,
			 (unsigned long long)m->id.size);
		rootfd = openat(ut_rt.dirfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rootfd >= 0 && !linkat(rootfd, shared, ut_rt.dirfd, name, 0)) {
			m->snap = true;
			close(rootfd);
			return;
		}
	}
	if (!st) {
		m->snap = m->snap_due = true;
	} else {
		m->snap = ut_symsnap_write(ut_rt.dirfd, name, st, m->bias) == 0;
		if (m->snap && rootfd >= 0)
			linkat(ut_rt.dirfd, name, rootfd, shared, 0); /* EEXIST: another process was first */
	}
	if (rootfd >= 0)
		close(rootfd);
}

/*
 * A forked child's session: its modules are the parent's, so their
 * snapshots are too.  Hard links (the sessions share a directory) cost no
 * copy.  Snapshots that cannot be linked are forgotten.
 */
void ut_session_link_snapshots(int from_dirfd)
{
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];
		char name[32];

		if (!m->alive || !m->snap || m->snap_due)
			continue; /* a copy still due is written by the child itself */
		snprintf(name, sizeof(name), "syms.%u", m->index);
		if (from_dirfd < 0 || linkat(from_dirfd, name, ut_rt.dirfd, name, 0))
			m->snap = false;
	}
}

/* Clean exit: readers see alive=0 and know the buffers are final. */
void ut_session_exit(void)
{
	if (ut_rt.ctl)
		__atomic_store_n(&ut_rt.ctl->alive, 0, __ATOMIC_RELEASE);
}

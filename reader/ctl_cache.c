// SPDX-License-Identifier: MIT
/*
 * The control blocks of the sessions, mapped once for a reader that lives
 * long (the mount): every request of the mount lists the sessions and
 * looks into each one's control block, and a traced shell script leaves a
 * few hundred sessions of its commands (dead ones are kept while they hold
 * data, libutrace/session_gc.c).  Mapping 160 KiB, faulting its first pages
 * in and unmapping it again (a TLB shootdown on the other CPUs) for each of
 * them on every request cost the mount most of a CPU in system time while
 * the kernel's self-tests ran against it (tests/mount/885: 43 s of 49, and
 * past the runner's 120 s under ASan).
 *
 * So, in a reader that asks for it (ut_live_keep_ctl_maps(): the mount; a
 * `show --pipe` lets each session go with its mapping once it is read,
 * tests/live/526), a block is mapped on first use and shared by every
 * caller while it is used.  Entries are known by the file (device and
 * inode) and the session's name, so a session made again under the same
 * name is mapped afresh, and so is a new session given a removed one's
 * inode number (ext4 reuses them at once); one unused for
 * CC_IDLE_NS is unmapped (a session the garbage collector removed is no
 * longer listed, so no longer asked for, and its memory goes with the last
 * mapping), as is one whose directory no longer opens.  The checks of the
 * first mapping (reader/sessions.c) hold for the file's life: the ABI's
 * magic, version, size and pid are written once, before the file is named.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/control.h"
#include "reader/ctl_cache.h"
#include "utrace/abi.h"

#define CC_IDLE_NS 2000000000ull
#define CC_MAX 1024 /* entries; past it the longest unused is dropped */

struct cc_ent {
	dev_t dev;
	ino_t ino;
	char *dir;
	struct ut_ctl *ctl;
	unsigned refs;
	uint64_t used; /* CLOCK_MONOTONIC ns of the last get or put */
};

static bool cc_on;
static pthread_mutex_t cc_mu = PTHREAD_MUTEX_INITIALIZER;
static struct cc_ent *cc;
static size_t cc_n, cc_cap;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void drop(size_t i)
{
	ut_sess_unmap_ctl(cc[i].ctl);
	free(cc[i].dir);
	cc_n--;
	cc[i] = cc[cc_n]; /* the last takes its place (itself if it was the last) */
	cc[cc_n] = (struct cc_ent){0};
}

/* Unmap what nobody used lately, and what was made for @gone (NULL: none). */
static void sweep(uint64_t now, const char *gone)
{
	for (size_t i = 0; i < cc_n;) {
		bool idle = now - cc[i].used > CC_IDLE_NS;

		if (!cc[i].refs && (idle || (gone && !strcmp(cc[i].dir, gone))))
			drop(i);
		else
			i++;
	}
}

/*
 * The block of @dir's file @st if mapped: taken once more.  The name too:
 * a file system may give a removed session's inode number to a new one
 * (ext4 does at once), whose name differs ("PID.NS" is never made twice).
 */
static struct ut_ctl *lookup(const char *dir, const struct stat *st, uint64_t now)
{
	for (size_t i = 0; i < cc_n; i++)
		if (cc[i].dev == st->st_dev && cc[i].ino == st->st_ino && !strcmp(cc[i].dir, dir)) {
			cc[i].refs++;
			cc[i].used = now;
			return cc[i].ctl;
		}
	return NULL;
}

/* Keep @ctl, mapped for @dir's file @st; false: no room (the caller keeps it alone). */
static bool insert(const char *dir, const struct stat *st, struct ut_ctl *ctl, uint64_t now)
{
	size_t old = 0;
	char *name;

	if (cc_n >= CC_MAX) {
		for (size_t i = 0; i < cc_n; i++)
			if (!cc[i].refs && (cc[old].refs || cc[i].used < cc[old].used))
				old = i;
		if (cc[old].refs)
			return false;
		drop(old);
	}
	if (cc_n == cc_cap) {
		size_t cap = cc_cap ? 2 * cc_cap : 64;
		struct cc_ent *v = realloc(cc, cap * sizeof(*v));

		if (!v)
			return false;
		cc = v;
		cc_cap = cap;
	}
	name = strdup(dir);
	if (!name)
		return false;
	cc[cc_n++] = (struct cc_ent){.dev = st->st_dev, .ino = st->st_ino, .dir = name,
				     .ctl = ctl, .refs = 1, .used = now};
	return true;
}

/* The control file's identity, through the same refusing open as the mapping's. */
static int identify(const char *sessdir, struct stat *st)
{
	int fd = ut_live_open(sessdir, O_RDONLY | O_DIRECTORY);
	int ret = 0;

	if (fd < 0)
		return fd;
	if (fstatat(fd, "ctl", st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st->st_mode))
		ret = errno ? -errno : -EINVAL;
	close(fd);
	return ret;
}

void ut_live_keep_ctl_maps(void)
{
	__atomic_store_n(&cc_on, true, __ATOMIC_RELEASE);
}

int ut_ctl_cache_get(const char *sessdir, struct ut_ctl **out, char *err, size_t errlen)
{
	struct ut_ctl *mine, *found = NULL;
	struct stat st;
	uint64_t now;
	int ret, got;

	if (!__atomic_load_n(&cc_on, __ATOMIC_ACQUIRE))
		return ut_sess_map_ctl(sessdir, true, out, err, errlen);
	now = now_ns();
	ret = identify(sessdir, &st);

	pthread_mutex_lock(&cc_mu);
	sweep(now, ret ? sessdir : NULL);
	if (!ret)
		found = lookup(sessdir, &st, now);
	pthread_mutex_unlock(&cc_mu);
	*out = found;
	if (found)
		return 0;
	/* not mapped yet, or gone: the mapping says which, with its message */
	got = ut_sess_map_ctl(sessdir, true, &mine, err, errlen);
	if (got)
		return got;
	*out = mine;
	if (ret)
		return 0; /* it came while identifying failed: the caller's alone */
	/*
	 * Known by the file identified before it was mapped: a file replaced
	 * in between is mapped under the old one's identity, never found
	 * again, and dropped when idle.
	 */
	pthread_mutex_lock(&cc_mu);
	found = lookup(sessdir, &st, now);
	if (!found && insert(sessdir, &st, mine, now)) {
		pthread_mutex_unlock(&cc_mu);
		return 0;
	}
	pthread_mutex_unlock(&cc_mu);
	if (found) { /* another caller mapped it meanwhile */
		ut_sess_unmap_ctl(mine);
		*out = found;
	}
	return 0; /* else no room: the mapping stays the caller's, unmapped by put */
}

void ut_ctl_cache_put(struct ut_ctl *ctl)
{
	uint64_t now = now_ns();

	if (!ctl)
		return;
	pthread_mutex_lock(&cc_mu);
	for (size_t i = 0; i < cc_n; i++)
		if (cc[i].ctl == ctl) {
			cc[i].refs--;
			cc[i].used = now;
			pthread_mutex_unlock(&cc_mu);
			return;
		}
	pthread_mutex_unlock(&cc_mu);
	ut_sess_unmap_ctl(ctl); /* a mapping the cache did not keep */
}

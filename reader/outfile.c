// SPDX-License-Identifier: MIT
/*
 * An output file that appears whole or not at all (reader/outfile.h).
 *
 * `utrace extract` writes a trace.dat from buffers that stay where they
 * are: a reader interrupted half-way (SIGINT, SIGTERM, SIGKILL) must leave
 * nothing, not a file whose options offset is still 0 (issue 17, "nothing
 * left behind").  So the file is written as an unnamed file in the output's
 * directory (O_TMPFILE: whatever ends the writer, nothing remains) and
 * given its name only once complete: linked under a fresh temporary name,
 * then renamed over the output, so a reader of the old file never sees a
 * half-written one.  A file system without O_TMPFILE gets a named
 * temporary (`<output>.XXXXXX`), renamed the same way, removed on failure.
 *
 * Outputs that are not regular files (/dev/null, a pipe, /dev/stdout, a
 * symbolic link) are written in place, as before: there is nothing to
 * publish, or the link must stay a link.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reader/outfile.h"

/* The directory part of @path into @dir ("." for a bare name). */
static int dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 1;

	if (n + 1 > len)
		return -ENAMETOOLONG;
	if (!slash)
		memcpy(dir, ".", 2);
	else if (slash == path)
		memcpy(dir, "/", 2);
	else {
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	return 0;
}

/* Whether @path is to be written in place: it exists and is no regular file. */
static bool in_place(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && !S_ISREG(st.st_mode);
}

/*
 * @path opened in place.  A regular file already there is replaced by a new
 * one (as ld does), not truncated: ext4 takes "truncated, then written" for
 * a file being rewritten and, to keep it from being left empty by a crash,
 * writes all of its data back when it is closed (auto_da_alloc): the close
 * of a 200 MB trace took 110 ms here, after the program had ended.  A new
 * file is opened for reading too (the trace.dat writer moves data within
 * it); devices, pipes and links to them are opened as they are, write-only.
 */
static int open_in_place(const char *path)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		(void)unlink(path); /* if it fails, O_TRUNC below still empties it */
	if (stat(path, &st) < 0 && errno == ENOENT) {
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EACCES)
			return fd;
	}
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

int ut_outfile_open(struct ut_outfile *o, const char *path, bool whole)
{
	char dir[PATH_MAX];
	mode_t mask;
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (strlen(path) + 8 > sizeof(o->path))
		return -ENAMETOOLONG;
	memcpy(o->path, path, strlen(path) + 1);
	if (!whole || in_place(path)) {
		o->fd = open_in_place(path);
		return o->fd < 0 ? -errno : 0;
	}
	ret = dir_of(path, dir, sizeof(dir));
	if (ret)
		return ret;
	o->whole = true;
	o->fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0644);
	if (o->fd >= 0) {
		o->unnamed = true;
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	/* no O_TMPFILE here: a named temporary, removed if not published */
	snprintf(o->temp, sizeof(o->temp), "%s.XXXXXX", path);
	o->fd = mkostemp(o->temp, O_CLOEXEC);
	if (o->fd < 0)
		return -errno;
	mask = umask(0); /* (the fallback only: mkostemp makes 0600, open() made 0644 & ~umask) */
	umask(mask);
	if (fchmod(o->fd, 0644 & ~mask)) {
		ret = -errno;
		close(o->fd);
		unlink(o->temp);
		o->fd = -1;
		o->temp[0] = '\0';
	}
	return ret;
}

/* The unnamed file linked under a fresh name beside the output (into o->temp). */
static int link_unnamed(struct ut_outfile *o)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t mix = (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() * 2654435761u ^ (uint64_t)tries;

		snprintf(o->temp, sizeof(o->temp), "%s.%06llx", o->path,
			 (unsigned long long)(mix & 0xffffff));
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, o->temp, AT_SYMLINK_FOLLOW) ||
		    (errno == ENOENT && !linkat(o->fd, "", AT_FDCWD, o->temp, AT_EMPTY_PATH)))
			return 0;
		if (errno != EEXIST)
			break;
	}
	o->temp[0] = '\0';
	return -errno;
}

int ut_outfile_close(struct ut_outfile *o, bool publish)
{
	int ret = 0;

	if (o->fd < 0)
		return 0;
	if (publish && o->unnamed)
		ret = link_unnamed(o);
	if (close(o->fd) && !ret)
		ret = -errno;
	o->fd = -1;
	if (!o->temp[0])
		return publish ? ret : 0;
	if (publish && !ret && rename(o->temp, o->path))
		ret = -errno;
	if (!publish || ret)
		unlink(o->temp);
	o->temp[0] = '\0';
	return ret;
}

bool ut_outfile_in_place(const struct ut_outfile *o)
{
	return !o->whole;
}

// SPDX-License-Identifier: MIT
/* The run-time directory and its files, opened safely (common/safedir.h). */
#include "common/safedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int ut_safe_check(const struct stat *st, mode_t type, const char *path, char *why, size_t len)
{
	uid_t me = geteuid();

	if ((st->st_mode & S_IFMT) != type) {
		snprintf(why, len, "%s: %s: refused", path,
			 S_ISLNK(st->st_mode)	? "a symbolic link"
			 : type == S_IFDIR	? "not a directory"
						: "not a regular file");
		return -EPERM;
	}
	/* root's files are trusted: root could change ours anyway */
	if (st->st_uid != me && st->st_uid != 0) {
		snprintf(why, len, "%s: owned by uid %u, not by you (uid %u): refused", path,
			 (unsigned)st->st_uid, (unsigned)me);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "%s: writable by group or others (mode %04o): refused", path,
			 (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/*
 * Why openat(O_NOFOLLOW) failed with @err: a symbolic link is a refusal,
 * anything else is said as it is.
 */
static int open_failed(int dirfd, const char *name, int err, char *why, size_t len)
{
	struct stat st;

	if ((err == ELOOP || err == ENOTDIR) && !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode)) {
		snprintf(why, len, "%s: a symbolic link: refused", name);
		return -EPERM;
	}
	snprintf(why, len, "%s: %s", name, strerror(err));
	return -err;
}

int ut_safe_openat(int dirfd, const char *name, int flags, char *why, size_t len)
{
	struct stat st;
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0600), ret;

	if (fd < 0)
		return open_failed(dirfd, name, errno, why, len);
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(why, len, "%s: %s", name, strerror(-ret));
	} else {
		ret = ut_safe_check(&st, flags & O_DIRECTORY ? S_IFDIR : S_IFREG, name, why, len);
	}
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int ut_safe_mkdirat(int dirfd, const char *name, char *why, size_t len)
{
	if (mkdirat(dirfd, name, 0700)) {
		int err = errno;

		snprintf(why, len, "%s: %s", name, strerror(err));
		return -err;
	}
	return ut_safe_openat(dirfd, name, O_RDONLY | O_DIRECTORY, why, len);
}

int ut_safe_root(const char *path, bool create, char *why, size_t len)
{
	/*
	 * mkdir, then check what is there whoever made it: a directory another
	 * user made first (the name is predictable) is refused, and in sticky
	 * /dev/shm nobody else can rename or remove ours once it is made.
	 */
	if (create && mkdir(path, 0700) && errno != EEXIST) {
		int err = errno;

		snprintf(why, len, "%s: %s", path, strerror(err));
		return -err;
	}
	return ut_safe_openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY, why, len);
}

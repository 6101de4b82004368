/* SPDX-License-Identifier: MIT */
/*
 * The run-time directory (/dev/shm/utrace-<uid> or $UTRACE_DIR), its
 * sessions and their files, opened so that another local user cannot have
 * put or changed anything in them (docs/shm-abi.md, "Who may write").
 *
 * A directory or file is trusted when it is owned by the effective user or
 * by root, nobody else may write it (no group or other write bit), and it is
 * what it should be (a directory, a regular file: never a symbolic link).
 * Files are opened with O_NOFOLLOW and checked with fstat on the open file,
 * so what is checked is what is used; created with O_EXCL where they must
 * be new.  Shared by the runtime and the tools: no allocation, no output.
 *
 * A refusal returns -EPERM and says why in @why ("PATH: owned by uid 1001,
 * not by you (uid 1000): refused"); other failures return -errno with @why
 * naming the path.  @why may be NULL with @len 0.
 */
#ifndef UT_SAFEDIR_H
#define UT_SAFEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Room for any message below. */
#define UT_SAFE_WHY_MAX 4200

/*
 * 0 if @st (the stat of @path, opened or lstat'ed) is trusted as a @type
 * (S_IFDIR or S_IFREG); else -EPERM with the reason in @why.
 */
int ut_safe_check(const struct stat *st, mode_t type, const char *path, char *why, size_t len);

/*
 * Open the run-time directory @path: made first (0700) if @create and it
 * does not exist, then opened O_DIRECTORY|O_NOFOLLOW and checked.  Returns
 * the directory's fd, -ENOENT if it does not exist (and not @create),
 * -EPERM if refused, or -errno; @why says which path and what is wrong.
 */
int ut_safe_root(const char *path, bool create, char *why, size_t len);

/*
 * openat(@dirfd, @name) with O_NOFOLLOW|O_CLOEXEC added to @flags (mode
 * 0600 when created), then checked: a directory if @flags has O_DIRECTORY,
 * else a regular file.  @dirfd may be AT_FDCWD with a path; the directories
 * above must be trusted already.  Returns the fd, or -errno (-EPERM: refused,
 * a symbolic link included); @why names @name.
 */
int ut_safe_openat(int dirfd, const char *name, int flags, char *why, size_t len);

/* A new directory @name in @dirfd (0700; -EEXIST if there), opened as above. */
int ut_safe_mkdirat(int dirfd, const char *name, char *why, size_t len);

#endif

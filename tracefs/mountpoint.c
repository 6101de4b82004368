// SPDX-License-Identifier: MIT
/*
 * The mount point before `utrace mount DIR` mounts on it.
 *
 * A daemon killed with SIGKILL leaves its FUSE mount behind with no one
 * serving it: every access to DIR then fails with ENOTCONN, and so would a
 * new mount on it ("Transport endpoint is not connected").  Such a dead
 * FUSE mount is detached (lazily, as `fusermount3 -u -z` does) and the
 * new mount replaces it.  A live utrace mount on DIR is left alone and the
 * command refuses: mounting over it would hide it, and its daemon would
 * keep running for nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracefs/tracefs.h"

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/*
 * The file system type and source of the topmost mount on @path
 * (absolute, resolved), from /proc/self/mountinfo.  false if none.
 */
static bool mount_at(const char *path, char *type, size_t tsz, char *src, size_t ssz)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		char mp[PATH_MAX], t[256], s[PATH_MAX];
		const char *sep = strstr(line, " - ");

		/* id parent dev root MOUNTPOINT ... - TYPE SOURCE options */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 ||
		    sscanf(sep, " - %255s %4095s", t, s) != 2)
			continue;
		unescape(mp);
		if (strcmp(mp, path) != 0)
			continue;
		/* later lines are mounted on top of earlier ones: keep the last */
		snprintf(type, tsz, "%s", t);
		snprintf(src, ssz, "%s", s);
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

/* A lazy unmount: root detaches it itself, a user asks fusermount3. */
static int detach(const char *path)
{
	int status;
	pid_t pid;

	if (geteuid() == 0)
		return umount2(path, MNT_DETACH) ? -errno : 0;
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		execlp("fusermount3", "fusermount3", "-u", "-z", "-q", "--", path, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EPERM;
}

/*
 * The absolute path of @dir without resolving its last component (which
 * cannot be looked at while a dead mount sits on it).
 */
static int path_of_unreachable(const char *dir, char out[PATH_MAX])
{
	char tmp[PATH_MAX], parent[PATH_MAX];
	char *slash, *base;
	size_t n = strlen(dir);

	if (n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, dir, n + 1);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	slash = strrchr(tmp, '/');
	if (slash == tmp) {
		base = tmp + 1;
		strcpy(parent, "/");
	} else if (slash) {
		*slash = '\0';
		base = slash + 1;
		if (!realpath(tmp, parent))
			return -errno;
	} else {
		base = tmp;
		if (!realpath(".", parent))
			return -errno;
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -ENOTCONN;
	if (snprintf(out, PATH_MAX, "%s/%s", strcmp(parent, "/") != 0 ? parent : "", base) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* @dir is unreachable (ENOTCONN): detach the dead FUSE mount(s) on it. */
static int replace_dead(const char *dir)
{
	char path[PATH_MAX], type[256], src[PATH_MAX];
	int ret = path_of_unreachable(dir, path);

	if (ret)
		return ret;
	if (!mount_at(path, type, sizeof(type), src, sizeof(src)) || strncmp(type, "fuse", 4) != 0)
		return -ENOTCONN; /* not a FUSE mount: not ours to touch */
	ret = detach(path);
	if (ret) {
		fprintf(stderr, "utrace: mount: %s: cannot unmount the dead mount there: %s\n",
			path, strerror(-ret));
		return ret;
	}
	fprintf(stderr, "utrace: mount: %s: replacing a mount whose daemon is gone\n", path);
	return 0;
}

int tfs_mountpoint(const char *dir, char mnt[PATH_MAX])
{
	char type[256], src[PATH_MAX];

	/* a few dead mounts may be stacked on the same directory */
	for (int tries = 0; !realpath(dir, mnt); tries++) {
		int err = errno;

		if (err != ENOTCONN || tries == 8 || replace_dead(dir)) {
			fprintf(stderr, "utrace: mount: %s: %s\n", dir, strerror(err));
			return -err;
		}
	}
	if (mount_at(mnt, type, sizeof(type), src, sizeof(src)) &&
	    !strcmp(type, "fuse.tracefs") && !strcmp(src, "utrace")) {
		fprintf(stderr,
			"utrace: mount: %s: already mounted (a utrace mount is serving there; "
			"'utrace umount %s' first)\n",
			mnt, dir);
		return -EBUSY;
	}
	return 0;
}

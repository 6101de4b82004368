// SPDX-License-Identifier: MIT
/*
 * Recordings whose recorder died (docs/shm-abi.md, Dead processes).
 *
 * `utrace record` runs its program in a private run-time directory,
 * /dev/shm/utrace-<uid>/rec.XXXXXX, and removes it when it ends.  A
 * recorder killed by SIGKILL (or one that crashed) cannot: the directory
 * stayed, with every buffer of its program, until someone noticed (the
 * test machine held 157 MB of them after a day).  So record writes
 * "recorder" there ("<pid> <CLOCK_MONOTONIC ns>"), and `utrace reset`
 * removes a recording whose recorder is gone (by pid and start time:
 * common/proc_alive.h) and whose processes are all gone: until then
 * `UTRACE_DIR=<it> utrace extract` recovers its trace.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/control.h"
#include "common/orphans.h"
#include "common/proc_alive.h"

/* Whether the process of @text ("<pid><sep><ns>": a session's name, "recorder") lives. */
static bool lives(const char *text, char sep)
{
	char *end;
	long pid = strtol(text, &end, 10);
	unsigned long long ns;

	if (pid <= 0 || *end != sep)
		return false;
	ns = strtoull(end + 1, &end, 10);
	return ut_proc_alive((int32_t)pid, ns);
}

/* Whether recording directory @dir is orphaned: its recorder and its processes gone. */
static bool orphaned(const char *dir)
{
	char path[PATH_MAX + 16], text[64] = {0};
	const struct dirent *de;
	bool alive = false;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/recorder", dir);
	f = ut_live_fopen(path, O_RDONLY, "r");
	if (!f)
		return false; /* not ours to judge (an older utrace's, or being made) */
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	if (!text[0] || lives(text, ' '))
		return false;
	d = opendir(dir);
	while (d && !alive && (de = readdir(d)))
		alive = de->d_name[0] >= '0' && de->d_name[0] <= '9' && lives(de->d_name, '.');
	if (d)
		closedir(d);
	return d && !alive;
}

int ut_live_remove_orphans(const char *root)
{
	const struct dirent *de;
	DIR *d = opendir(root);
	int n = 0;

	while (d && (de = readdir(d))) {
		char dir[PATH_MAX];

		if (strncmp(de->d_name, "rec.", 4) != 0 ||
		    snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name) >= (int)sizeof(dir))
			continue;
		if (orphaned(dir) && !ut_live_remove(dir))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

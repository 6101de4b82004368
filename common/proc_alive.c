// SPDX-License-Identifier: MIT
/* Is a session's process alive (common/proc_alive.h). */
#include "common/proc_alive.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* /proc's start times are clock ticks (10 ms): a pid is someone else's only past this. */
#define START_SLACK_NS 50000000ull

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* /proc/PID/stat (0: this process) into @buf, past the command; NULL if unreadable. */
static const char *stat_fields(int32_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	/* the command may hold spaces and parentheses */
	return strrchr(buf, ')');
}

/* Fields 3 (state) and 22 (start time, ticks since boot) of /proc/PID/stat. */
static bool read_stat(int32_t pid, char *state, unsigned long long *start)
{
	char buf[1024];
	const char *p = stat_fields(pid, buf, sizeof(buf));

	return p && sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
				  "%*d %*d %*d %llu",
			   state, start) == 2;
}

int ut_proc_threads(void)
{
	char buf[1024];
	const char *p = stat_fields(0, buf, sizeof(buf));
	int n;

	/* field 20, num_threads */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
				"%*d %d",
			 &n) != 1)
		return -1;
	return n;
}

bool ut_proc_alive(int32_t pid, uint64_t session_mono_ns)
{
	unsigned long long start;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t start_ns, boot_minus_mono;
	char state;

	if (pid <= 0 || (kill(pid, 0) && errno != EPERM))
		return false;
	if (!read_stat(pid, &state, &start))
		return true; /* no /proc: the signal's answer */
	if (state == 'Z' || state == 'X' || state == 'x')
		return false; /* killed, not yet reaped: it writes nothing more */
	if (hz <= 0)
		return true;
	/* start times count from boot (suspend included); sessions are CLOCK_MONOTONIC */
	boot_minus_mono = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);
	start_ns = (uint64_t)(start * (1000000000ull / (unsigned long long)hz));
	return start_ns <= session_mono_ns + boot_minus_mono + START_SLACK_NS;
}

// SPDX-License-Identifier: MIT
/*
 * set_event_pid in the traced process: events (USDT probes, process
 * events) are recorded only by the threads the configuration's event_pid
 * list holds -- a thread id, or a process id standing for every thread of
 * that process, as set_ftrace_pid takes them here.  An empty list records
 * every thread's events.  set_event_notrace_pid (event_notrace_pid) the
 * other way round: the threads it holds record none, whatever event_pid
 * says, as in the kernel.
 *
 * Each thread keeps its verdict with the generation it was taken at, so an
 * event costs one load and one compare; the generation moves whenever a
 * configuration is applied (ut_procev_apply(), after every document) and
 * in a fork child, and the thread then asks the list again (at most 64
 * entries, no system call once its tid is cached).
 *
 * options/event-fork (event_fork 1): a process forked by a thread that
 * passes the list adds its own pid to its copy of the configuration before
 * it publishes its session, so processes/PID/set_event_pid lists it, as the
 * kernel adds the child to the list at fork; one forked by a thread that
 * set_event_notrace_pid lists adds itself to that list likewise.  An exec keeps the pid: the new
 * program, which starts from the run-time directory's template, finds its
 * pid in the configuration of the session its previous image left under the
 * same pid and keeps it.  Not done: the kernel also adds threads cloned by a
 * listed thread and removes a task when it is freed; here a listed process
 * id covers all its threads, and a pid stays listed until a writer changes
 * the list.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/safedir.h"
#include "libutrace/internal.h"

/* Starts at 1: a thread's verdict of generation 0 was never taken. */
uint32_t ut_evpid_gen = 1;
__thread struct ut_evpid ut_evpid_self;

/* The configuration changed (or this is a new process): every thread asks again. */
void ut_evpid_changed(void)
{
	__atomic_add_fetch(&ut_evpid_gen, 1, __ATOMIC_RELEASE);
}

bool ut_evpid_recheck(void)
{
	uint32_t gen = __atomic_load_n(&ut_evpid_gen, __ATOMIC_ACQUIRE);

	if (!ut_self.tid)
		ut_self.tid = (int32_t)gettid();
	ut_evpid_self.skip = !ut_cfg_event_pid_wanted(&ut_rt.cfg, ut_rt.pid, ut_self.tid);
	ut_evpid_self.gen = gen;
	return !ut_evpid_self.skip;
}

/* Whether @pid is one of the list's entries (not: whether the list is empty). */
static bool listed(const struct ut_cfg *c, int32_t pid)
{
	return ut_cfg_pid_listed(c->event_pids, c->nr_event_pids, pid, pid);
}

static bool notrace_listed(const struct ut_cfg *c, int32_t pid)
{
	return ut_cfg_pid_listed(c->event_notrace_pids, c->nr_event_notrace_pids, pid, pid);
}

static void add_self(void)
{
	struct ut_cfg *c = &ut_rt.cfg;

	if (!listed(c, ut_rt.pid) && c->nr_event_pids < UT_CFG_MAX_PIDS)
		c->event_pids[c->nr_event_pids++] = ut_rt.pid;
	ut_evpid_changed();
}

static void add_self_notrace(void)
{
	struct ut_cfg *c = &ut_rt.cfg;

	if (!notrace_listed(c, ut_rt.pid) && c->nr_event_notrace_pids < UT_CFG_MAX_PIDS)
		c->event_notrace_pids[c->nr_event_notrace_pids++] = ut_rt.pid;
	ut_evpid_changed();
}

bool ut_evpid_notraced(void)
{
	const struct ut_cfg *c = &ut_rt.cfg;

	return ut_cfg_pid_listed(c->event_notrace_pids, c->nr_event_notrace_pids, ut_rt.pid,
				 ut_self.tid ? ut_self.tid : ut_rt.pid);
}

/*
 * In a fork child, before its session's configuration is written:
 * @parent_passed is the forking thread's verdict, taken before the fork,
 * @parent_notraced whether set_event_notrace_pid listed it.
 */
void ut_evpid_forked(bool parent_passed, bool parent_notraced)
{
	const struct ut_cfg *c = &ut_rt.cfg;

	if (c->event_fork && c->nr_event_pids && parent_passed)
		add_self();
	if (c->event_fork && parent_notraced)
		add_self_notrace();
	ut_evpid_changed();
}

/*
 * Whether session directory @name (of this pid, an earlier image) lists
 * this pid with event-fork: in set_event_pid (*@in_pids) or in
 * set_event_notrace_pid (*@in_notrace).
 */
static void earlier_image_listed(const char *name, bool *in_pids, bool *in_notrace)
{
	char path[128], why[UT_SAFE_WHY_MAX];
	struct ut_cfg c;
	size_t len = 0;
	char *text;

	*in_pids = *in_notrace = false;
	snprintf(path, sizeof(path), "%s/config", name);
	text = ut_read_file_at(ut_rt.rootfd, path, &len, why, sizeof(why));
	if (text && !ut_cfg_parse(&c, text, len, NULL, 0)) {
		*in_pids = c.event_fork && listed(&c, ut_rt.pid);
		*in_notrace = c.event_fork && notrace_listed(&c, ut_rt.pid);
		ut_cfg_free(&c);
	}
	free(text);
}

/*
 * At start-up, the template read: with event-fork, keep the pid in
 * set_event_pid (a list that does not hold it) or set_event_notrace_pid if
 * the image this one replaced (exec) was listed there.  A directory scan,
 * only in that case.  True if the pid was added.
 */
bool ut_evpid_inherit(void)
{
	const struct ut_cfg *c = &ut_rt.cfg;
	char prefix[24], *own = strrchr(ut_rt.dir, '/');
	struct dirent *d;
	DIR *dir;
	int fd;
	bool added = false, pids, notrace;

	ut_evpid_changed();
	pids = c->nr_event_pids && !listed(c, ut_rt.pid);
	notrace = !notrace_listed(c, ut_rt.pid);
	if (!c->event_fork || (!pids && !notrace) || ut_rt.rootfd < 0)
		return false;
	fd = openat(ut_rt.rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	snprintf(prefix, sizeof(prefix), "%d.", (int)ut_rt.pid);
	while (!added && (d = readdir(dir)) != NULL) {
		bool in_pids, in_notrace;

		if (strncmp(d->d_name, prefix, strlen(prefix)) != 0 || d->d_type != DT_DIR ||
		    (own && !strcmp(d->d_name, own + 1)))
			continue;
		earlier_image_listed(d->d_name, &in_pids, &in_notrace);
		if (pids && in_pids)
			add_self();
		if (notrace && in_notrace)
			add_self_notrace();
		added = (pids && in_pids) || (notrace && in_notrace);
	}
	closedir(dir);
	return added;
}

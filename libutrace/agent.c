// SPDX-License-Identifier: MIT
/*
 * The agent: a thread in the traced process that applies configuration
 * changes written by the tools (utrace start/stop, the tracefs mount) while
 * the program runs.  The protocol is in include/utrace/abi.h: a writer
 * rewrites the session's "config", bumps ctl->cfg_gen and wakes us; we
 * apply it -- filters, patching -- or keep the previous configuration if it
 * is refused, then publish the result and wake the writer.
 *
 * The agent never traces itself (its guard is held for good), blocks every
 * signal (a process-directed signal must reach one of the program's own
 * threads), and sleeps in FUTEX_WAIT between changes: an idle process pays
 * nothing for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/config.h"
#include "common/safedir.h"
#include "libutrace/internal.h"

static void futex_wait(uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * The whole file @name (at most UT_CFG_MAX_TEXT bytes), NUL-terminated, or
 * NULL.  Only a file nobody else can have written is read.
 */
char *ut_read_file_at(int dirfd, const char *name, size_t *lenp, char *why, size_t whylen)
{
	int fd = ut_safe_openat(dirfd, name, O_RDONLY, why, whylen);
	struct stat st;
	char *text = NULL;
	ssize_t n;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	if (!fstat(fd, &st) && st.st_size >= 0 && st.st_size <= (off_t)UT_CFG_MAX_TEXT) {
		text = malloc((size_t)st.st_size + 1);
		n = text ? pread(fd, text, (size_t)st.st_size, 0) : -1;
		if (n < 0) {
			free(text);
			text = NULL;
		} else {
			text[n] = '\0';
			*lenp = (size_t)n;
		}
	}
	close(fd);
	return text;
}

/*
 * instances/: the documents "config.iK" in @dirfd (the session, or the
 * template's run-time dir) set instance K; no file: the instance is off.
 * Only the function tracer runs in instances.  An instance's tracing_on is
 * bit K of ctl->inst_off, which writers set directly as they set the top
 * level's; its document's value is taken only from the template, at
 * start-up (@initial).  Under ut_rt.lock; the next ut_select_apply()
 * (after ut_select_reconfigure()) uses them.
 */
int ut_instances_load(int dirfd, bool initial, char *why, size_t whylen)
{
	uint32_t active = 0;
	int ret = 0;

	for (uint32_t k = 1; k < UT_MAX_INST; k++) {
		struct ut_instance *in = &ut_rt.inst[k];
		char name[] = "config.iK";
		struct ut_cfg doc;
		size_t len = 0;
		char *text;

		name[8] = (char)('0' + k);
		/* the first refusal is the one said: later files must not overwrite it */
		text = ut_read_file_at(dirfd, name, &len, ret ? NULL : why, ret ? 0 : whylen);
		if (!text && errno == EPERM)
			ret = -EPERM;
		free(in->filter);
		free(in->notrace);
		memset(in, 0, sizeof(*in));
		if (text && !ut_cfg_parse(&doc, text, len, NULL, 0)) {
			in->active = doc.tracer == UT_TRACER_FUNCTION;
			in->overwrite = doc.overwrite;
			in->func_stack = doc.func_stack;
			in->buf_size = ut_round_buf_size(doc.buf_kb);
			in->clock = doc.clock < UT_CLOCK_NR ? doc.clock : UT_CLOCK_LOCAL;
			in->nr_pids = doc.nr_pids <= UT_CFG_MAX_PIDS ? doc.nr_pids : UT_CFG_MAX_PIDS;
			memcpy(in->pids, doc.pids, sizeof(in->pids[0]) * in->nr_pids);
			in->filter = doc.filter && *doc.filter ? strdup(doc.filter) : NULL;
			in->notrace = doc.notrace && *doc.notrace ? strdup(doc.notrace) : NULL;
			if (initial && ut_rt.ctl && !doc.tracing_on)
				__atomic_or_fetch(&ut_rt.ctl->inst_off, 1u << k, __ATOMIC_RELEASE);
			active += in->active;
			ut_cfg_free(&doc);
		}
		free(text);
	}
	__atomic_store_n(&ut_rt.nr_inst, active, __ATOMIC_RELEASE);
	ut_fast_gate_update();
	return ret;
}

/*
 * Apply @doc under ut_rt.lock.  On error the previous configuration stays in
 * force (re-applied as it was) and @msg says why.  Lenient documents (meant
 * for every process) are applied even when some words match nothing here;
 * the error is still reported so the writer can tell nobody matched.
 */
static int apply_doc(const struct ut_cfg *doc, char *msg, size_t msglen)
{
	struct ut_cfg old = ut_rt.cfg, n;
	uint32_t old_size = ut_rt.buf_size;
	char ignored[128];
	bool pids_changed;
	int ret;

	if (ut_cfg_copy(&n, doc)) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	/* threads check set_ftrace_pid and tracing_cpumask again (ut_pid_recheck) */
	pids_changed = n.nr_pids != old.nr_pids ||
		       memcmp(n.pids, old.pids, sizeof(n.pids[0]) * n.nr_pids) != 0 ||
		       n.cpumask_set != old.cpumask_set ||
		       memcmp(n.cpumask, old.cpumask, sizeof(n.cpumask)) != 0;
	ut_rt.cfg = n;
	ut_rt.buf_size = ut_round_buf_size(n.buf_kb);
	ut_select_reconfigure();
	ret = ut_select_apply(msg, msglen);
	if (ret < 0 && !n.lenient) {
		ut_rt.cfg = old;
		ut_rt.buf_size = old_size;
		ut_select_reconfigure();
		ut_select_apply(ignored, sizeof(ignored));
		ut_cfg_free(&n);
		ut_patch_apply();
		return ret;
	}
	ut_cfg_free(&old);
	if (pids_changed)
		__atomic_add_fetch(&ut_rt.pid_gen, 1, __ATOMIC_RELEASE);
	ut_fast_gate_update();
	if (ut_patch_apply() < 0 && ret >= 0) {
		ret = -errno;
		snprintf(msg, msglen, "patching failed: %s", strerror(errno));
	}
	if (ut_usdt_apply() < 0 && ret >= 0) {
		ret = -errno;
		snprintf(msg, msglen, "enabling USDT probes failed: %s", strerror(errno));
	}
	ut_rt.ctl->tracer = ut_rt.cfg.tracer;
	ut_rt.ctl->clock = ut_rt.cfg.clock;
	ut_rt.ctl->buf_size = ut_rt.buf_size;
	ut_rt.ctl->overwrite = ut_rt.cfg.overwrite;
	/*
	 * tracing_on is not the document's: writers set ctl->tracing_on directly
	 * (ut_live_set_tracing_on), like the kernel's flag, so that changing a
	 * filter does not undo a traceoff command.
	 */
	return ret;
}

/* The writer's message is short (cfg_errmsg): a long refusal keeps its end. */
static void say_tail(char *msg, size_t len, const char *why)
{
	size_t n = strlen(why);

	if (n >= len) {
		why += n - len + 1;
		n = len - 1;
	}
	memcpy(msg, why, n);
	msg[n] = '\0';
}

static void apply(uint32_t gen)
{
	struct ut_ctl *ctl = ut_rt.ctl;
	char msg[sizeof(ctl->cfg_errmsg)] = "", why[UT_SAFE_WHY_MAX];
	struct ut_cfg doc;
	size_t len = 0;
	char *text = ut_read_file_at(ut_rt.dirfd, "config", &len, why, sizeof(why));
	int ret;

	if (!text) {
		ret = -errno ? -errno : -EIO;
		say_tail(msg, sizeof(msg), why);
	} else {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = ut_cfg_parse(&doc, text, len, msg, sizeof(msg));
		free(text);
		if (!ret) {
			pthread_mutex_lock(&ut_rt.lock);
			ret = ut_instances_load(ut_rt.dirfd, false, why, sizeof(why));
			if (ret)
				say_tail(msg, sizeof(msg), why);
			else
				ret = apply_doc(&doc, msg, sizeof(msg));
			pthread_mutex_unlock(&ut_rt.lock);
			ut_cfg_free(&doc);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ctl->cfg_apply_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
				    (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	}
	ctl->cfg_error = ret < 0 ? ret : 0;
	memcpy(ctl->cfg_errmsg, msg, sizeof(msg));
	__atomic_store_n(&ctl->cfg_applied, gen, __ATOMIC_RELEASE);
	futex_wake(&ctl->cfg_applied);
}

static void *agent_main(void *arg)
{
	struct ut_ctl *ctl = arg;

	ut_self.busy = 1; /* never traced */
	prctl(PR_SET_NAME, "utrace-agent", 0, 0, 0);
	__atomic_store_n(&ctl->agent_tid, (int32_t)gettid(), __ATOMIC_RELEASE);
	for (;;) {
		uint32_t gen = __atomic_load_n(&ctl->cfg_gen, __ATOMIC_ACQUIRE);

		if (gen != __atomic_load_n(&ctl->cfg_applied, __ATOMIC_ACQUIRE))
			apply(gen);
		else
			futex_wait(&ctl->cfg_gen, gen);
	}
	return NULL;
}

/**
 * ut_agent_start - start this process's agent thread
 *
 * Called at start-up and in a fork child (threads do not survive fork).
 * Return: 0 or a negative errno (the process then runs without live control).
 */
int ut_agent_start(void)
{
	if (getenv("UTRACE_NO_AGENT") || !ut_rt.ctl)
		return 0;
	/*
	 * Both generations start at 0 in a new control block: a writer that
	 * came during start-up left them apart, and its configuration is
	 * applied as soon as the agent runs.
	 */
	return ut_rt_thread_start(agent_main, ut_rt.ctl, (size_t)256 * 1024);
}

/**
 * ut_session_write_config - publish the configuration in force as "config"
 *
 * So readers (utrace ps, the mount) see what the process does, and the first
 * writer edits from there.  Return: 0, -EBUSY if a writer's document is
 * there (it stands: the agent applies it), or a negative errno.
 */
int ut_session_write_config(void)
{
	struct ut_cfg doc = ut_rt.cfg; /* shallow: not freed */
	char *text;
	int fd, ret = 0;

	doc.buf_kb = ut_rt.buf_size / 1024; /* what the buffers are: a power of two */
	doc.tracing_on = ut_rt.ctl ? ut_rt.ctl->tracing_on : 1;
	text = ut_cfg_format(&doc);
	if (!text)
		return -ENOMEM;
	/*
	 * Under the writers' lock, and only if no writer's document waits for
	 * the agent: once the session is published, theirs wins.
	 */
	fd = openat(ut_rt.dirfd, "config", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB))
		ret = fd < 0 ? -EIO : -EBUSY;
	else if (ut_rt.ctl && __atomic_load_n(&ut_rt.ctl->cfg_gen, __ATOMIC_ACQUIRE) !=
				      __atomic_load_n(&ut_rt.ctl->cfg_applied, __ATOMIC_ACQUIRE))
		ret = -EBUSY;
	else if (ftruncate(fd, 0) || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -EIO;
	if (fd >= 0)
		close(fd); /* drops the lock */
	free(text);
	return ret;
}

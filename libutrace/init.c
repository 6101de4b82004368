// SPDX-License-Identifier: MIT
/*
 * Start-up and life cycle of the runtime: read the configuration, open the
 * session, find and disable every site, apply the filters, and follow the
 * program through fork (dlopen.c follows dlopen/dlclose).
 *
 * The configuration is one document (common/config.h), the run-time
 * directory's "config": $UTRACE_DIR's (a private one `utrace record` made and
 * wrote), else /dev/shm/utrace-<uid>'s (`utrace start`, the mount).  No
 * setting comes from the environment; the variables still read are listed,
 * with why, in docs/shm-abi.md.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "common/config.h"
#include "common/safedir.h"
#include "libutrace/internal.h"

struct ut_runtime ut_rt = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.dirfd = -1,
	.rootfd = -1,
	.memfd = -1,
	/* not 0: a new thread's pid_gen, which must be checked against set_ftrace_pid once */
	.pid_gen = 1,
	.fast_gen = 1 ^ UT_FAST_CLOSED, /* closed: no fast path before a session */
	.fast_ret_gen = 1 ^ UT_FAST_CLOSED,
};

extern __attribute__((weak)) const ptrdiff_t __rseq_offset;
/* The CPU number of a process without rseq: always 0 (init.c, ut_cpu()). */
static __thread uint32_t ut_no_cpu __attribute__((tls_model("initial-exec")));
extern __attribute__((weak)) const unsigned int __rseq_size;

uint32_t ut_round_buf_size(unsigned long kb)
{
	uint64_t bytes = (uint64_t)kb * 1024, size = 2 * (uint64_t)UT_PAGE_SIZE;

	while (size < bytes && size < (1ull << 30))
		size <<= 1;
	return (uint32_t)size;
}

/*
 * The configuration of the run-time directory ("config": written by `utrace
 * record` into its own directory, by `utrace start` and the mount's top level
 * into the user's), taken leniently: its words name functions of any
 * program.  No document: the defaults (nop).  A document someone else can
 * have written is refused: *@refused is set and @why says why.
 */
static char *read_config(struct ut_cfg *c, size_t *lenp, bool *refused, char *why,
			 size_t whylen)
{
	char *text;
	struct ut_cfg doc;
	size_t len = 0;

	*lenp = 0;
	*refused = false;
	if (!ut_rt.ctl || ut_rt.rootfd < 0)
		return NULL;
	text = ut_read_file_at(ut_rt.rootfd, "config", &len, why, whylen);
	*refused = !text && errno == EPERM;
	/* instances/: theirs too */
	if (!*refused && ut_instances_load(ut_rt.rootfd, true, why, whylen))
		*refused = true;
	if (*refused) {
		free(text);
		return NULL;
	}
	if (!text)
		return NULL;
	if (!ut_cfg_parse(&doc, text, len, NULL, 0)) {
		doc.lenient = true;
		ut_cfg_free(c);
		*c = doc; /* the strings move over */
		ut_rt.buf_size = ut_round_buf_size(c->buf_kb);
		ut_rt.ctl->tracer = c->tracer;
		ut_rt.ctl->clock = c->clock;
		ut_rt.ctl->buf_size = ut_rt.buf_size;
		ut_rt.ctl->overwrite = c->overwrite;
		ut_rt.ctl->tracing_on = c->tracing_on;
	}
	*lenp = len;
	return text;
}

/*
 * Tests: stretch start-up at one of two points, as scanning a big program
 * does, so that a writer reliably comes at the wrong moment.
 * UTRACE_INIT_DELAY_MS: published, the agent not yet running.
 * UTRACE_INIT_DELAY_UNPUBLISHED_MS: the template read, not yet published.
 */
static void test_delay(const char *var)
{
	const char *v = getenv(var);
	long ms = v ? strtol(v, NULL, 10) : 0;

	if (ms > 0 && ms <= 10000) {
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

		nanosleep(&ts, NULL);
	}
}

/*
 * Publish the session, with its configuration written first: a writer
 * finding it must not see its document overwritten by ours.  A top-level
 * writer (utrace start, the mount) that ran meanwhile, not seeing us yet,
 * wrote the template before looking for new processes: read it again, and
 * take it if it changed since @old (ours then).
 */
static void publish(char *old, size_t oldlen)
{
	char *now, why[UT_SAFE_WHY_MAX];
	size_t len;
	bool refused;

	test_delay("UTRACE_INIT_DELAY_UNPUBLISHED_MS");
	ut_session_write_config();
	ut_session_publish();
	now = read_config(&ut_rt.cfg, &len, &refused, why, sizeof(why));
	if (now && (!old || len != oldlen || memcmp(now, old, len) != 0))
		ut_session_write_config();
	free(now);
}

/* Apply the configuration to the sites there are now; under ut_rt.lock. */
void ut_update_locked(void)
{
	char err[256];

	/* A configuration for every process names functions other programs have. */
	if (ut_select_apply(err, sizeof(err)) < 0 && !ut_rt.cfg.lenient)
		ut_log("%s", err);
	if (ut_patch_apply() < 0)
		ut_log("patching failed: %s", strerror(errno));
	if (ut_usdt_apply() < 0)
		ut_log("enabling USDT probes failed: %s", strerror(errno));
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&ut_rt.lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&ut_rt.lock);
}

/* The child gets a session of its own; its copy of the parent's buffers is forgotten. */
static void atfork_child(void)
{
	/* the parent's instance switches (traceoff commands that fired) go on here */
	uint32_t inst_off = ut_rt.ctl ? ut_rt.ctl->inst_off : 0;
	int parent_dirfd = ut_rt.dirfd; /* kept open: its symbol copies are linked */
	bool evpid_passed = ut_evpid_ok(); /* the forking thread's, for event-fork */
	bool evpid_notraced = ut_evpid_notraced(); /* set_event_notrace_pid lists it */
	char why[UT_SAFE_WHY_MAX];

	pthread_mutex_init(&ut_rt.lock, NULL);
	ut_patch_after_fork(); /* else its patches would go to the parent's text */
	ut_quiet++; /* what the runtime calls here is not the program's */
	ut_writer_forget();
	ut_rt.dirfd = -1;
	ut_session_forget();
	if (ut_session_create(why, sizeof(why))) {
		if (parent_dirfd >= 0)
			close(parent_dirfd);
		ut_rt.ready = false;
		ut_quiet--;
		return;
	}
	ut_clock_settle(ut_rt.ctl);
	ut_rt.ctl->inst_off = inst_off;
	ut_session_link_snapshots(parent_dirfd);
	if (parent_dirfd >= 0)
		close(parent_dirfd);
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++)
		if (ut_rt.mods[i]->alive && ut_rt.mods[i]->kind != UT_KIND_LIBCALL)
			ut_session_log_module("load", ut_rt.mods[i]);
	ut_rt.pid = getpid();
	ut_evpid_forked(evpid_passed, evpid_notraced);
	ut_evtrig_apply(); /* the child's own trigger counts and hist tables */
	ut_session_write_config();
	ut_session_publish();
	ut_agent_start();
	ut_prefault_start();
	ut_session_gc_dead(); /* a server forking helpers all day: theirs go here */
	ut_quiet--;
}

__attribute__((constructor(101))) static void ut_init(void)
{
	char *tmpl = NULL, why[UT_SAFE_WHY_MAX];
	size_t tmpl_len = 0;
	bool refused = false;
	Dl_info self;
	int ret;

	if (&__rseq_size && &__rseq_offset && __rseq_size >= 8)
		ut_rt.rseq_cpu_off = (long)__rseq_offset + 4; /* struct rseq.cpu_id */
	else /* no rseq: CPU 0, read from a word every thread has (the fast paths never test) */
		ut_rt.rseq_cpu_off = (long)((char *)&ut_no_cpu - (char *)ut_arch_thread_pointer());
	if (getenv("UTRACE_DISABLE"))
		return;
	ut_rt.pid = getpid();
	if (dladdr((void *)&ut_rt, &self))
		ut_rt.self_base = (uint64_t)self.dli_fbase;
	ut_quiet++; /* what the runtime calls here is not the program's (plthook.c) */
	ut_cfg_init(&ut_rt.cfg);
	ut_follow_init();
	ut_procev_init();
	ut_sigev_init();
	ut_rt.buf_size = ut_round_buf_size(ut_rt.cfg.buf_kb);
	ut_arch_init_fpu();
	ut_slots_init();
	/* before a page of the session is written: a full file system must not kill the program */
	if (ut_shmfault_init())
		ut_log("cannot handle SIGBUS: a full session root may kill the program");
	pthread_mutex_lock(&ut_rt.lock);
	ret = ut_session_create(why, sizeof(why));
	if (ret) {
		/* another user's run-time directory must not decide what we do */
		ut_log("%s; the program runs untraced", why);
		ut_session_discard();
		goto out;
	}
	tmpl = read_config(&ut_rt.cfg, &tmpl_len, &refused, why, sizeof(why));
	if (refused) {
		/* @why names the file; the run-time directory is the session's parent */
		ut_log("%.*s/%s; the program runs untraced",
		       (int)(strrchr(ut_rt.dir, '/') - ut_rt.dir), ut_rt.dir, why);
		ut_session_discard();
		goto out;
	}
	ut_evpid_inherit(); /* event-fork across exec */
	/* Writers may come from now on; the agent applies theirs when it starts. */
	publish(tmpl, tmpl_len);
	free(tmpl);
	if (ut_evpid_inherit()) /* publish() took the template again */
		ut_session_write_config();
	ut_follow_children(ut_rt.cfg.follow);
	test_delay("UTRACE_INIT_DELAY_MS");
	ret = ut_patch_init();
	if (ret) {
		ut_log("cannot patch text (%s): tracing disabled", strerror(-ret));
		goto out;
	}
	ut_sites_scan_all();
	ut_clock_settle(ut_rt.ctl); /* before the first timestamp is converted or taken */
	ut_rt.ready = true;
	ut_update_locked();
	ut_procev_exec();
	ut_agent_start();
	ut_prefault_start();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	ut_session_gc_dead();
out:
	ut_clock_settle(ut_rt.ctl);
	pthread_mutex_unlock(&ut_rt.lock);
	ut_quiet--;
}

__attribute__((destructor)) static void ut_fini(void)
{
	ut_quiet++;
	ut_procev_exit(true);
	ut_session_exit();
	ut_session_gc_self();
	ut_quiet--;
}

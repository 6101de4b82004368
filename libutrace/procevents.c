// SPDX-License-Identifier: MIT
/*
 * Process events in the runtime (common/procevents.h): each enabled by the
 * configuration's `events` words as a USDT probe is (`sched:*`,
 * `utrace:thread_start`, ...), and recorded into the ring of the thread it
 * happens in as an EVENT record carrying the kernel's fields.
 *
 * Where each is seen:
 *   sched_process_fork  in the parent, after fork() or posix_spawn[p]()
 *                       made a child (interposed here and in follow.c).
 *                       Not seen: vfork(), a raw clone(), and the clones
 *                       that make threads (the kernel shows those too;
 *                       utrace shows utrace:thread_start instead).
 *   sched_process_exec  when the runtime starts in a new program: the
 *                       name execve() was given (AT_EXECFN); old_pid is
 *                       the pid (a thread other than the leader that
 *                       execs is not told apart).
 *   sched_process_exit  when a thread that recorded something exits
 *                       (pthread_exit, returning from its function) and
 *                       when the process calls exit() or returns from
 *                       main (group_dead true); not after _exit(), nor a
 *                       death by a signal.  prio is the kernel's 120 + nice.
 *   thread_start        in the new thread, before its function, for the
 *                       threads pthread_create() makes while it is enabled;
 *                       thread_exit with sched_process_exit.
 *   dlopen / dlclose    libutrace/dlopen.c: the object's path and base.
 * The signal events are libutrace/sigevents.c's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/procev_fields.h"
#include "common/procevents.h"
#include "libutrace/internal.h"

/* Bit (id - UT_PEV_FIRST): the event is enabled. */
static uint32_t enabled;

/* Each event's filter (events/SYS/EVT/filter; NULL: none) and the word it came from. */
static const struct ut_evf *filters[UT_PEV_END - UT_PEV_FIRST];
static char *fprogs[UT_PEV_END - UT_PEV_FIRST];

_Static_assert(UT_PEV_END - UT_PEV_FIRST <= 32, "one bit per event");

/* Make the enabled set what the configuration's words say; under ut_rt.lock. */
void ut_procev_apply(void)
{
	size_t n;
	const struct ut_procev *v = ut_procev_all(&n);
	uint32_t on = 0;

	for (size_t i = 0; i < n; i++) {
		char ev[64];

		if (v[i].id < UT_PEV_FIRST || v[i].id >= UT_PEV_END)
			continue;
		if (ut_usdt_selected(ut_rt.cfg.events, v[i].system, v[i].name))
			on |= 1u << (v[i].id - UT_PEV_FIRST);
		snprintf(ev, sizeof(ev), "%s:%s", v[i].system, v[i].name);
		ut_evf_follow(ev, &filters[v[i].id - UT_PEV_FIRST], &fprogs[v[i].id - UT_PEV_FIRST]);
	}
	__atomic_store_n(&enabled, on, __ATOMIC_RELAXED);
	ut_evpid_changed(); /* set_event_pid may have changed too */
}

static bool enabled_bit(unsigned id)
{
	return id >= UT_PEV_FIRST && id < UT_PEV_END &&
	       (__atomic_load_n(&enabled, __ATOMIC_RELAXED) >> (id - UT_PEV_FIRST) & 1);
}

/* Whether event @id is to be seen: enabled, or armed by triggers (the kernel's soft mode). */
bool ut_procev_on(unsigned id)
{
	const struct ut_procev *d;

	if (enabled_bit(id))
		return true;
	d = id >= UT_PEV_FIRST && id < UT_PEV_END ? ut_procev_by_id((uint16_t)id) : NULL;
	return d && ut_evtrig_arms_named(d->system, d->name);
}

void ut_pev_init(struct ut_pev *e, unsigned id)
{
	const struct ut_procev *d = ut_procev_by_id((uint16_t)id);

	memset(e, 0, sizeof(*e));
	e->id = id;
	e->len = d ? d->min_len - 8u : 0;
}

void ut_pev_put(struct ut_pev *e, unsigned off, const void *v, unsigned size)
{
	if (off >= 8 && off - 8 + size <= sizeof(e->b))
		memcpy(e->b + (off - 8), v, size);
}

/* A __data_loc string: its bytes after the fixed fields, located by the u32 at @off. */
void ut_pev_str(struct ut_pev *e, unsigned off, const char *s)
{
	size_t room = sizeof(e->b) - e->len, n = strnlen(s ? s : "", room ? room - 1 : 0);
	uint32_t loc;

	if (!room)
		return;
	loc = (uint32_t)((n + 1) << 16 | (e->len + 8));
	memcpy(e->b + e->len, s ? s : "", n);
	e->b[e->len + n] = '\0';
	e->len += (unsigned)n + 1;
	ut_pev_put(e, off, &loc, 4);
}

/* Record @e into this thread's ring. */
static void record(const struct ut_pev *e)
{
	struct ut_thread *t = &ut_self;
	unsigned size = 16 + ((e->len + 15) & ~15u);
	uint64_t *w, delta;

	if (e->len > UT_REC_EVENT_MAX || !ut_tracing_on(t) || !ut_evpid_ok() || !ut_enter(t))
		return;
	w = ut_rec_reserve(t, size, &delta);
	if (w) {
		w[0] = ut_rec_word0(UT_REC_EVENT, ut_cpu(), e->id | (uint64_t)e->len << 16);
		w[1] = delta << UT_REC_DELTA_SHIFT;
		if (size > 16)
			w[1 + (size - 16) / 8] = 0; /* the padding of the last word */
		memcpy(w + 2, e->b, e->len);
		ut_rec_commit(t, size);
	}
	ut_leave(t);
}

/* Where libutrace.so's loaded segments end (ut_procev_init); 0: not known. */
static uint64_t self_end;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (info->dlpi_addr != ut_rt.self_base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && info->dlpi_addr + ph->p_vaddr + ph->p_memsz > self_end)
			self_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

/*
 * Where the program called the runtime: the first return address outside
 * libutrace.so (the interposed fork(), waitpid(), ...).  0 if none.
 */
static uint64_t program_site(void)
{
	void *frames[16];
	int n = backtrace(frames, 16);

	for (int i = 0; i < n; i++) {
		uint64_t a = (uint64_t)(uintptr_t)frames[i];

		if (a < ut_rt.self_base || a >= self_end)
			return a;
	}
	return 0;
}

/*
 * Whether event @e (of format @d) passes filter @f: its fields laid out as
 * the filter was compiled (common/usdt_events.h, ut_evfmt_fields: 8-byte
 * slots, the strings after them located by __data_loc slots).  Its own
 * function: its 3 KB of stack are taken only when there is a filter (a
 * signal handler's event may run on a small alternate stack).
 */
static __attribute__((noinline)) bool judged(const struct ut_procev *d, const struct ut_pev *e,
					     const struct ut_evf *f)
{
	uint64_t rec[1 + UT_USDT_MAX_ARGS + UT_PEV_MAX_PAYLOAD / 8 + 1];
	uint8_t raw[8 + sizeof(e->b)];
	struct ut_evfmt fmt;
	unsigned n, used = 0;
	char *strs;

	memset(raw, 0, 8);
	memcpy(raw + 8, e->b, e->len);
	n = ut_procev_slots(d, raw, 8 + e->len, rec + 1);
	ut_procev_evfmt(d, &fmt);
	strs = (char *)(rec + 1 + n);
	for (unsigned i = 0; i < n; i++) {
		const char *s = (const char *)(uintptr_t)rec[1 + i];
		size_t room = UT_PEV_MAX_PAYLOAD - used, len;

		if (!fmt.is_string[i])
			continue;
		len = s && room > 1 ? strnlen(s, room - 1) + 1 : 0; /* (0: "(fault)", as a probe's) */
		if (len) {
			memcpy(strs + used, s, len - 1);
			strs[used + len - 1] = '\0';
		}
		rec[1 + i] = (uint64_t)len << 16 | (len ? 8 + 8 * n + used : 0);
		used += (unsigned)len;
	}
	return ut_evf_passes(f, rec, 8 + 8 * (size_t)n + used, ut_cpu());
}

/* Whether event @e (of format @d) passes its filter, if it has one. */
static bool passes(const struct ut_procev *d, const struct ut_pev *e)
{
	const struct ut_evf *f = e->id >= UT_PEV_FIRST && e->id < UT_PEV_END
					 ? __atomic_load_n(&filters[e->id - UT_PEV_FIRST], __ATOMIC_ACQUIRE)
					 : NULL;

	return !f || judged(d, e, f);
}

/*
 * Event @e happened: recorded if enabled (or soft-enabled by a trigger),
 * then its triggers run, as a probe's do (libutrace/evtrigger.c), with its
 * fields as slots; a stacktrace trigger's stack starts where the program
 * called the runtime (the interposed call).
 */
void ut_pev_emit(const struct ut_pev *e)
{
	const struct ut_procev *d = ut_procev_by_id((uint16_t)e->id);
	uint8_t rec[8 + sizeof(e->b)];
	uint64_t slots[UT_USDT_MAX_ARGS];
	unsigned n;

	if (!ut_rt.ready || !d)
		return;
	if (ut_evtrig_records_named(d->system, d->name, enabled_bit(e->id)) && passes(d, e))
		record(e); /* the filter decides what is written; the triggers run all the same */
	if (!ut_evtrig_arms_named(d->system, d->name))
		return;
	memset(rec, 0, 8);
	memcpy(rec + 8, e->b, e->len < sizeof(e->b) ? e->len : sizeof(e->b));
	n = ut_procev_slots(d, rec, 8 + e->len, slots);
	ut_evtrig_hit_event(d->system, d->name, slots, n, program_site());
}

/* The calling thread's comm, NUL-padded, as the kernel's events carry it. */
void ut_procev_comm(char comm[16])
{
	memset(comm, 0, 16);
	prctl(PR_GET_NAME, comm, 0, 0, 0);
}

/* The calling thread's priority as the kernel's sched events give it: 120 + nice. */
int32_t ut_procev_prio(void)
{
	return 120 + getpriority(PRIO_PROCESS, 0);
}

/* sched_process_fork in the parent: @child was made. */
void ut_procev_forked(pid_t child)
{
	struct ut_pev e;
	char comm[16];
	int32_t me = (int32_t)gettid();

	if (child <= 0 || !ut_procev_on(UT_PEV_FORK))
		return;
	ut_procev_comm(comm);
	ut_pev_init(&e, UT_PEV_FORK);
	ut_pev_str(&e, 8, comm);
	ut_pev_put(&e, 12, &me, 4);
	ut_pev_str(&e, 16, comm);
	ut_pev_put(&e, 20, &child, 4);
	ut_pev_emit(&e);
}

/* sched_process_exec: the runtime starts in a new program (ut_init, once ready). */
void ut_procev_exec(void)
{
	struct ut_pev e;
	const char *name = (const char *)getauxval(AT_EXECFN);
	int32_t pid = (int32_t)getpid();

	if (!ut_procev_on(UT_PEV_EXEC))
		return;
	ut_pev_init(&e, UT_PEV_EXEC);
	ut_pev_str(&e, 8, name ? name : "");
	ut_pev_put(&e, 12, &pid, 4);
	ut_pev_put(&e, 16, &pid, 4);
	ut_pev_emit(&e);
}

/*
 * sched_process_exit of this thread (@group_dead: the process exits), and
 * thread_exit; at the process's exit, the SIGCHLD to its parent after it.
 */
void ut_procev_exit(bool group_dead)
{
	struct ut_pev e;
	char comm[16];
	int32_t tid = (int32_t)gettid(), prio;
	uint8_t dead = group_dead;

	if (!group_dead && ut_procev_on(UT_PEV_THREAD_EXIT)) {
		ut_pev_init(&e, UT_PEV_THREAD_EXIT);
		ut_pev_put(&e, 8, &tid, 4);
		ut_pev_emit(&e);
	}
	if (ut_procev_on(UT_PEV_EXIT)) {
		ut_procev_comm(comm);
		prio = ut_procev_prio();
		ut_pev_init(&e, UT_PEV_EXIT);
		ut_pev_put(&e, 8, comm, 16);
		ut_pev_put(&e, 24, &tid, 4);
		ut_pev_put(&e, 28, &prio, 4);
		ut_pev_put(&e, 32, &dead, 1);
		ut_pev_emit(&e);
	}
	if (group_dead)
		ut_sigev_exiting(); /* after the exit event, as the kernel's exit_notify() */
}

/* ---- fork() and pthread_create(), interposed ---- */

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static pid_t (*real_fork)(void);
static create_fn real_create;

/* At start-up: the real functions (fork may be called from a signal handler, dlsym may not). */
void ut_procev_init(void)
{
	real_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
	ut_procfree_init();
	if (ut_rt.self_base && !self_end)
		dl_iterate_phdr(find_self, NULL);
	real_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
}

__attribute__((visibility("default"))) pid_t fork(void)
{
	pid_t pid;

	if (!real_fork)
		ut_procev_init();
	if (!real_fork) {
		errno = ENOSYS;
		return -1;
	}
	pid = real_fork();
	if (pid > 0)
		ut_procev_forked(pid);
	return pid;
}

struct thread_start {
	void *(*fn)(void *);
	void *arg;
	int32_t parent;
};

/* The new thread: thread_start, then its function. */
static void *started(void *p)
{
	struct thread_start s = *(struct thread_start *)p;
	struct ut_pev e;
	int32_t tid = (int32_t)gettid();
	uint64_t fn = (uint64_t)(uintptr_t)s.fn;

	free(p);
	ut_pev_init(&e, UT_PEV_THREAD_START);
	ut_pev_put(&e, 8, &tid, 4);
	ut_pev_put(&e, 12, &s.parent, 4);
	ut_pev_put(&e, 16, &fn, 8);
	ut_pev_emit(&e);
	return s.fn(s.arg);
}

/*
 * Only while thread_start is enabled does a thread start in started():
 * otherwise its function is called by the C library as without utrace
 * (its caller is what function tracing shows).  The runtime's own threads
 * (ut_quiet) are not the program's.
 */
__attribute__((visibility("default"))) int pthread_create(pthread_t *th, const pthread_attr_t *attr,
							  void *(*fn)(void *), void *arg)
{
	struct thread_start *s;
	int ret;

	if (!real_create)
		ut_procev_init();
	if (!real_create)
		return ENOSYS;
	if (ut_quiet || !ut_procev_on(UT_PEV_THREAD_START) || !(s = malloc(sizeof(*s))))
		return real_create(th, attr, fn, arg);
	*s = (struct thread_start){fn, arg, (int32_t)gettid()};
	ret = real_create(th, attr, started, s);
	if (ret)
		free(s);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * Shadow stacks per stack.  function_graph keeps a frame for every hooked
 * call; a thread running coroutines (makecontext/swapcontext) runs on
 * several stacks in turn, and one shadow stack for all of them mixes their
 * frames: a call of main after a switch would print inside the coroutine's
 * frame.  So each coroutine stack gets a shadow stack of its own, found by
 * address in a table of the stacks makecontext was given, and the thread's
 * own stack has its "home" one; ut_thread.shadow is the one of the stack
 * that runs, switched by the ucontext wrappers (libutrace/context.c).
 *
 * The table is process-wide (a coroutine may be resumed by another thread;
 * only one thread runs on a stack at a time) and only grows: a stack handed
 * to makecontext again, or one overlapping it (memory reused), takes over
 * the old entry and starts empty.  Lookups are lock-free; registering takes
 * a lock.  On the tracing path: built like the tracers.
 */
#include <sys/mman.h>

#include "libutrace/internal.h"

/* More coroutine stacks than this share the thread's shadow stack (as before). */
#define UT_MAX_STACKS 4096

struct stack_region {
	uint64_t lo, hi;
	struct ut_shadow *sh; /* made at the first traced call on it */
};

static struct stack_region regions[UT_MAX_STACKS];
static uint32_t nr_regions;
static pthread_mutex_t regions_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ut_shadow *shadow_new(uint64_t lo, uint64_t hi)
{
	size_t size = sizeof(struct ut_shadow) + UT_SHADOW_DEPTH * sizeof(struct ut_shadow_frame);
	struct ut_shadow *sh;

	sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return NULL;
	sh->lo = lo;
	sh->hi = hi;
	return sh;
}

struct ut_shadow *ut_stacks_new_home(void)
{
	return shadow_new(0, 0);
}

static void shadow_forget_prof(struct ut_shadow *sh)
{
	for (uint32_t i = 0; sh && i < sh->top && i < UT_SHADOW_DEPTH; i++)
		sh->f[i].prof = NULL;
}

/*
 * After fork, in the child: the calls in progress (fork's caller, main...)
 * hold the parent's profiler rows, shared memory of the parent's session
 * that the child no longer maps.  Their returns count nowhere (the time
 * before the fork is the parent's); the child's calls from now on go to
 * rows of its own.
 */
void ut_stacks_forget_prof(struct ut_thread *t)
{
	uint32_t n = __atomic_load_n(&nr_regions, __ATOMIC_ACQUIRE);

	shadow_forget_prof(t->home);
	for (uint32_t i = 0; i < n; i++)
		shadow_forget_prof(regions[i].sh);
}

/* The newest stack holding @addr. */
static struct stack_region *region_of(uint64_t addr)
{
	uint32_t n = __atomic_load_n(&nr_regions, __ATOMIC_ACQUIRE);

	for (uint32_t i = n; i-- > 0;) {
		uint64_t lo = __atomic_load_n(&regions[i].lo, __ATOMIC_RELAXED);
		uint64_t hi = __atomic_load_n(&regions[i].hi, __ATOMIC_RELAXED);

		if (addr - lo < hi - lo)
			return &regions[i];
	}
	return NULL;
}

struct ut_shadow *ut_stacks_shadow_for(struct ut_thread *t, uint64_t addr, bool create)
{
	struct stack_region *r = region_of(addr);
	struct ut_shadow *sh, *made;

	if (!r) {
		if (!t->home && create)
			t->home = ut_stacks_new_home();
		return t->home;
	}
	sh = __atomic_load_n(&r->sh, __ATOMIC_ACQUIRE);
	if (sh || !create)
		return sh;
	made = shadow_new(r->lo, r->hi);
	if (made && !__atomic_compare_exchange_n(&r->sh, &sh, made, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
		munmap(made, sizeof(struct ut_shadow) +
				     UT_SHADOW_DEPTH * sizeof(struct ut_shadow_frame));
		return sh;
	}
	return made;
}

/* An entry now for the stack [lo, hi): a coroutine that ran there is over. */
static void region_set(struct stack_region *r, uint64_t lo, uint64_t hi)
{
	struct ut_shadow *sh = r->sh;

	__atomic_store_n(&r->lo, lo, __ATOMIC_RELAXED);
	__atomic_store_n(&r->hi, hi, __ATOMIC_RELAXED);
	if (sh) {
		sh->top = sh->roots = sh->hidden = 0;
		sh->base = 0;
		sh->lo = lo;
		sh->hi = hi;
	}
}

void ut_stacks_register(uint64_t lo, uint64_t hi)
{
	struct stack_region *r = NULL;
	uint32_t n;

	if (hi <= lo)
		return;
	pthread_mutex_lock(&regions_lock);
	n = nr_regions;
	for (uint32_t i = 0; i < n; i++) {
		if (regions[i].lo >= hi || lo >= regions[i].hi)
			continue;
		if (!r)
			r = &regions[i];
		else
			region_set(&regions[i], 0, 0); /* never matches again */
	}
	if (r) {
		region_set(r, lo, hi);
	} else if (n < UT_MAX_STACKS) {
		region_set(&regions[n], lo, hi);
		__atomic_store_n(&nr_regions, n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&regions_lock);
}

/*
 * The shadow stack of the stack a context switch goes to, made now if the
 * graph hooks are in use (a thread's first traced call takes its own
 * stack's).  A coroutine's that holds no frame starts below the frame that
 * switched to it, so its calls nest there in the graph.
 */
struct ut_shadow *ut_stacks_switch(uint64_t sp)
{
	struct ut_thread *t = &ut_self;
	struct ut_shadow *from = t->shadow, *to;
	bool graph = ut_rt.cfg.tracer == UT_TRACER_FUNCTION_GRAPH || ut_rt.cfg.profile;

	to = ut_stacks_shadow_for(t, sp, graph);
	if (to && to != from && to->hi && !to->top)
		to->base = from ? from->base + from->top : 0;
	t->shadow = to;
	return from;
}

/* Not inlined into a wrapper: the thread may have changed across the switch. */
__attribute__((noinline)) void ut_stacks_resume(struct ut_shadow *sh)
{
	ut_self.shadow = sh;
}

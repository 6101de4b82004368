// SPDX-License-Identifier: MIT
/*
 * The function_graph tracer.  At a traced function's entry the return
 * address on the stack is swapped for utrace_graph_return and the real one
 * is pushed on the thread's shadow stack; the return lands in the
 * trampoline, which pops it, records the exit with its duration and goes
 * back to the real caller.
 *
 *   entry:  GRAPH_ENTRY {func, depth}                            (16 bytes)
 *   exit:   GRAPH_EXIT  {func, depth, overrun, duration, retval} (32 bytes)
 *       or  GRAPH_RET   {func, depth, retval's 32 bits}          (16 bytes)
 *
 * GRAPH_RET is a leaf's exit, right after its entry: its duration is its
 * time delta.  The fast return writes it (arch/x86_64/trampoline.S); here
 * every exit is a GRAPH_EXIT, rarer and always right.
 *
 * Frames are matched by the address of the stack slot that held the return
 * address, so a longjmp (or siglongjmp out of a signal handler) that skips
 * frames is noticed at the next entry or return on that stack: the frames
 * it skipped are dropped (their functions print entry-only).  A tail call
 * finds its slot already hooked and chains to the frame below.  Before a
 * C++ exception unwinds the stack the real return addresses are put back,
 * and the frames that catch it are hooked again (libutrace/unwind.c).  Each
 * coroutine stack has a shadow stack of its own (libutrace/stacks.c).
 *
 * The common entry and return (default configuration, nothing unusual)
 * are done by the trampolines themselves (arch/x86_64/trampoline.S); this
 * file has every other case.
 */
#include <unistd.h>

#include "libutrace/internal.h"

void ut_graph_entry(uint64_t ip, uint64_t *slot) UT_HIDDEN;
uint64_t ut_graph_return(uint64_t sp, uint64_t retval) UT_HIDDEN;

/* How far below a frame's slot a slot may be and still be on the same stack. */
#define SAME_STACK (8u << 20)

/* Pop the top frame; a @stale one is remembered in case it returns after all. */
static void pop_frame(struct ut_shadow *sh, bool stale)
{
	const struct ut_shadow_frame *f = &sh->f[sh->top - 1];

	if (stale) {
		uint32_t i = sh->next_dropped++ % UT_SHADOW_DROPPED;

		sh->dropped[i].slot = f->slot;
		sh->dropped[i].ret = f->ret;
	}
	sh->roots -= !!(f->flags & UT_FRAME_ROOT);
	sh->hidden -= !!(f->flags & UT_FRAME_HIDDEN);
	sh->top--;
}

/*
 * Frames a longjmp skipped: on the same stack as @slot and at or below it,
 * so their functions can no longer return.  Dropping them at the next entry
 * keeps the depth right.  A frame with this very slot that is still hooked
 * is the caller of a tail call, not stale.
 */
static void drop_stale(struct ut_shadow *sh, uint64_t slot)
{
	while (sh->top) {
		const struct ut_shadow_frame *f = &sh->f[sh->top - 1];

		if (f->slot > slot || slot - f->slot > SAME_STACK)
			break;
		if (f->slot == slot && *(uint64_t *)slot == (uint64_t)utrace_graph_return)
			break;
		pop_frame(sh, true);
	}
}

/*
 * Frames a C++ exception unwound, found when it is caught: those below @sp,
 * the stack pointer of the frame that catches (libutrace/unwind.c).  They
 * print entry-only.
 */
void ut_graph_drop_below(struct ut_shadow *sh, uint64_t sp)
{
	while (sh->top) {
		const struct ut_shadow_frame *f = &sh->f[sh->top - 1];

		if (f->slot >= sp || sp - f->slot > SAME_STACK)
			break;
		pop_frame(sh, false);
	}
}

/* A coroutine's shadow stack, and @addr is not on its stack. */
static inline bool off_stack(const struct ut_shadow *sh, uint64_t addr)
{
	return sh->hi && addr - sh->lo >= sh->hi - sh->lo;
}

/* The words of the two records (utrace_graph_caller and _return write the same). */
static inline void put_entry(uint64_t *w, uint64_t ip, uint64_t delta, uint32_t depth)
{
	w[0] = ut_rec_word0(UT_REC_GRAPH_ENTRY, ut_cpu(), ip);
	w[1] = (delta << UT_REC_DELTA_SHIFT) | depth;
}

static inline void put_exit(uint64_t *w, const struct ut_shadow_frame *f, uint64_t delta,
			    uint64_t overrun, uint64_t dur, uint64_t retval)
{
	w[0] = ut_rec_word0(UT_REC_GRAPH_EXIT, ut_cpu(), f->func);
	w[1] = (delta << UT_REC_DELTA_SHIFT) | ((overrun & 0xffff) << 32) | f->depth;
	w[2] = dur;
	w[3] = retval;
}

static bool record_entry(struct ut_thread *t, uint64_t ip, uint32_t depth)
{
	uint64_t *w, delta;

	w = ut_rec_reserve(t, UT_REC_SIZE, &delta);
	if (!w)
		return false;
	put_entry(w, ip, delta, depth);
	ut_rec_commit(t, UT_REC_SIZE);
	return true;
}

static void record_exit(struct ut_thread *t, const struct ut_shadow_frame *f, uint64_t overrun,
			uint64_t retval)
{
	uint64_t *w, delta, dur;

	w = ut_rec_reserve(t, UT_REC_EXIT_SIZE, &delta);
	if (!w)
		return;
	dur = t->new_ts - f->calltime;
	if (ut_rt.graph.thresh && dur < ut_rt.graph.thresh)
		return; /* reserved, never committed: nothing is written */
	put_exit(w, f, delta, overrun, dur, retval);
	ut_rec_commit(t, UT_REC_EXIT_SIZE);
}

/*
 * The filters' verdict for @ip, under @sh's frames (NULL: none yet): 0,
 * UT_FRAME_ROOT and/or UT_FRAME_HIDDEN, or -1 to skip.
 */
int ut_graph_filter(const struct ut_shadow *sh, uint64_t ip)
{
	const struct ut_site *s = ut_sites_find(ip);
	uint8_t g = s ? s->graph : 0;
	int flags = 0;

	if (g & UT_GRAPH_NOTRACE)
		flags |= UT_FRAME_HIDDEN;
	else if (!(sh && sh->roots) && ut_rt.graph.roots && !(g & UT_GRAPH_ROOT))
		return -1; /* not inside a set_graph_function root */
	if (g & UT_GRAPH_ROOT)
		flags |= UT_FRAME_ROOT;
	return flags;
}

/*
 * Called by utrace_graph_caller (every argument register saved) for each
 * entry its fast path does not do: the thread's first call, filters,
 * commands, instances, a depth limit or threshold, a page to open, a
 * longjmp's leftovers, a coroutine, a signal handler, a new profiler row...
 */
void ut_graph_entry(uint64_t ip, uint64_t *slot)
{
	struct ut_thread *t = &ut_self;
	struct ut_shadow_frame *f;
	struct ut_prof_entry *prof;
	struct ut_shadow *sh;
	int flags = 0, sig;

	if (!ut_enter(t))
		return;
	if (unlikely(ut_rt.nr_cmds | ut_rt.nr_inst) && !ut_cmd_hit(t, ip, *slot))
		goto out;
	if (!ut_tracing_on(t))
		goto out;
	/*
	 * The thread's first call: on its own stack (a switch to a coroutine
	 * made the coroutine's).  The first call on another stack than the
	 * empty coroutine's that ran: a switch the wrappers did not see (a
	 * coroutine ending into its uc_link).
	 */
	sh = t->shadow;
	if (unlikely(!sh)) {
		if (!t->home)
			t->home = ut_stacks_new_home();
		sh = t->shadow = t->home;
		if (!sh)
			goto out;
	} else if (unlikely(!sh->top && off_stack(sh, (uint64_t)slot))) {
		sh = t->shadow = ut_stacks_shadow_for(t, (uint64_t)slot, true);
		if (!sh)
			goto out;
	}
	drop_stale(sh, (uint64_t)slot);
	if (sh->hidden)
		goto out; /* below a set_graph_notrace function: nothing */
	/* The profiler counts every call, hooked or not (depth, overrun). */
	prof = ut_rt.cfg.profile ? ut_prof_hit(t, ip) : NULL;
	if (unlikely(ut_rt.graph.filtered)) {
		flags = ut_graph_filter(sh, ip);
		if (flags < 0)
			goto out;
	}
	if (ut_rt.graph.max_depth && sh->base + sh->top >= ut_rt.graph.max_depth)
		goto out;
	if (unlikely(sh->top >= UT_SHADOW_DEPTH)) {
		sh->overrun++;
		goto out;
	}
	sig = flags & UT_FRAME_HIDDEN ? 0 : ut_sigmark_enter(t, slot, sh->base + sh->top);
	if (sig)
		flags |= UT_FRAME_SIGNAL;
	f = &sh->f[sh->top];
	f->ret = *slot;
	f->slot = (uint64_t)slot;
	f->func = ip;
	f->flags = (uint32_t)flags;
	f->depth = sh->base + sh->top;
	f->prof = prof;
	f->child = (uint64_t)sig;
	sh->hidden += !!(flags & UT_FRAME_HIDDEN);
	sh->roots += !!(flags & UT_FRAME_ROOT);
	/* The call time is the entry record's timestamp, or read here. */
	f->entry_end = 0;
	if (ut_rt.cfg.profile)
		f->calltime = ut_prof_now();
	else if ((flags & UT_FRAME_HIDDEN) || ut_rt.graph.thresh ||
		 !record_entry(t, ip, f->depth))
		f->calltime = ut_now();
	else {
		f->calltime = t->new_ts;
		f->entry_end = t->head; /* a GRAPH_RET, if nothing follows (trampoline.S) */
	}
	sh->top++;
	*slot = (uint64_t)utrace_graph_return;
out:
	ut_leave(t);
}

/* The profiler's return at @now: the call's time, and its share of the caller's. */
static inline void profile_exit(struct ut_shadow *sh, const struct ut_shadow_frame *f,
				uint64_t now)
{
	uint64_t dur = now - f->calltime;

	if (sh->top)
		sh->f[sh->top - 1].child += dur;
	if (f->prof)
		ut_prof_time(f->prof, dur, dur > f->child ? dur - f->child : 0);
}

/*
 * A return whose frame is no longer on the shadow stack: one dropped as
 * stale that was alive after all (coroutine stacks close together).  Its
 * real return address is in the dropped list (a tail-call chain: follow it);
 * no exit is recorded.  Not there either: nothing safe is left to do.
 */
static uint64_t dropped_return(struct ut_shadow *sh, uint64_t sp)
{
	uint64_t slot = sp - 8, ret = (uint64_t)utrace_graph_return;

	for (uint32_t n = 0; sh && n < UT_SHADOW_DROPPED && ret == (uint64_t)utrace_graph_return;
	     n++) {
		uint32_t i = (sh->next_dropped - 1 - n) % UT_SHADOW_DROPPED;

		if (sh->dropped[i].slot == slot) {
			ret = sh->dropped[i].ret;
			sh->dropped[i].slot = 0;
		}
	}
	if (ret == (uint64_t)utrace_graph_return)
		ut_graph_lost_frame(sp);
	return ret;
}

/* The frame of the return through @slot: its index, or -1. */
static int find_frame(const struct ut_shadow *sh, uint64_t slot)
{
	int i;

	for (i = sh ? (int)sh->top - 1 : -1; i >= 0 && sh->f[i].slot != slot; i--)
		;
	return i;
}

/*
 * A frame's exit is recorded while function_graph still runs: frames pushed
 * under it that return after another tracer took over write nothing (as the
 * kernel's graph return handler does once its ops are gone), else the new
 * tracer's trace would begin with exits of the old one.
 */
static inline bool graph_tracing(struct ut_thread *t)
{
	return __atomic_load_n(&ut_rt.cfg.tracer, __ATOMIC_RELAXED) == UT_TRACER_FUNCTION_GRAPH &&
	       ut_tracing_on(t);
}

/*
 * Called by utrace_graph_return for each return its fast path does not do,
 * with the stack pointer as it was just after the hooked function's `ret`:
 * the slot that held the return address is right below it.  Must return
 * the real return address whatever happens.
 */
uint64_t ut_graph_return(uint64_t sp, uint64_t retval)
{
	struct ut_thread *t = &ut_self;
	struct ut_shadow *sh = t->shadow;
	uint64_t slot = sp - 8, ret;
	bool record;
	int i;

	i = find_frame(sh, slot);
	if (unlikely(i < 0)) {
		/*
		 * A return on another stack than the one thought to run: the
		 * one its address says, or the thread's own (a coroutine
		 * stack's memory reused by it).
		 */
		struct ut_shadow *other = ut_stacks_shadow_for(t, slot, false);

		if (other == sh || (i = find_frame(other, slot)) < 0) {
			other = t->home;
			if (other == sh || (i = find_frame(other, slot)) < 0)
				return dropped_return(sh, sp);
		}
		sh = t->shadow = other;
	}
	/* Frames above it were skipped by a longjmp: they will never return. */
	while ((int)sh->top - 1 > i)
		pop_frame(sh, true);
	/* The frame is popped whatever happens; recording needs the guard. */
	record = !t->busy && ut_enter(t);
	/*
	 * Pop it; a frame whose saved return address is the trampoline itself
	 * was entered by a tail call from the frame below, which returns now too.
	 */
	do {
		struct ut_shadow_frame f = sh->f[sh->top - 1];

		pop_frame(sh, false);
		if (ut_rt.cfg.profile)
			profile_exit(sh, &f, ut_prof_now());
		else if (record && !(f.flags & UT_FRAME_HIDDEN) && graph_tracing(t))
			record_exit(t, &f, sh->overrun, retval);
		if (record && (f.flags & UT_FRAME_SIGNAL) && ut_tracing_on(t))
			ut_sigmark_exit(t, &f);
		ret = f.ret;
	} while (ret == (uint64_t)utrace_graph_return && sh->top && sh->f[sh->top - 1].slot == slot);
	if (record)
		ut_leave(t);
	if (unlikely(ret == (uint64_t)utrace_graph_return))
		ut_graph_lost_frame(sp);
	return ret;
}

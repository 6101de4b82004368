// SPDX-License-Identifier: MIT
/*
 * An inlined instance's site was hit (libutrace/inlined.c): utrace_inl_caller
 * saved every register and the flags, and passes the site and the holding
 * function's %rsp.  The hit is what a call of the function the instance
 * came from would be, as far as an inlined call can be one:
 *
 *   function        a FUNCTION record, parent = the function it sits in
 *                   (its start, kept in the slot's header);
 *   function_graph  an INLINED record at the depth of a call from the
 *                   function it sits in, one more per inlined body around
 *                   it: a leaf line without a duration (it has no return);
 *                   filters and notrace as for a call; none under a
 *                   threshold (no duration can pass it);
 *   profiler        a hit in its row, no time.
 *
 * Commands and instances see it through ut_cmd_hit like any call.
 */
#include "libutrace/internal.h"

void ut_inlined_hit(uint64_t site, uint64_t sp) UT_HIDDEN;
void ut_function_entry(uint64_t ip, uint64_t parent_ip) UT_HIDDEN;

/*
 * The slot's header holds the holding function's start 13 bytes before the
 * site, and in its top 16 bits how many inlined bodies are around this one.
 */
#define SITE_TO_PARENT 13
#define NEST_SHIFT 48

/* The graph filters let a call of the instance's function show here (notrace: not even it). */
static bool graph_wanted(const struct ut_shadow *sh, uint64_t site)
{
	int flags = ut_rt.graph.filtered ? ut_graph_filter(sh, site) : 0;

	return flags >= 0 && !(flags & UT_FRAME_HIDDEN);
}

static void graph_hit(struct ut_thread *t, uint64_t site, uint64_t sp, uint64_t parent,
		      uint32_t nest)
{
	struct ut_shadow *sh;
	uint64_t *w, delta;
	uint32_t depth;

	if (unlikely(ut_rt.nr_cmds | ut_rt.nr_inst) && !ut_cmd_hit(t, site, parent))
		return;
	if (!ut_tracing_on(t))
		return;
	sh = t->shadow;
	if (sh) {
		ut_graph_drop_below(sh, sp); /* frames a longjmp left below the function */
		if (sh->hidden)
			return;
	}
	if (ut_rt.cfg.profile) {
		ut_prof_hit(t, site);
		return;
	}
	depth = (sh ? sh->base + sh->top : 0) + nest;
	if (!graph_wanted(sh, site) || ut_rt.graph.thresh ||
	    (ut_rt.graph.max_depth && depth >= ut_rt.graph.max_depth))
		return;
	w = ut_rec_reserve(t, UT_REC_SIZE, &delta);
	if (!w)
		return;
	w[0] = ut_rec_word0(UT_REC_INLINED, ut_cpu(), site);
	w[1] = (delta << UT_REC_DELTA_SHIFT) | depth;
	ut_rec_commit(t, UT_REC_SIZE);
}

void ut_inlined_hit(uint64_t site, uint64_t sp)
{
	struct ut_thread *t = &ut_self;
	uint64_t w = *(const uint64_t *)(site - SITE_TO_PARENT);
	uint64_t parent = w & UT_REC_ADDR_MASK;

	if (ut_rt.cfg.tracer != UT_TRACER_FUNCTION_GRAPH && !ut_rt.cfg.profile) {
		ut_function_entry(site, parent);
		return;
	}
	if (!ut_enter(t))
		return;
	graph_hit(t, site, sp, parent, (uint32_t)(w >> NEST_SHIFT));
	ut_leave(t);
}

// SPDX-License-Identifier: MIT
/*
 * Signal handlers in the function graph.  The kernel marks an interrupt in
 * function_graph output by the function it enters through (one of the
 * __irq_entry section) and prints "==========>" before its entry and
 * "<==========" after its return.  A signal handler is user space's
 * interrupt, and the kernel calls it with the signal restorer (glibc's
 * __restore_rt, which the program's sigaction() registered) as its return
 * address, so a traced function whose return address is the restorer is a
 * handler: its frame is flagged and SIGNAL records around its entry and
 * return say where the handler starts and ends.
 *
 * Nothing is wrapped: handlers installed before utrace started, SA_SIGINFO
 * or not, behave as before.  A handler that leaves by siglongjmp never
 * returns: its end is not recorded (readers cope).  A signal arriving
 * inside the tracer finds the guard taken and records nothing, handler
 * functions included.
 */
#include "libutrace/internal.h"

/* The restorer the kernel returns handlers to (libutrace/signals.c learns it). */
uint64_t ut_sig_restorer;

static void put_signal(struct ut_thread *t, int sig, uint64_t exit, uint32_t depth)
{
	uint64_t *w, delta;

	w = ut_rec_reserve(t, UT_REC_SIZE, &delta);
	if (!w)
		return;
	w[0] = ut_rec_word0(UT_REC_SIGNAL, ut_cpu(), (uint64_t)sig);
	w[1] = (delta << UT_REC_DELTA_SHIFT) | (exit << 32) | depth;
	ut_rec_commit(t, UT_REC_SIZE);
}

/*
 * At the entry of a traced function whose return address is at @slot, in
 * the graph tracer's guard, before its entry record: its signal number if
 * it is a signal handler (its first argument) and its start was recorded
 * (the frame is then flagged and keeps the number), else 0.
 */
int ut_sigmark_enter(struct ut_thread *t, const uint64_t *slot, uint32_t depth)
{
	int sig;

	if (*slot != ut_sig_restorer || !ut_sig_restorer || ut_rt.cfg.profile ||
	    ut_rt.graph.thresh)
		return 0;
	sig = (int)ut_arch_entry_arg0(slot);
	if (sig <= 0 || sig > 64)
		return 0;
	put_signal(t, sig, 0, depth);
	return sig;
}

/* After the exit record of a frame flagged UT_FRAME_SIGNAL: its signal in f->child. */
void ut_sigmark_exit(struct ut_thread *t, const struct ut_shadow_frame *f)
{
	put_signal(t, (int)f->child, 1, f->depth);
}

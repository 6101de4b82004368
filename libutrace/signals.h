/* SPDX-License-Identifier: MIT */
#ifndef UT_SIGNALS_H
#define UT_SIGNALS_H

#include <stdbool.h>
#include <ucontext.h>

#include "libutrace/internal.h"

/*
 * Install our SIGTRAP handler.  @ours is asked first about every SIGTRAP and
 * returns true if it handled it (a thread hit a site being patched); other
 * traps go to the handler the program installed, which utrace remembers in
 * its sigaction()/signal() wrappers instead of letting it replace ours.
 */
int ut_signals_init(bool (*ours)(siginfo_t *si, ucontext_t *uc)) UT_HIDDEN;
/*
 * Install our SIGBUS handler: @ours is asked about every SIGBUS of a
 * missing page (BUS_ADRERR) and returns true if it was in one of our
 * mappings and is dealt with; others go to the program's handler.
 */
int ut_signals_bus(bool (*ours)(void *addr)) UT_HIDDEN;
/*
 * sigevents.c: sigaction() of a signal that is not ours, through @real:
 * while signal:signal_deliver is enabled a handler is installed behind
 * one that records its deliveries.
 */
int ut_sigev_sigaction(int (*real)(int, const struct sigaction *, struct sigaction *), int sig,
		       const struct sigaction *act, struct sigaction *old) UT_HIDDEN;

#endif
